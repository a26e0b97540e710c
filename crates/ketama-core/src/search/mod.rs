//! The searches on a continuum: how a key's hash becomes the point whose
//! owner takes the key. A placement names its search by what it does
//! ([`Search`]); each search is one module here with the same four parts:
//!
//! * `locate`: the index of the point a hash lands on;
//! * `locate_live`: the same when some owners are down (the failover the
//!   search's clients do, over the points whose owner is up);
//! * `keyspace`: where on the key-hash circle the owner may change, so
//!   that shares and movements can be counted exactly ([`Keyspace`]);
//! * `position`: where on the circle the search reads first (batch lookups
//!   start loading that point before they search).
//!
//! A new search is one more module and one more variant of [`Search`],
//! with an arm in each of its four methods.

pub mod after;
pub mod after_no_wrap;
pub mod at_or_after;
pub mod at_or_before;
pub mod buckets;
pub mod low_to_last;
pub mod nearest;
pub mod no_wrap;

use crate::continuum::Continuum;

/// How a key hash becomes a point on the continuum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Search {
    /// The first point at or after the hash, wrapping to the first point
    /// ([`at_or_after`]).
    AtOrAfter,
    /// The first point strictly after the hash, wrapping to the first
    /// point: a bisect-right ([`after`]).
    After,
    /// The last point at or before the hash, wrapping to the last point
    /// ([`at_or_before`]).
    AtOrBefore,
    /// The nearest point on either side of the circle, the one before on a
    /// tie ([`nearest`]).
    Nearest,
    /// The first point at or after the hash and, past the last point, the
    /// last point: no wrap-around ([`no_wrap`]).
    NoWrap,
    /// The first point strictly after the hash and, past the last point,
    /// the last point: a capped bisect-right ([`after_no_wrap`]).
    AfterNoWrap,
    /// The hash quantised to one of 1024 buckets, then the first point at
    /// or after the bucket's start ([`buckets`]).
    Buckets,
    /// The first point at or after the hash, wrapping to the first point;
    /// a hash below the first point takes the last point ([`low_to_last`]).
    LowToLast,
}

impl Search {
    /// Every search.
    pub const ALL: &'static [Search] = &[
        Search::AtOrAfter,
        Search::After,
        Search::AtOrBefore,
        Search::Nearest,
        Search::NoWrap,
        Search::AfterNoWrap,
        Search::Buckets,
        Search::LowToLast,
    ];

    /// The index of the point `hash` lands on; `None` for an empty
    /// continuum.
    #[inline]
    pub fn locate(self, continuum: &Continuum, hash: u32) -> Option<usize> {
        match self {
            Search::AtOrAfter => at_or_after::locate(continuum, hash),
            Search::After => after::locate(continuum, hash),
            Search::AtOrBefore => at_or_before::locate(continuum, hash),
            Search::Nearest => nearest::locate(continuum, hash),
            Search::NoWrap => no_wrap::locate(continuum, hash),
            Search::AfterNoWrap => after_no_wrap::locate(continuum, hash),
            Search::Buckets => buckets::locate(continuum, hash),
            Search::LowToLast => low_to_last::locate(continuum, hash),
        }
    }

    /// The index of the point `hash` lands on when only the points `live`
    /// accepts (by index) may take it; `None` when it accepts none.
    pub fn locate_live(
        self,
        continuum: &Continuum,
        hash: u32,
        live: impl Fn(usize) -> bool,
    ) -> Option<usize> {
        match self {
            Search::AtOrAfter => at_or_after::locate_live(continuum, hash, live),
            Search::After => after::locate_live(continuum, hash, live),
            Search::AtOrBefore => at_or_before::locate_live(continuum, hash, live),
            Search::Nearest => nearest::locate_live(continuum, hash, live),
            Search::NoWrap => no_wrap::locate_live(continuum, hash, live),
            Search::AfterNoWrap => after_no_wrap::locate_live(continuum, hash, live),
            Search::Buckets => buckets::locate_live(continuum, hash, live),
            Search::LowToLast => low_to_last::locate_live(continuum, hash, live),
        }
    }

    /// How the search divides the key-hash circle among the sorted
    /// `points` of a continuum.
    pub fn keyspace(self, points: &[u32]) -> Keyspace {
        match self {
            Search::AtOrAfter => at_or_after::keyspace(points),
            Search::After => after::keyspace(points),
            Search::AtOrBefore => at_or_before::keyspace(points),
            Search::Nearest => nearest::keyspace(points),
            Search::NoWrap => no_wrap::keyspace(points),
            Search::AfterNoWrap => after_no_wrap::keyspace(points),
            Search::Buckets => buckets::keyspace(points),
            Search::LowToLast => low_to_last::keyspace(points),
        }
    }

    /// Where on the circle the search for `hash` reads first.
    #[inline]
    pub fn position(self, hash: u32) -> u32 {
        match self {
            Search::AtOrAfter => at_or_after::position(hash),
            Search::After => after::position(hash),
            Search::AtOrBefore => at_or_before::position(hash),
            Search::Nearest => nearest::position(hash),
            Search::NoWrap => no_wrap::position(hash),
            Search::AfterNoWrap => after_no_wrap::position(hash),
            Search::Buckets => buckets::position(hash),
            Search::LowToLast => low_to_last::position(hash),
        }
    }

    /// True when the keyspaces of a continuum searched so and of one
    /// searched as `other` can be laid over each other (both arcs, or both
    /// the same classes), so that a movement between them is exact.
    pub fn overlays(self, other: Search) -> bool {
        Keyspace::overlay(vec![self.keyspace(&[]), other.keyspace(&[])]).is_some()
    }
}

