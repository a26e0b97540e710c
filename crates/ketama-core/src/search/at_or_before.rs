//! The last point at or before the key's hash, wrapping to the last point
//! before the first. Among equal points the last in continuum order takes
//! the key. When its owner is down the key walks on to the points after it.

use super::{Keyspace, walk_on};
use crate::continuum::Continuum;

/// The index of the last point ≤ `hash`, wrapping to the last point;
/// `None` when the continuum is empty.
#[inline]
pub fn locate(continuum: &Continuum, hash: u32) -> Option<usize> {
    let last = continuum.len().checked_sub(1)?;
    if hash == u32::MAX {
        return Some(last);
    }
    // The first point > hash, and one step back (wrapping).
    Some(match continuum.first_at_or_after(position(hash)) {
        0 => last,
        next => next - 1,
    })
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

/// The owner changes just before each point.
pub fn keyspace(points: &[u32]) -> Keyspace {
    Keyspace::Arcs(points.iter().map(|p| p.wrapping_sub(1)).collect())
}

/// The search looks for the first point past the hash.
#[inline]
pub fn position(hash: u32) -> u32 {
    hash.wrapping_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::continuum::TiePolicy;

    #[test]
    fn the_last_point_at_or_before_wrapping_to_the_last() {
        let c = Continuum::new(
            vec![(100, 0), (200, 1), (200, 2), (300, 3)],
            TiePolicy::FirstWins,
        );
        let owner = |h: u32| c.owners()[locate(&c, h).unwrap()];
        assert_eq!(owner(99), 3, "before the first: the last");
        assert_eq!(owner(100), 0);
        assert_eq!(owner(199), 0);
        assert_eq!(owner(200), 2, "equal points: the last of them");
        assert_eq!(owner(u32::MAX), 3);
        assert_eq!(
            c.owners()[locate_live(&c, 150, |i| c.owners()[i] != 0).unwrap()],
            1,
            "a down owner passes the key on"
        );
        let empty = Continuum::new(vec![], TiePolicy::FirstWins);
        assert_eq!(locate(&empty, 5), None);
    }
}
