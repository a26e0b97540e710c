//! The building blocks placements are made of, apart from the clients'
//! files in [`crate::flavour`].

pub mod prepare;
