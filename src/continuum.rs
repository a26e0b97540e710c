//! The continuum: sorted points on the 32-bit circle, each owned by a server,
//! and a bucket index that makes "first point ≥ hash" a table read plus a
//! short scan.

/// How equal point values from different servers are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TiePolicy {
    /// Keep every point; among equal values the one generated first (earlier
    /// server in list order) comes first and wins lookups. libketama (glibc's
    /// stable qsort), libmemcached, twemproxy and pecl memcache behave so.
    FirstWins,
    /// Keep one point per value, the one generated last (a `TreeMap.put`
    /// overwrite, as in spymemcached).
    LastWins,
}

/// A sorted continuum with its lookup index. Immutable once built.
#[derive(Debug, Clone)]
pub struct Continuum {
    points: Box<[u32]>,
    owners: Box<[u32]>,
    /// `bucket_start[b]` = index of the first point ≥ `b << shift`;
    /// the last entry is `points.len()`.
    bucket_start: Box<[u32]>,
    shift: u32,
}

/// Fewest and most index bits: at most 2^20 buckets (4 MiB) for very large rings.
const MIN_INDEX_BITS: u32 = 1;
const MAX_INDEX_BITS: u32 = 20;

impl Continuum {
    /// Builds a continuum from `(point, server index)` pairs given in
    /// generation order. The sort is stable, so generation order decides ties
    /// before `ties` is applied.
    pub fn new(mut generated: Vec<(u32, u32)>, ties: TiePolicy) -> Self {
        sort_by_point(&mut generated);
        if ties == TiePolicy::LastWins {
            // Within each run of equal points keep the last one generated.
            let mut kept: Vec<(u32, u32)> = Vec::with_capacity(generated.len());
            for pair in generated {
                match kept.last_mut() {
                    Some(last) if last.0 == pair.0 => *last = pair,
                    _ => kept.push(pair),
                }
            }
            generated = kept;
        }
        let points: Box<[u32]> = generated.iter().map(|&(p, _)| p).collect();
        let owners: Box<[u32]> = generated.iter().map(|&(_, s)| s).collect();
        let bits = index_bits(points.len());
        let shift = 32 - bits;
        let buckets = 1usize << bits;
        let mut bucket_start = Vec::with_capacity(buckets + 1);
        let mut i = 0usize;
        for b in 0..buckets {
            let low = (b as u64) << shift;
            while i < points.len() && u64::from(points[i]) < low {
                i += 1;
            }
            bucket_start.push(i as u32);
        }
        bucket_start.push(points.len() as u32);
        Continuum {
            points,
            owners,
            bucket_start: bucket_start.into_boxed_slice(),
            shift,
        }
    }

    /// Number of points.
    #[inline]
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// True when the continuum has no point (every server got zero points).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The sorted point values.
    #[inline]
    pub fn points(&self) -> &[u32] {
        &self.points
    }

    /// The owning server index of each point (parallel to [`Self::points`]).
    #[inline]
    pub fn owners(&self) -> &[u32] {
        &self.owners
    }

    /// Index of the first point ≥ `hash`, wrapping to 0 past the last point;
    /// `None` for an empty continuum. This is exactly libketama's search.
    #[inline]
    pub fn locate(&self, hash: u32) -> Option<usize> {
        if self.points.is_empty() {
            return None;
        }
        let bucket = (hash >> self.shift) as usize;
        let start = self.bucket_start[bucket] as usize;
        let end = self.bucket_start[bucket + 1] as usize;
        let found = start + self.points[start..end].partition_point(|&p| p < hash);
        Some(if found == self.points.len() { 0 } else { found })
    }

    /// Index of the last point ≤ `hash`, wrapping to the last point before
    /// the first one (dalli's search; among equal points, the last).
    #[inline]
    pub fn locate_at_or_before(&self, hash: u32) -> Option<usize> {
        let last = self.points.len().checked_sub(1)?;
        if hash == u32::MAX {
            return Some(last);
        }
        // The first point > hash, wrapping to 0, and one step back.
        Some(match self.locate(hash + 1)? {
            0 => last,
            next => next - 1,
        })
    }

    /// The same answer as [`Self::locate`] by plain binary search over the
    /// whole array; kept as the reference the index is tested against.
    pub fn locate_by_binary_search(&self, hash: u32) -> Option<usize> {
        if self.points.is_empty() {
            return None;
        }
        let found = self.points.partition_point(|&p| p < hash);
        Some(if found == self.points.len() { 0 } else { found })
    }
}

