//! The point nearest to the key's hash on either side of the circle: the
//! first point at or after it (wrapping to the first) or the one before it
//! (wrapping to the last), whichever is closer; the one before on a tie.
//! A point whose owner is down leaves the circle, and the nearest of the
//! others takes the key.

use super::Keyspace;
use crate::continuum::Continuum;

/// The index of the point nearest to `hash`; `None` when the continuum is
/// empty. Among equal points, the first takes the hashes below them and
/// the last those above. Out of line, so that the other searches' lookups
/// keep their size.
#[inline(never)]
pub fn locate(continuum: &Continuum, hash: u32) -> Option<usize> {
    let next = continuum.locate(hash)?;
    let previous = next.checked_sub(1).unwrap_or(continuum.len() - 1);
    Some(nearer(continuum, hash, previous, next))
}

/// [`locate`] over the points `live` accepts (by index), as if the others
/// had left the circle; `None` when it accepts none.
pub fn locate_live(
    continuum: &Continuum,
    hash: u32,
    live: impl Fn(usize) -> bool,
) -> Option<usize> {
    let len = continuum.len();
    let start = continuum.locate(hash)?;
    let next = (0..len).map(|s| (start + s) % len).find(|&i| live(i))?;
    let previous = (1..=len)
        .map(|s| (next + len - s) % len)
        .find(|&i| live(i))?;
    Some(nearer(continuum, hash, previous, next))
}

#[inline(always)]
fn nearer(continuum: &Continuum, hash: u32, previous: usize, next: usize) -> usize {
    let points = continuum.points();
    let behind = hash.wrapping_sub(points[previous]);
    let ahead = points[next].wrapping_sub(hash);
    if behind <= ahead { previous } else { next }
}

/// The owner changes at each point and half way to the next one (the
/// half-way hash itself still goes to the point before).
pub fn keyspace(points: &[u32]) -> Keyspace {
    let mut cuts = points.to_vec();
    for (i, &point) in points.iter().enumerate() {
        let following = points[(i + 1) % points.len()];
        let gap = following.wrapping_sub(point);
        if gap != 0 {
            cuts.push(point.wrapping_add(gap / 2));
        }
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
    fn the_nearest_point_on_either_side() {
        // Points 100, 200 (twice: owners 1 then 2), 1000.
        let c = Continuum::new(
            vec![(100, 0), (200, 1), (200, 2), (1000, 3)],
            TiePolicy::FirstWins,
        );
        let owner = |i: Option<usize>| c.owners()[i.unwrap()];
        assert_eq!(owner(locate(&c, 150)), 0, "half way: the point before");
        assert_eq!(owner(locate(&c, 151)), 1, "below a tie: the first of it");
        assert_eq!(owner(locate(&c, 200)), 1);
        assert_eq!(owner(locate(&c, 201)), 2, "above a tie: the last of it");
        assert_eq!(owner(locate(&c, u32::MAX)), 0, "across the wrap");
        assert_eq!(owner(locate(&c, 2000)), 3);
        let live = |i: usize| c.owners()[i] != 0 && c.owners()[i] != 1;
        assert_eq!(owner(locate_live(&c, 120, live)), 2);
        assert_eq!(locate_live(&c, 120, |_| false), None);
    }
}
