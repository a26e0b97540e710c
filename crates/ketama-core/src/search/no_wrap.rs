//! The first point at or after the key's hash, and no wrap-around: a hash
//! past the last point goes to the last point. A hash equal to several
//! equal points takes the one a bisection of the sorted points meets first
//! ([`bisect`]). When the owner is down the key walks on to the points
//! after it, wrapping.

use super::{Keyspace, walk_on};
use crate::continuum::Continuum;

/// The index of the first point ≥ `hash`, else of the last point; a hash
/// equal to tied points goes where [`bisect`] lands. `None` when the
/// continuum is empty. Out of line, so that the other searches' lookups
/// keep their size.
#[inline(never)]
pub fn locate(continuum: &Continuum, hash: u32) -> Option<usize> {
    let last = continuum.len().checked_sub(1)?;
    let found = continuum.first_at_or_after(hash).min(last);
    let points = continuum.points();
    if points[found] == hash && points.get(found + 1) == Some(&hash) {
        return bisect(points, hash);
    }
    Some(found)
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

/// The owner changes just after each point (and stays past the last one);
/// where equal points meet, also just before them, since the hash equal
/// to them is bisected.
pub fn keyspace(points: &[u32]) -> Keyspace {
    let mut cuts = points.to_vec();
    for pair in points.windows(2).filter(|pair| pair[0] == pair[1]) {
        cuts.push(pair[0].wrapping_sub(1));
    }
    Keyspace::Arcs(cuts)
}

/// The search starts at the hash itself.
#[inline]
pub fn position(hash: u32) -> u32 {
    hash
}

/// A bisection of sorted `points` for `key`: halving `low..high` from the
/// whole array, the index of a point equal to `key` (the first the halving
/// meets), else of the first point above it, else the last point. `None`
/// when empty.
pub fn bisect(points: &[u32], key: u32) -> Option<usize> {
    let n = points.len();
    if n == 0 {
        return None;
    }
    let (mut low, mut high) = (0usize, n);
    loop {
        let i = (high + low) / 2;
        if points[i] == key {
            return Some(i);
        } else if i == n - 1 {
            return Some(n - 1);
        } else if points[i] < key && points[i + 1] >= key {
            return Some(i + 1);
        } else if points[i] > key {
            if i == 0 {
                return Some(0);
            }
            high = i;
        } else {
            low = i;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::continuum::TiePolicy;

    #[test]
    fn bisection_finds_the_first_point_at_or_above_without_wrapping() {
        let points = [10, 20, 20, 20, 30, 40];
        for (key, want) in [
            (0, 0),
            (10, 0),
            (11, 1),
            (21, 4),
            (40, 5),
            (41, 5),
            (u32::MAX, 5),
        ] {
            assert_eq!(bisect(&points, key), Some(want), "key {key}");
        }
        // A key equal to a tied point: where the bisection lands.
        assert_eq!(bisect(&points, 20), Some(3));
        assert_eq!(bisect(&[7], 3), Some(0));
        assert_eq!(bisect(&[], 3), None);
    }

    #[test]
    fn past_the_last_point_the_last() {
        // Points 100, 200 (twice: owners 1 then 2), 1000.
        let c = Continuum::new(
            vec![(100, 0), (200, 1), (200, 2), (1000, 3)],
            TiePolicy::FirstWins,
        );
        let owner = |i: Option<usize>| c.owners()[i.unwrap()];
        assert_eq!(owner(locate(&c, 1001)), 3, "past the last: the last");
        assert_eq!(owner(locate(&c, 0)), 0);
        assert_eq!(owner(locate(&c, 101)), 1);
        assert_eq!(owner(locate(&c, 200)), 2, "equal to a tie: bisected");
        assert_eq!(owner(locate_live(&c, 1001, |i| i != 3)), 0, "wraps");
    }
}
