//! The first point at or after the key's hash, wrapping to the first point
//! past the last: the search of most continuums. Among equal points the
//! first in continuum order takes the key.

use super::{Keyspace, walk_on};
use crate::continuum::Continuum;

/// The index of the first point ≥ `hash`, wrapping to 0; `None` when the
/// continuum is empty.
#[inline]
pub fn locate(continuum: &Continuum, hash: u32) -> Option<usize> {
    continuum.locate(hash)
}

/// The first point from [`locate`]'s on, walking on and wrapping, that
/// `live` accepts.
pub fn locate_live(
    continuum: &Continuum,
    hash: u32,
    live: impl Fn(usize) -> bool,
) -> Option<usize> {
    walk_on(continuum, locate(continuum, hash)?, live)
}

/// The owner changes just after each point.
pub fn keyspace(points: &[u32]) -> Keyspace {
    Keyspace::Arcs(points.to_vec())
}

/// The search starts at the hash itself.
#[inline]
pub fn position(hash: u32) -> u32 {
    hash
}
