//! 1024 buckets: a key goes to bucket `hash % 1024`, and bucket `b` to the
//! first point at or after `b × (0xffffffff / 1024)` (wrapping), so the
//! owner is a function of the bucket alone. When its owner is down the key
//! walks on to the points after that one.

use super::{Keyspace, walk_on};
use crate::continuum::Continuum;

/// How many buckets.
pub const BUCKETS: u32 = 1024;

/// The index of the first point at or after the start of `hash`'s bucket,
/// wrapping to 0; `None` when the continuum is empty.
#[inline]
pub fn locate(continuum: &Continuum, hash: u32) -> Option<usize> {
    continuum.locate(position(hash))
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

/// The owner depends on `hash % 1024` alone: 1024 classes of 2^22 hashes.
pub fn keyspace(_points: &[u32]) -> Keyspace {
    Keyspace::Classes(BUCKETS)
}

/// The start of the hash's bucket.
#[inline]
pub fn position(hash: u32) -> u32 {
    (hash % BUCKETS) * (u32::MAX / BUCKETS)
}
