//! Redis set queries and algebra on decoded sets (`redis/src/t_set.c`
//! semantics; a missing key is an empty set).
//!
//! Members are sorted, so union and difference are merges and intersection
//! runs smallest-first with galloping (exponential search) once the sizes
//! differ by [`GALLOP_RATIO`] or more, stopping as soon as the running
//! result is empty: O(m·log(n/m)) comparisons for sizes m ≤ n.

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

use super::error::SetError;
use super::members::MemberSet;
use super::{Format, Op, compacted, encode};

/// Size ratio from which intersection and difference gallop instead of merging.
pub const GALLOP_RATIO: usize = 32;

/// Largest |count| accepted by SRANDMEMBER with repetition (a deviation:
/// Redis accepts up to LONG_MAX and runs out of memory instead).
pub const MAX_RANDOM_COUNT: u64 = 1 << 24;

/// SMISMEMBER: one flag per queried member.
pub fn smismember<M: AsRef<[u8]>>(set: &MemberSet, members: &[M]) -> Vec<bool> {
    members.iter().map(|m| set.contains(m.as_ref())).collect()
}

fn require_sets(sets: &[&MemberSet]) -> Result<(), SetError> {
    if sets.is_empty() {
        return Err(SetError::invalid("numkeys should be greater than 0"));
    }
    Ok(())
}

/// SUNION: every member of any input (k-way merge, O(N log k)).
pub fn union(sets: &[&MemberSet]) -> MemberSet {
    match sets {
        [] => MemberSet::new(),
        [only] => (*only).clone(),
        [a, b] => merge_union(a, b),
        _ => {
            let mut out = MemberSet::new();
            let mut heap: BinaryHeap<Reverse<(&[u8], usize, usize)>> = sets
                .iter()
                .enumerate()
                .filter_map(|(s, set)| set.get(0).map(|m| Reverse((m, s, 0))))
                .collect();
            while let Some(Reverse((member, s, i))) = heap.pop() {
                if out.last() != Some(member) {
                    out.push_sorted(member);
                }
                if let Some(next) = sets[s].get(i + 1) {
                    heap.push(Reverse((next, s, i + 1)));
                }
            }
            out
        }
    }
}

fn merge_union(a: &MemberSet, b: &MemberSet) -> MemberSet {
    let mut out = MemberSet::new();
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            Ordering::Less => {
                out.push_sorted(x);
                i += 1;
            }
            Ordering::Greater => {
                out.push_sorted(y);
                j += 1;
            }
            Ordering::Equal => {
                out.push_sorted(x);
                i += 1;
                j += 1;
            }
        }
    }
    a.iter()
        .skip(i)
        .chain(b.iter().skip(j))
        .for_each(|m| out.push_sorted(m));
    out
}

/// SINTER: members in every input. Smallest input first, early exit on an
/// empty running result, galloping on skewed sizes.
pub fn inter(sets: &[&MemberSet]) -> Result<MemberSet, SetError> {
    require_sets(sets)?;
    let mut order: Vec<&MemberSet> = sets.to_vec();
    order.sort_by_key(|s| s.len());
    let mut result = order[0].clone();
    for other in &order[1..] {
        if result.is_empty() {
            break;
        }
        result = intersect_pair(&result, other, usize::MAX);
    }
    Ok(result)
}

/// Intersection of two sets, at most `limit` members; gallops in the larger
/// one when the sizes differ by [`GALLOP_RATIO`] or more.
pub fn intersect_pair(a: &MemberSet, b: &MemberSet, limit: usize) -> MemberSet {
    let (small, large) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if small.len().saturating_mul(GALLOP_RATIO) <= large.len() {
        intersect_galloping(small, large, limit)
    } else {
        intersect_linear(small, large, limit)
    }
}

