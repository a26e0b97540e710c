//! Moving a pool between two rings (`ketama_core::migration`): the
//! protocols model-checked over every interleaving of their clients, and a
//! move under load against real memcached servers on loopback with a
//! history checker.

mod model;
mod under_load;
