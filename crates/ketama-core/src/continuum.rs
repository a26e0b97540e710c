//! The continuum: sorted points on the 32-bit circle, each owned by a server,
//! and a small bucket index that makes "first point ≥ hash" a table read,
//! an interpolated guess inside the bucket and a short walk from it.

use crate::words::Words;

/// How equal point values from different servers are resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TiePolicy {
    /// Keep every point; among equal values the one generated first (earlier
    /// server in list order) comes first (a stable sort), and the search
    /// decides which of them takes a key.
    FirstWins,
    /// Keep one point per value, the one generated last (an overwrite, as
    /// a map keyed by point does).
    LastWins,
}

/// A sorted continuum with its lookup index. Immutable once built. Its
/// points and owners are the ring's own or pages of a shared image
/// ([`Words`]); they read the same.
#[derive(Debug, Clone)]
pub struct Continuum {
    points: Words,
    owners: Words,
    /// `bucket_start[b]` = index of the first point ≥ `b << shift`;
    /// the last entry is `points.len()`.
    bucket_start: Box<[u32]>,
    shift: u32,
}

/// Fewest and most index bits. The index stays small (at most 2^14
/// buckets, 64 KiB) so that it remains in cache beside the points of a
/// large ring; within a bucket the position is interpolated (hash-made
/// points are spread evenly), so a lookup in a cold ring costs one miss
/// to memory, not two.
const MIN_INDEX_BITS: u32 = 1;
const MAX_INDEX_BITS: u32 = 14;

/// Points read one by one from the interpolated position before the search
/// falls back to bisection (only reached with clustered points).
const LINEAR_STEPS: usize = 8;