/// Below this many points a comparison sort is as fast as the radix sort.
const RADIX_THRESHOLD: usize = 512;

/// Stable sort by point: an LSD radix sort (four passes of 8 bits) for
/// large continuums, keeping generation order among equal points.
fn sort_by_point(pairs: &mut Vec<(u32, u32)>) {
    if pairs.len() < RADIX_THRESHOLD {
        pairs.sort_by_key(|&(point, _)| point);
        return;
    }
    const BITS: u32 = 8;
    const BUCKETS: usize = 1 << BITS;
    let mut scratch = vec![(0u32, 0u32); pairs.len()];
    for pass in 0..4 {
        let shift = pass * BITS;
        let digit = |point: u32| ((point >> shift) as usize) & (BUCKETS - 1);
        let mut starts = vec![0usize; BUCKETS + 1];
        for &(point, _) in pairs.iter() {
            starts[digit(point) + 1] += 1;
        }
        for b in 0..BUCKETS {
            starts[b + 1] += starts[b];
        }
        for &pair in pairs.iter() {
            let d = digit(pair.0);
            scratch[starts[d]] = pair;
            starts[d] += 1;
        }
        std::mem::swap(pairs, &mut scratch);
    }
}

/// Index size: about one bucket per point, between 2^1 and 2^20 buckets.
fn index_bits(points: usize) -> u32 {
    let wanted = usize::BITS - points.max(1).leading_zeros();
    wanted.clamp(MIN_INDEX_BITS, MAX_INDEX_BITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(state: &mut u64) -> u32 {
        *state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*state >> 32) as u32
    }

    #[test]
    fn index_agrees_with_binary_search_on_random_and_edge_probes() {
        let mut seed = 7u64;
        for size in [1usize, 2, 3, 10, 160, 1000, 40_000] {
            let generated: Vec<(u32, u32)> = (0..size)
                .map(|i| (lcg(&mut seed), (i % 7) as u32))
                .collect();
            let c = Continuum::new(generated, TiePolicy::FirstWins);
            let mut probes: Vec<u32> = vec![0, 1, u32::MAX, u32::MAX - 1];
            for &p in c.points() {
                probes.extend([p, p.wrapping_sub(1), p.wrapping_add(1)]);
            }
            probes.extend((0..5000).map(|_| lcg(&mut seed)));
            for h in probes {
                assert_eq!(
                    c.locate(h),
                    c.locate_by_binary_search(h),
                    "size {size} hash {h}"
                );
            }
        }
    }

    #[test]
    fn ties_first_wins_keeps_all_points_and_returns_first_of_run() {
        let c = Continuum::new(vec![(5, 0), (9, 1), (5, 2), (5, 3)], TiePolicy::FirstWins);
        assert_eq!(c.points(), &[5, 5, 5, 9]);
        assert_eq!(c.owners(), &[0, 2, 3, 1]);
        assert_eq!(c.locate(5), Some(0));
        assert_eq!(c.locate(6), Some(3));
        assert_eq!(
            c.locate(10),
            Some(0),
            "past the last point wraps to entry 0"
        );
        assert_eq!(c.locate(0), Some(0));
    }

    #[test]
    fn ties_last_wins_keeps_one_point_per_value() {
        let c = Continuum::new(vec![(5, 0), (9, 1), (5, 2), (5, 3)], TiePolicy::LastWins);
        assert_eq!(c.points(), &[5, 9]);
        assert_eq!(c.owners(), &[3, 1]);
    }

    #[test]
    fn radix_sort_is_stable_and_equals_the_comparison_sort() {
        let mut seed = 3u64;
        for size in [0usize, 1, 511, 512, 513, 5000, 100_000] {
            // Few distinct values, so many ties whose order must be kept.
            let pairs: Vec<(u32, u32)> = (0..size)
                .map(|i| ((lcg(&mut seed) % 1000).wrapping_mul(4_294_967), i as u32))
                .collect();
            let mut expected = pairs.clone();
            expected.sort_by_key(|&(p, _)| p);
            let mut sorted = pairs;
            sort_by_point(&mut sorted);
            assert_eq!(sorted, expected, "size {size}");
        }
    }

    #[test]
    fn empty_continuum_has_no_answer() {
        let c = Continuum::new(vec![], TiePolicy::FirstWins);
        assert_eq!(c.locate(123), None);
    }
}
