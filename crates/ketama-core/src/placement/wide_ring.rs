//! A ring whose points are wider than 32 bits: uhashring's default ring
//! places 128-bit MD5 integers, django-redis's SHA-256 hex strings, Jedis
//! signed 64-bit MurmurHash64A values (mapped to bytes in signed order). Points
//! are kept as big-endian bytes (so byte order is the peers' numeric or
//! string order) and found through a [`Continuum`] of their top 32 bits
//! and owners; the whole point is read only when its top bits equal the
//! key's.

use super::per_key::Location;
use crate::continuum::{Continuum, TiePolicy};

/// Which point a key takes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WideSearch {
    /// The first point strictly greater than the key, wrapping to the
    /// first (`bisect_right`: uhashring).
    After,
    /// The last point at or before the key, wrapping to the last
    /// (`bisect_right − 1`: django-redis).
    AtOrBefore,
    /// The first point at or after the key, wrapping to the first
    /// (`TreeMap.tailMap(key)`: Jedis).
    AtOrAfter,
}

/// Sorted wide points, and a continuum of their top 32 bits and owners in
/// the same order.
#[derive(Debug, Clone)]
pub struct WideRing<const N: usize> {
    points: Box<[[u8; N]]>,
    index: Continuum,
    search: WideSearch,
}

fn top<const N: usize>(point: &[u8; N]) -> u32 {
    u32::from_be_bytes([point[0], point[1], point[2], point[3]])
}

impl<const N: usize> WideRing<N> {
    /// The bytes it holds on the heap: its points and their index.
    pub fn heap_bytes(&self) -> usize {
        size_of_val(&*self.points) + self.index.heap_bytes()
    }

    /// The ring of `generated` `(point, server)` pairs (in generation
    /// order; of equal points the one generated last is kept, as a
    /// dictionary keyed by point keeps it).
    pub fn new(mut generated: Vec<([u8; N], u32)>, search: WideSearch) -> Self {
        generated.sort_by_key(|entry| entry.0); // stable: generation order within a point
        let mut kept: Vec<([u8; N], u32)> = Vec::with_capacity(generated.len());
        for (point, owner) in generated {
            match kept.last_mut() {
                Some(last) if last.0 == point => last.1 = owner,
                _ => kept.push((point, owner)),
            }
        }
        // A stable sort of points already in order keeps that order.
        let index = Continuum::new(
            kept.iter()
                .map(|(point, owner)| (top(point), *owner))
                .collect(),
            TiePolicy::FirstWins,
        );
        WideRing {
            points: kept.iter().map(|(p, _)| *p).collect(),
            index,
            search,
        }
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Point `i` in ring order and its owner.
    pub fn entry(&self, i: usize) -> ([u8; N], usize) {
        (self.points[i], self.index.owners()[i] as usize)
    }

    /// True when the ring has no point.
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The index of the first point greater than `key`, or `len()`.
    fn first_after(&self, key: &[u8; N]) -> usize {
        let key_top = top(key);
        let tops = self.index.points();
        let Some(found) = self.index.locate(key_top) else {
            return 0;
        };
        // The index wraps to 0 when every point's top bits are below the key's.
        if tops[found] < key_top {
            return tops.len();
        }
        let mut at = found;
        while at < tops.len() && tops[at] == key_top && self.points[at] <= *key {
            at += 1;
        }
        at
    }

    /// The point `key` takes, then the first point from there (in ring
    /// order, wrapping) whose owner is not down; `None` when every owner
    /// is down or the ring is empty.
    pub fn locate(&self, key: &[u8; N], is_down: &dyn Fn(usize) -> bool) -> Option<Location> {
        let len = self.points.len();
        if len == 0 {
            return None;
        }
        let after = self.first_after(key);
        let start = match self.search {
            WideSearch::After => after % len,
            WideSearch::AtOrBefore => after.checked_sub(1).unwrap_or(len - 1),
            WideSearch::AtOrAfter => match after.checked_sub(1) {
                Some(at) if self.points[at] == *key => at,
                _ => after % len,
            },
        };
        let owners = self.index.owners();
        (0..len)
            .map(|step| (start + step) % len)
            .find(|&i| !is_down(owners[i] as usize))
            .map(|i| Location {
                point_index: i,
                point: self.index.points()[i],
                server_index: owners[i] as usize,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn point(top: u32, low: u8) -> [u8; 8] {
        let mut p = [0u8; 8];
        p[..4].copy_from_slice(&top.to_be_bytes());
        p[7] = low;
        p
    }

    /// The answer by plain search over the sorted points.
    fn by_search(ring: &WideRing<8>, key: &[u8; 8]) -> usize {
        let after = ring.points.partition_point(|p| p <= key);
        match ring.search {
            WideSearch::After => after % ring.len(),
            WideSearch::AtOrBefore => after.checked_sub(1).unwrap_or(ring.len() - 1),
            WideSearch::AtOrAfter => ring.points.partition_point(|p| p < key) % ring.len(),
        }
    }

    #[test]
    fn lookups_compare_whole_points() {
        let generated = vec![
            (point(10, 5), 0),
            (point(10, 9), 1),
            (point(20, 0), 2),
            (point(10, 5), 3),
            (point(u32::MAX, 1), 4),
        ];
        for search in [
            WideSearch::After,
            WideSearch::AtOrBefore,
            WideSearch::AtOrAfter,
        ] {
            let ring = WideRing::new(generated.clone(), search);
            assert_eq!(ring.len(), 4, "the equal point kept once");
            assert_eq!(
                ring.index.owners(),
                &[3, 1, 2, 4],
                "the later of equal points kept"
            );
            for t in [0, 9, 10, 11, 19, 20, 21, u32::MAX - 1, u32::MAX] {
                for low in [0, 1, 4, 5, 6, 9, 10, 255] {
                    let key = point(t, low);
                    let at = ring.locate(&key, &|_| false).unwrap();
                    assert_eq!(
                        at.point_index,
                        by_search(&ring, &key),
                        "{search:?} {t} {low}"
                    );
                }
            }
            let at = ring.locate(&point(10, 6), &|s| s == 1).unwrap();
            assert_ne!(at.server_index, 1);
            assert_eq!(ring.locate(&point(10, 6), &|_| true), None);
        }
    }
}