/// Intersection by galloping through `large` for each member of `small`.
pub fn intersect_galloping(small: &MemberSet, large: &MemberSet, limit: usize) -> MemberSet {
    let mut out = MemberSet::new();
    let gap = large.len() / small.len().max(1);
    let mut j = 0;
    for member in small.iter() {
        if out.len() >= limit {
            break;
        }
        j = large.gallop(j, member, gap);
        match large.get(j) {
            None => break,
            Some(found) if found == member => {
                out.push_sorted(member);
                j += 1;
            }
            Some(_) => {}
        }
    }
    out
}

/// Intersection by a linear merge (the baseline galloping is compared with).
pub fn intersect_linear(a: &MemberSet, b: &MemberSet, limit: usize) -> MemberSet {
    let mut out = MemberSet::new();
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        if out.len() >= limit {
            break;
        }
        match x.cmp(y) {
            Ordering::Less => i += 1,
            Ordering::Greater => j += 1,
            Ordering::Equal => {
                out.push_sorted(x);
                i += 1;
                j += 1;
            }
        }
    }
    out
}

/// SINTERCARD with LIMIT: the size of the intersection, counting stops at
/// `limit` (0 means unlimited; a negative limit is an error, as in Redis).
pub fn intercard(sets: &[&MemberSet], limit: i64) -> Result<usize, SetError> {
    require_sets(sets)?;
    if limit < 0 {
        return Err(SetError::invalid("LIMIT can't be negative"));
    }
    let cap = if limit == 0 {
        usize::MAX
    } else {
        usize::try_from(limit).unwrap_or(usize::MAX)
    };
    let mut order: Vec<&MemberSet> = sets.to_vec();
    order.sort_by_key(|s| s.len());
    if order.len() == 1 {
        return Ok(order[0].len().min(cap));
    }
    // Narrow with every input but the last, then count (up to the limit)
    // against the last, so the limit can stop the final pass early.
    let mut result = order[0].clone();
    for other in &order[1..order.len() - 1] {
        if result.is_empty() {
            return Ok(0);
        }
        result = intersect_pair(&result, other, usize::MAX);
    }
    Ok(intersect_pair(&result, order[order.len() - 1], cap).len())
}

/// SDIFF: members of the first input in none of the others (a first key
/// repeated later gives the empty set).
pub fn diff(sets: &[&MemberSet]) -> Result<MemberSet, SetError> {
    require_sets(sets)?;
    let mut result = sets[0].clone();
    for other in &sets[1..] {
        if result.is_empty() {
            break;
        }
        result = diff_pair(&result, other);
    }
    Ok(result)
}

fn diff_pair(a: &MemberSet, b: &MemberSet) -> MemberSet {
    let mut out = MemberSet::new();
    let gallop = a.len().saturating_mul(GALLOP_RATIO) <= b.len();
    let gap = b.len() / a.len().max(1);
    let mut j = 0;
    for member in a.iter() {
        j = if gallop {
            b.gallop(j, member, gap)
        } else {
            while b.get(j).is_some_and(|y| y < member) {
                j += 1;
            }
            j
        };
        if b.get(j) != Some(member) {
            out.push_sorted(member);
        }
    }
    out
}

/// The value a *STORE command writes for `result`: its cardinality and
/// canonical encoding. An empty result is the empty value (Redis deletes
/// the destination; write the empty value under CAS, or delete it).
pub fn store(
    result: &MemberSet,
    format: Format,
    max_member_len: usize,
) -> Result<(usize, Vec<u8>), SetError> {
    Ok((result.len(), compacted(result, format, max_member_len)?))
}

/// A small deterministic generator (SplitMix64); callers pass the seed.
struct SplitMix64(u64);

impl SplitMix64 {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0), by rejection of the biased tail.
    fn below(&mut self, n: usize) -> usize {
        let n = n as u64;
        let zone = u64::MAX - (u64::MAX % n);
        loop {
            let x = self.next();
            if x < zone {
                return (x % n) as usize;
            }
        }
    }
}