/// The first point from `start` on, in continuum order and wrapping,
/// that `live` accepts (by index): the failover walk most searches share.
pub fn walk_on(continuum: &Continuum, start: usize, live: impl Fn(usize) -> bool) -> Option<usize> {
    let len = continuum.len();
    (0..len).map(|step| (start + step) % len).find(|&i| live(i))
}

/// How a search divides the 32-bit key-hash circle into parts that each
/// have one owner: what exact shares and movements walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Keyspace {
    /// Arcs: the owner may change only just after each cut, so each arc
    /// (previous cut, cut] has the owner of its cut, and the hashes past
    /// the last cut that of `u32::MAX`. Unsorted; cuts may repeat.
    Arcs(Vec<u32>),
    /// The owner depends on the hash modulo this count alone: as many
    /// classes of equal size, class `c` owned as the hash `c` is.
    Classes(u32),
}

impl Keyspace {
    /// The keyspace whose parts have one owner in each of several rings
    /// divided by `spaces`: the union of their cuts, or their common
    /// classes; `None` when arcs and classes (or two counts of classes)
    /// meet, which do not lay over each other.
    pub fn overlay(spaces: Vec<Keyspace>) -> Option<Keyspace> {
        let mut merged: Option<Keyspace> = None;
        for space in spaces {
            merged = Some(match (merged, space) {
                (None, space) => space,
                (Some(Keyspace::Arcs(mut cuts)), Keyspace::Arcs(more)) => {
                    cuts.extend(more);
                    Keyspace::Arcs(cuts)
                }
                (Some(Keyspace::Classes(a)), Keyspace::Classes(b)) if a == b => {
                    Keyspace::Classes(a)
                }
                _ => return None,
            });
        }
        merged
    }

    /// Each part as `(number of hashes, a hash inside it)`, covering the
    /// whole circle: for arcs the cuts in order and then the hashes past
    /// the last cut; for classes each class.
    pub fn parts(self) -> Vec<(u64, u32)> {
        match self {
            Keyspace::Arcs(mut cuts) => {
                cuts.sort_unstable();
                cuts.dedup();
                let mut parts = Vec::with_capacity(cuts.len() + 1);
                let mut previous: i64 = -1;
                for cut in cuts {
                    parts.push(((i64::from(cut) - previous) as u64, cut));
                    previous = i64::from(cut);
                }
                // Past the last cut the search wraps around (or stays).
                let tail = (i64::from(u32::MAX) - previous) as u64;
                if tail > 0 {
                    parts.push((tail, u32::MAX));
                }
                parts
            }
            Keyspace::Classes(count) => (0..count)
                .map(|class| {
                    // The hashes h < 2^32 with h % count == class.
                    let size = ((1u64 << 32) - u64::from(class)).div_ceil(u64::from(count));
                    (size, class)
                })
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests;
