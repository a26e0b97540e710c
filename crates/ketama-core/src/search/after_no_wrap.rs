//! The first point strictly after the key's hash and, past the last point,
//! the last point: a bisect-right over the sorted points whose index is
//! then capped at the last one (no wrap-around). When the owner is down the
//! key walks on to the points after it, wrapping.

use super::{Keyspace, walk_on};
use crate::continuum::Continuum;

/// The index of the first point > `hash`, else of the last point; `None`
/// when the continuum is empty.
#[inline(never)]
pub fn locate(continuum: &Continuum, hash: u32) -> Option<usize> {
    let last = continuum.len().checked_sub(1)?;
    if hash == u32::MAX {
        return Some(last);
    }
    Some(continuum.first_at_or_after(position(hash)).min(last))
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

/// The owner changes just before each point (a hash equal to a point goes
/// on to the next one); the hashes past the last cut stay with the last
/// point, as `u32::MAX` does.
pub fn keyspace(points: &[u32]) -> Keyspace {
    Keyspace::Arcs(points.iter().map(|p| p.wrapping_sub(1)).collect())
}

/// The search starts one past the hash (and stays at the top).
#[inline]
pub fn position(hash: u32) -> u32 {
    hash.saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::continuum::TiePolicy;

    #[test]
    fn a_point_equal_to_the_hash_is_passed_and_nothing_wraps() {
        let c = Continuum::new(vec![(0, 2), (100, 0), (200, 1)], TiePolicy::FirstWins);
        assert_eq!(locate(&c, 0), Some(1), "equal to the first point: the next");
        assert_eq!(locate(&c, 99), Some(1));
        assert_eq!(locate(&c, 100), Some(2));
        assert_eq!(locate(&c, 200), Some(2), "past the last: the last");
        assert_eq!(locate(&c, u32::MAX), Some(2));
        assert_eq!(locate_live(&c, 200, |i| i != 2), Some(0), "failover wraps");
        let empty = Continuum::new(Vec::new(), TiePolicy::FirstWins);
        assert_eq!(locate(&empty, 5), None);
    }
}
