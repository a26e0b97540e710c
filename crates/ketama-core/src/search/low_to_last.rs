//! The first point at or after the key's hash, wrapping to the first point
//! past the last; but a hash *below* the first point goes to the *last*
//! point (EnyimMemcached's `Array.BinarySearch` over its sorted points: an
//! insertion index of 0 is read as "use the server with the highest key").
//! A hash equal to the first point keeps it. With owners down the client
//! rebuilds its points without them and searches again, so the same rule
//! holds over the points whose owner is up.

use super::Keyspace;
use crate::continuum::Continuum;

/// The index of the first point ≥ `hash`; the last point when `hash` is
/// below every point; the first when it is above every point. `None` when
/// the continuum is empty. Out of line, so that the other searches'
/// lookups keep their size.
#[inline(never)]
pub fn locate(continuum: &Continuum, hash: u32) -> Option<usize> {
    let last = continuum.len().checked_sub(1)?;
    let found = continuum.first_at_or_after(hash);
    let points = continuum.points();
    Some(match found {
        0 if points[0] != hash => last,
        at if at > last => 0,
        at => at,
    })
}

/// [`locate`] over the points `live` accepts: the search of a continuum
/// rebuilt without the others.
pub fn locate_live(
    continuum: &Continuum,
    hash: u32,
    live: impl Fn(usize) -> bool,
) -> Option<usize> {
    let len = continuum.len();
    let points = continuum.points();
    let found = continuum.first_at_or_after(hash);
    let next = (found..len).find(|&i| live(i));
    match next {
        // Above every live point: the first live point.
        None => (0..len).find(|&i| live(i)),
        Some(at) if points[at] == hash || (0..found).any(&live) => Some(at),
        // Below every live point: the last live point.
        Some(_) => (0..len).rev().find(|&i| live(i)),
    }
}

/// The owner changes just after each point, and just before the first
/// point (below it the last point's owner takes the hash).
pub fn keyspace(points: &[u32]) -> Keyspace {
    let mut cuts = points.to_vec();
    if let Some(&first) = points.first()
        && first > 0
    {
        cuts.push(first - 1);
    }
    Keyspace::Arcs(cuts)
}

/// The search starts at the hash itself.
#[inline]
pub fn position(hash: u32) -> u32 {
    hash
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::continuum::TiePolicy;

    #[test]
    fn below_the_first_point_the_last() {
        let c = Continuum::new(vec![(100, 0), (200, 1), (300, 2)], TiePolicy::LastWins);
        let owner = |i: Option<usize>| c.owners()[i.unwrap()];
        assert_eq!(owner(locate(&c, 0)), 2);
        assert_eq!(owner(locate(&c, 99)), 2);
        assert_eq!(owner(locate(&c, 100)), 0, "equal to the first point");
        assert_eq!(owner(locate(&c, 101)), 1);
        assert_eq!(owner(locate(&c, 301)), 0, "past the last: the first");
        // Owner 0 down: the rebuilt points are 200 and 300.
        let live = |i: usize| c.owners()[i] != 0;
        assert_eq!(owner(locate_live(&c, 150, live)), 2, "below 200: the last");
        assert_eq!(owner(locate_live(&c, 200, live)), 1);
        assert_eq!(owner(locate_live(&c, 301, live)), 1, "wraps to 200");
        // Owner 2 down: 100 and 200.
        let live = |i: usize| c.owners()[i] != 2;
        assert_eq!(owner(locate_live(&c, 50, live)), 1);
        assert_eq!(owner(locate_live(&c, 250, live)), 0);
    }
}
