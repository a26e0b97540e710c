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
    pub fn new(generated: Vec<(u32, u32)>, ties: TiePolicy) -> Self {
        let bits = index_bits(generated.len());
        let (mut points, mut owners, mut bucket_start) = bucket_sort(&generated, bits);
        drop(generated);
        if ties == TiePolicy::LastWins {
            // Within each run of equal points keep the last one generated.
            let mut kept = 0usize;
            for i in 0..points.len() {
                if kept > 0 && points[kept - 1] == points[i] {
                    owners[kept - 1] = owners[i];
                } else {
                    points[kept] = points[i];
                    owners[kept] = owners[i];
                    kept += 1;
                }
            }
            points.truncate(kept);
            owners.truncate(kept);
            bucket_start = bucket_starts(&points, index_bits(kept));
        }
        let shift = 32 - (bucket_start.len() - 1).trailing_zeros();
        Continuum {
            points: points.into_boxed_slice(),
            owners: owners.into_boxed_slice(),
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
        // Callers read the owner next: start loading it while the points
        // are searched, so the two cache misses of a cold lookup overlap.
        prefetch(&self.owners, start);
        let found = start + self.points[start..end].partition_point(|&p| p < hash);
        Some(if found == self.points.len() { 0 } else { found })
    }

    /// [`Self::locate`] reading a mirror of the points instead of
    /// [`Self::points`]: `mirror[i]` holds `points()[i]` (read by `point`),
    /// as the compat ABI's `mcs` records do. Only the index and `mirror` are
    /// touched, so the record a caller reads next is already in cache.
    #[inline]
    pub fn locate_in<T>(
        &self,
        hash: u32,
        mirror: &[T],
        point: impl Fn(&T) -> u32,
    ) -> Option<usize> {
        debug_assert_eq!(mirror.len(), self.points.len());
        if mirror.is_empty() || mirror.len() != self.points.len() {
            return self.locate(hash);
        }
        let bucket = (hash >> self.shift) as usize;
        let start = self.bucket_start[bucket] as usize;
        let end = self.bucket_start[bucket + 1] as usize;
        let found = start + mirror[start..end].partition_point(|r| point(r) < hash);
        Some(if found == mirror.len() { 0 } else { found })
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

/// Buckets longer than this are sorted with the standard stable sort rather
/// than by insertion (only reachable with many equal or clustered points).
const INSERTION_LIMIT: usize = 24;

/// Asks the CPU to start loading `slice[index]` into cache (no effect when
/// `index` is out of bounds or off x86-64).
#[inline(always)]
fn prefetch<T>(slice: &[T], index: usize) {
    #[cfg(target_arch = "x86_64")]
    if let Some(item) = slice.get(index) {
        // SAFETY: a prefetch is only a hint: it never faults and changes no
        // memory; the address is that of a live element anyway. SSE (which
        // provides the instruction) is part of the x86-64 baseline.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (item as *const T).cast::<i8>(),
            )
        };
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (slice, index);
}

/// Top bits of the first distribution pass of [`bucket_sort`] for large
/// continuums; the second pass then works on one cache-sized part at a time.
const FIRST_PASS_BITS: u32 = 8;

/// Up to this many index bits (2^18 points: the arrays fit in L2) one
/// distribution pass is cheaper than two.
const SINGLE_PASS_BITS: u32 = 16;

/// Stable sort by point: the pairs are distributed, in generation order, by
/// their top `bits` bits into buckets (in two passes for large continuums,
/// first by the top 8 bits, then each part by the remaining bits, so that
/// every pass writes into a region that stays in cache), and each bucket
/// (a few points on average for hash-made points) is then sorted by
/// insertion. Returns the sorted points, their owners, and the bucket
/// starts, which are exactly the lookup index: `starts[b]` = index of the
/// first point ≥ `b << (32 - bits)`, with `points.len()` appended.
fn bucket_sort(pairs: &[(u32, u32)], bits: u32) -> (Vec<u32>, Vec<u32>, Vec<u32>) {
    let mut points = vec![0u32; pairs.len()];
    let mut owners = vec![0u32; pairs.len()];
    let mut starts = vec![0u32; (1usize << bits) + 1];
    if bits <= SINGLE_PASS_BITS {
        scatter(
            pairs,
            32 - bits,
            bits,
            0,
            &mut points,
            &mut owners,
            &mut starts,
        );
    } else {
        let rest = bits - FIRST_PASS_BITS;
        let mut parts = vec![0u32; (1usize << FIRST_PASS_BITS) + 1];
        scatter(
            pairs,
            32 - FIRST_PASS_BITS,
            FIRST_PASS_BITS,
            0,
            &mut points,
            &mut owners,
            &mut parts,
        );
        let mut part: Vec<(u32, u32)> = Vec::new();
        let sub = 1usize << rest;
        for p in 0..1usize << FIRST_PASS_BITS {
            let (start, end) = (parts[p] as usize, parts[p + 1] as usize);
            part.clear();
            part.extend(
                points[start..end]
                    .iter()
                    .copied()
                    .zip(owners[start..end].iter().copied()),
            );
            scatter(
                &part,
                32 - bits,
                rest,
                start as u32,
                &mut points[start..end],
                &mut owners[start..end],
                &mut starts[p * sub..(p + 1) * sub + 1],
            );
        }
    }
    let buckets = starts.len() - 1;
    for b in 0..buckets {
        let (start, end) = (starts[b] as usize, starts[b + 1] as usize);
        if end - start > 1 {
            sort_bucket(&mut points[start..end], &mut owners[start..end]);
        }
    }
    (points, owners, starts)
}

/// One stable counting-sort pass over `pairs` by the digit
/// `(point >> shift) & (2^bits - 1)`, into `points`/`owners`. Fills
/// `starts` (`2^bits + 1` entries) with each bucket's first index plus
/// `base`, then `base + pairs.len()`.
fn scatter(
    pairs: &[(u32, u32)],
    shift: u32,
    bits: u32,
    base: u32,
    points: &mut [u32],
    owners: &mut [u32],
    starts: &mut [u32],
) {
    let buckets = 1usize << bits;
    debug_assert_eq!(starts.len(), buckets + 1);
    let digit = |point: u32| ((point >> shift) as usize) & (buckets - 1);
    // starts[d + 1] is bucket d's cursor: it begins at the bucket's first
    // slot and ends at the next bucket's first slot. Bucket d is counted in
    // starts[d + 2] (the last bucket's count is not needed).
    starts.fill(0);
    for &(point, _) in pairs {
        if let Some(count) = starts.get_mut(digit(point) + 2) {
            *count += 1;
        }
    }
    starts[0] = base;
    starts[1] = base;
    for i in 2..starts.len() {
        starts[i] += starts[i - 1];
    }
    for &(point, owner) in pairs {
        let cursor = &mut starts[digit(point) + 1];
        let slot = (*cursor - base) as usize;
        points[slot] = point;
        owners[slot] = owner;
        *cursor += 1;
    }
}

/// Stable sort of one bucket by point, moving each owner with its point.
fn sort_bucket(points: &mut [u32], owners: &mut [u32]) {
    if points.len() > INSERTION_LIMIT {
        let mut pairs: Vec<(u32, u32)> =
            points.iter().copied().zip(owners.iter().copied()).collect();
        pairs.sort_by_key(|&(point, _)| point);
        for (i, (point, owner)) in pairs.into_iter().enumerate() {
            points[i] = point;
            owners[i] = owner;
        }
        return;
    }
    for i in 1..points.len() {
        let (point, owner) = (points[i], owners[i]);
        let mut j = i;
        // Strictly greater: an equal point generated earlier stays first.
        while j > 0 && points[j - 1] > point {
            points[j] = points[j - 1];
            owners[j] = owners[j - 1];
            j -= 1;
        }
        points[j] = point;
        owners[j] = owner;
    }
}

/// The bucket start table of already sorted points (see [`bucket_sort`]).
fn bucket_starts(points: &[u32], bits: u32) -> Vec<u32> {
    let shift = 32 - bits;
    let mut starts = vec![0u32; (1usize << bits) + 1];
    for &point in points {
        starts[(point >> shift) as usize + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    starts
}

/// Index size: one bucket per 2 to 4 points, between 2^1 and 2^20 buckets.
fn index_bits(points: usize) -> u32 {
    let wanted = (usize::BITS - points.max(1).leading_zeros()).saturating_sub(2);
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
                assert_eq!(c.locate_in(h, c.points(), |&p| p), c.locate(h));
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
    fn bucket_sort_is_stable_and_equals_the_comparison_sort() {
        let mut seed = 3u64;
        for size in [0usize, 1, 511, 512, 513, 5000, 100_000] {
            // Few distinct values, so many ties whose order must be kept.
            let pairs: Vec<(u32, u32)> = (0..size)
                .map(|i| ((lcg(&mut seed) % 1000).wrapping_mul(4_294_967), i as u32))
                .collect();
            let mut expected = pairs.clone();
            expected.sort_by_key(|&(p, _)| p);
            let bits = index_bits(size);
            let (points, owners, starts) = bucket_sort(&pairs, bits);
            let sorted: Vec<(u32, u32)> = points.into_iter().zip(owners).collect();
            assert_eq!(sorted, expected, "size {size}");
            let sorted_points: Vec<u32> = sorted.iter().map(|&(p, _)| p).collect();
            assert_eq!(starts, bucket_starts(&sorted_points, bits), "size {size}");
        }
    }

    #[test]
    fn empty_continuum_has_no_answer() {
        let c = Continuum::new(vec![], TiePolicy::FirstWins);
        assert_eq!(c.locate(123), None);
    }
}