impl Continuum {
    /// Builds a continuum from `(point, server index)` pairs given in
    /// generation order. The sort is stable, so generation order decides ties
    /// before `ties` is applied.
    pub fn new(generated: Vec<(u32, u32)>, ties: TiePolicy) -> Self {
        let (mut points, mut owners) = radix_sort(generated);
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
        }
        Continuum::from_sorted(
            Words::owned(points.into_boxed_slice()),
            Words::owned(owners.into_boxed_slice()),
        )
    }

    /// A continuum of points already sorted and their owners (as long as
    /// the points); the index is built here.
    pub(crate) fn from_sorted(points: Words, owners: Words) -> Self {
        debug_assert!(points.is_sorted() && points.len() == owners.len());
        let bits = index_bits(points.len());
        let bucket_start = bucket_starts(&points, bits);
        Continuum {
            points,
            owners,
            bucket_start: bucket_start.into_boxed_slice(),
            shift: 32 - bits,
        }
    }

    /// True when its points and owners are pages of a shared image
    /// ([`crate::ring_cache::shared`]) rather than its own.
    pub fn is_mapped(&self) -> bool {
        self.points.is_mapped()
    }

    /// The bytes it holds: points and owners (its own, or mapped from a
    /// shared image) and the index.
    pub fn heap_bytes(&self) -> usize {
        size_of_val(&*self.points) + size_of_val(&*self.owners) + size_of_val(&*self.bucket_start)
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
    /// `None` for an empty continuum (the search of
    /// [`Search::AtOrAfter`](crate::search::Search::AtOrAfter)).
    #[inline]
    pub fn locate(&self, hash: u32) -> Option<usize> {
        if self.points.is_empty() {
            return None;
        }
        let found = self.first_at_or_after(hash);
        Some(if found == self.points.len() { 0 } else { found })
    }

    /// Index of the first point ≥ `hash`, or [`Self::len`] when every
    /// point is below it (no wrap-around): the bucket, a guess interpolated
    /// inside it and a short walk. The searches of [`crate::search`] are
    /// made of this.
    #[inline]
    pub fn first_at_or_after(&self, hash: u32) -> usize {
        let (start, end, guess) = self.bucket_of(hash);
        // Callers read the owner next: start loading it while the points
        // are searched, so the two cache misses of a cold lookup overlap.
        prefetch(self.owners(), guess);
        search_from(self.points(), start, end, guess, hash, |&p| p)
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
        let (start, end, guess) = self.bucket_of(hash);
        let found = search_from(mirror, start, end, guess, hash, point);
        Some(if found == mirror.len() { 0 } else { found })
    }

    /// Starts loading the point and owner where `hash` probably falls, for
    /// a caller that locates it a little later: batch lookups prefetch a
    /// chunk of keys first, so that their cache misses overlap.
    #[inline]
    pub fn prefetch(&self, hash: u32) {
        if !self.points.is_empty() {
            let (_, _, guess) = self.bucket_of(hash);
            prefetch(self.points(), guess);
            prefetch(self.owners(), guess);
        }
    }

    /// The bucket of `hash` (`start..end` in the points) and the position
    /// in it where `hash` would fall if the bucket's points were evenly
    /// spread (`start` for an empty bucket).
    #[inline(always)]
    fn bucket_of(&self, hash: u32) -> (usize, usize, usize) {
        let bucket = (hash >> self.shift) as usize;
        let start = self.bucket_start[bucket] as usize;
        let end = self.bucket_start[bucket + 1] as usize;
        let offset = u64::from(hash) & ((1u64 << self.shift) - 1);
        let guess = start + ((offset * (end - start) as u64) >> self.shift) as usize;
        (start, end, guess)
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

/// The first index in `start..end` whose point (read from `items` by
/// `point`) is ≥ `hash`, or `end`; `items[start..end]` is sorted and
/// `guess` lies in `start..end` unless the range is empty. Walks from
/// `guess` for up to [`LINEAR_STEPS`] points, then bisects the rest.
#[inline(always)]
fn search_from<T>(
    items: &[T],
    start: usize,
    end: usize,
    guess: usize,
    hash: u32,
    point: impl Fn(&T) -> u32,
) -> usize {
    if start >= end {
        return start;
    }
    if point(&items[guess]) < hash {
        // The answer is after `guess`.
        let limit = end.min(guess + 1 + LINEAR_STEPS);
        let mut i = guess + 1;
        while i < limit {
            if point(&items[i]) >= hash {
                return i;
            }
            i += 1;
        }
        i + items[i..end].partition_point(|r| point(r) < hash)
    } else {
        // `items[guess] ≥ hash`: the answer is `guess` or before it.
        let limit = start.max(guess.saturating_sub(LINEAR_STEPS));
        let mut i = guess;
        while i > limit {
            if point(&items[i - 1]) < hash {
                return i;
            }
            i -= 1;
        }
        start + items[start..i].partition_point(|r| point(r) < hash)
    }
}

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

/// Up to this many pairs (2 MiB of them, 1,600 servers of 160 points) one
/// radix sort over the whole array, three passes of 11 bits, is cheapest
/// (measured at 1,000 servers against the split by top bits).
const WHOLE_ARRAY_LIMIT: usize = 1 << 18;
/// Bits of the point distributed by the first pass of [`radix_sort`] for
/// larger arrays: 256 parts, few enough write streams for the caches.
const TOP_BITS: u32 = 8;
/// Parts this small are sorted by insertion.
const SMALL_PART: usize = 32;

/// Stable sort of `(point, owner)` pairs by point, a radix sort (no
/// comparisons, so no mispredicted branches). Up to [`WHOLE_ARRAY_LIMIT`]
/// pairs: least significant digit first over the whole array. Beyond: a
/// first pass distributes the pairs by their top 8 bits straight into the
/// returned points and owners, and each of the 256 parts (small enough to
/// stay in cache) is then sorted on its 24 low bits through a scratch
/// buffer reused from part to part, so no buffer of the ring's size is
/// needed beyond the input and the output.
fn radix_sort(pairs: Vec<(u32, u32)>) -> (Vec<u32>, Vec<u32>) {
    let n = pairs.len();
    let mut points = crate::prefault::zeroed_u32s(n);
    let mut owners = crate::prefault::zeroed_u32s(n);
    if n <= WHOLE_ARRAY_LIMIT {
        let mut pairs = pairs;
        lsd_sort::<2048, 3>(&mut pairs, &mut points, &mut owners);
        return (points, owners);
    }
    let top = |point: u32| (point >> (32 - TOP_BITS)) as usize;
    let mut part_start = [0usize; (1 << TOP_BITS) + 1];
    for &(point, _) in &pairs {
        part_start[top(point) + 1] += 1;
    }
    for p in 1..part_start.len() {
        part_start[p] += part_start[p - 1];
    }
    let mut cursor = part_start;
    for &(point, owner) in &pairs {
        let slot = &mut cursor[top(point)];
        points[*slot] = point;
        owners[*slot] = owner;
        *slot += 1;
    }
    drop(pairs);
    let mut scratch = Vec::new();
    for part in part_start.windows(2) {
        let (points, owners) = (&mut points[part[0]..part[1]], &mut owners[part[0]..part[1]]);
        if points.len() <= SMALL_PART {
            insertion_sort(points, owners);
        } else {
            scratch.clear();
            scratch.extend(points.iter().copied().zip(owners.iter().copied()));
            // The top bits are equal within a part: 3 × 8 bits sort the rest.
            lsd_sort::<256, 3>(&mut scratch, points, owners);
        }
    }
    (points, owners)
}

/// Stable least-significant-digit radix sort of `pairs` by the low
/// `PASSES × log2(RADIX)` bits of their points, into `points` and `owners`
/// (as long as `pairs`). The passes go back and forth between `pairs` and
/// the two output arrays, so no scratch buffer is needed; `pairs` is
/// overwritten. A digit shared by every point costs no pass.
fn lsd_sort<const RADIX: usize, const PASSES: usize>(
    pairs: &mut [(u32, u32)],
    points: &mut [u32],
    owners: &mut [u32],
) {
    let bits = RADIX.trailing_zeros();
    let digit = |point: u32, pass: usize| ((point >> (pass as u32 * bits)) as usize) & (RADIX - 1);
    let mut offsets = [[0u32; RADIX]; PASSES];
    for &(point, _) in pairs.iter() {
        for (pass, counts) in offsets.iter_mut().enumerate() {
            counts[digit(point, pass)] += 1;
        }
    }
    let passes: Vec<usize> = (0..PASSES)
        .filter(|&pass| !offsets[pass].iter().any(|&c| c as usize == pairs.len()))
        .collect();
    for counts in offsets.iter_mut() {
        let mut sum = 0u32;
        for count in counts.iter_mut() {
            (*count, sum) = (sum, sum + *count);
        }
    }
    let mut in_pairs = true;
    for &pass in &passes {
        let cursor = &mut offsets[pass];
        if in_pairs {
            for &(point, owner) in pairs.iter() {
                let slot = &mut cursor[digit(point, pass)];
                points[*slot as usize] = point;
                owners[*slot as usize] = owner;
                *slot += 1;
            }
        } else {
            for (&point, &owner) in points.iter().zip(owners.iter()) {
                let slot = &mut cursor[digit(point, pass)];
                pairs[*slot as usize] = (point, owner);
                *slot += 1;
            }
        }
        in_pairs = !in_pairs;
    }
    if in_pairs {
        for (i, &(point, owner)) in pairs.iter().enumerate() {
            points[i] = point;
            owners[i] = owner;
        }
    }
}

/// Stable insertion sort by point, moving each owner with its point.
fn insertion_sort(points: &mut [u32], owners: &mut [u32]) {
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

/// The bucket start table of sorted points: `starts[b]` = index of the
/// first point ≥ `b << (32 - bits)`, with `points.len()` appended.
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

/// Index size: one bucket per 2 to 4 points, between 2^1 and 2^14 buckets.
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
        for size in [1usize, 2, 3, 10, 160, 1000, 40_000, 200_000] {
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
    fn radix_sort_is_stable_and_equals_the_comparison_sort() {
        let mut seed = 3u64;
        for size in [0usize, 1, 511, 512, 513, 5000, 100_000] {
            // Few distinct values, so many ties whose order must be kept;
            // then values differing only in one digit, and all equal.
            let spread: Vec<(u32, u32)> = (0..size)
                .map(|i| ((lcg(&mut seed) % 1000).wrapping_mul(4_294_967), i as u32))
                .collect();
            let one_digit: Vec<(u32, u32)> = (0..size)
                .map(|i| (0x5a5a_0000 | ((lcg(&mut seed) % 64) << 11), i as u32))
                .collect();
            let equal: Vec<(u32, u32)> = (0..size).map(|i| (7, i as u32)).collect();
            for pairs in [spread, one_digit, equal] {
                let mut expected = pairs.clone();
                expected.sort_by_key(|&(p, _)| p);
                let (points, owners) = radix_sort(pairs);
                let sorted: Vec<(u32, u32)> = points.into_iter().zip(owners).collect();
                assert_eq!(sorted, expected, "size {size}");
            }
        }
    }

    #[test]
    fn clustered_points_are_found_past_the_linear_steps() {
        // Everything in one bucket, far from where interpolation guesses.
        let mut generated: Vec<(u32, u32)> = (0..1000).map(|i| (i, i % 3)).collect();
        generated.extend((0..1000).map(|i| (u32::MAX - i, 1)));
        generated.extend((0..500).map(|i| (0x8000_0000 + (i & !7), 2)));
        let c = Continuum::new(generated, TiePolicy::FirstWins);
        let mut seed = 11u64;
        let mut probes: Vec<u32> = (0..20_000).map(|_| lcg(&mut seed)).collect();
        for &p in c.points() {
            probes.extend([p, p.wrapping_sub(1), p.wrapping_add(1)]);
        }
        for h in probes {
            assert_eq!(c.locate(h), c.locate_by_binary_search(h), "hash {h}");
        }
    }

    #[test]
    fn empty_continuum_has_no_answer() {
        let c = Continuum::new(vec![], TiePolicy::FirstWins);
        assert_eq!(c.locate(123), None);
    }
}
