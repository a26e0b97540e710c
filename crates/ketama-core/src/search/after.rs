//! The first point strictly after the key's hash, wrapping to the first
//! point past the last: Python's `bisect_right` over the sorted points.

use super::{Keyspace, walk_on};
use crate::continuum::Continuum;

/// The index of the first point > `hash`, wrapping to 0; `None` when the
/// continuum is empty.
#[inline]
pub fn locate(continuum: &Continuum, hash: u32) -> Option<usize> {
    // The first point ≥ hash + 1; past u32::MAX no point is greater, and
    // the wrapped position 0 finds the first point.
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

/// The owner changes just before each point: a hash equal to a point
/// already goes on to the next one.
pub fn keyspace(points: &[u32]) -> Keyspace {
    Keyspace::Arcs(points.iter().map(|p| p.wrapping_sub(1)).collect())
}

/// The search starts one past the hash.
#[inline]
pub fn position(hash: u32) -> u32 {
    hash.wrapping_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::continuum::TiePolicy;

    #[test]
    fn a_point_equal_to_the_hash_is_passed() {
        let c = Continuum::new(vec![(100, 0), (200, 1)], TiePolicy::FirstWins);
        assert_eq!(locate(&c, 99), Some(0));
        assert_eq!(locate(&c, 100), Some(1));
        assert_eq!(locate(&c, 200), Some(0), "past the last: the first");
        assert_eq!(locate(&c, u32::MAX), Some(0));
        assert_eq!(locate_live(&c, 100, |i| i != 1), Some(0));
    }
}