/// `count` distinct indices of `0..n` in random order (partial Fisher-Yates).
fn distinct_indices(n: usize, count: usize, rng: &mut SplitMix64) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    let count = count.min(n);
    for i in 0..count {
        let pick = i + rng.below(n - i);
        all.swap(i, pick);
    }
    all.truncate(count);
    all
}

/// SRANDMEMBER: indices (into `set`'s sorted members) chosen at random
/// from `seed`. Without a count: one member, or none for an empty set.
/// `count >= 0`: that many distinct members, at most the set's size.
/// `count < 0`: exactly |count| members, repeats allowed (empty for an
/// empty set); |count| is capped at [`MAX_RANDOM_COUNT`].
pub fn srandmember(set: &MemberSet, count: Option<i64>, seed: u64) -> Result<Vec<usize>, SetError> {
    let mut rng = SplitMix64(seed);
    let n = set.len();
    match count {
        None => Ok(if n == 0 {
            Vec::new()
        } else {
            vec![rng.below(n)]
        }),
        Some(c) if c >= 0 => Ok(distinct_indices(
            n,
            usize::try_from(c).unwrap_or(usize::MAX),
            &mut rng,
        )),
        Some(c) => {
            if c == i64::MIN {
                return Err(SetError::invalid("value is out of range"));
            }
            let wanted = c.unsigned_abs();
            if n == 0 {
                return Ok(Vec::new());
            }
            if wanted > MAX_RANDOM_COUNT {
                return Err(SetError::invalid(format!(
                    "count {c} exceeds the limit of -{MAX_RANDOM_COUNT}"
                )));
            }
            Ok((0..wanted).map(|_| rng.below(n)).collect())
        }
    }
}

/// SPOP's choice: indices of the members to pop. Without a count: one
/// member (none for an empty set). A negative count is an error ("value is
/// out of range, must be positive"); 0 pops nothing; a count at or above
/// the size pops everything. Remove them with [`remove_payload`], appended
/// under the CAS of the read that was decoded.
pub fn spop(set: &MemberSet, count: Option<i64>, seed: u64) -> Result<Vec<usize>, SetError> {
    match count {
        Some(c) if c < 0 => Err(SetError::invalid("value is out of range, must be positive")),
        _ => srandmember(set, count, seed),
    }
}

/// The payload removing the members at `indices` of `set` (SPOP's write).
pub fn remove_payload(
    set: &MemberSet,
    indices: &[usize],
    format: Format,
    max_member_len: usize,
) -> Result<Vec<u8>, SetError> {
    let members = indices
        .iter()
        .map(|&i| {
            set.get(i)
                .ok_or_else(|| SetError::invalid(format!("member index {i} is out of range")))
        })
        .collect::<Result<Vec<&[u8]>, SetError>>()?;
    encode(Op::Remove, &members, format, max_member_len)
}

/// What SMOVE does to two memcached keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Smove {
    /// SMOVE's reply: whether the member was (or, for src == dst, is) in the source.
    pub moved: bool,
    /// Append to the destination first (an add record), or `None` when nothing moves.
    pub add_to_destination: Option<Vec<u8>>,
    /// Then append to the source (a remove record, under the source's CAS).
    /// A crash between the two leaves a duplicate, never a lost member.
    pub remove_from_source: Option<Vec<u8>>,
}

/// SMOVE: `same_key` is true when source and destination are the same key
/// (a no-op that replies whether the member is present).
pub fn smove(
    source: &MemberSet,
    member: &[u8],
    same_key: bool,
    format: Format,
    max_member_len: usize,
) -> Result<Smove, SetError> {
    let present = source.contains(member);
    if same_key || !present {
        return Ok(Smove {
            moved: present,
            add_to_destination: None,
            remove_from_source: None,
        });
    }
    Ok(Smove {
        moved: true,
        add_to_destination: Some(encode(Op::Add, &[member], format, max_member_len)?),
        remove_from_source: Some(encode(Op::Remove, &[member], format, max_member_len)?),
    })
}
