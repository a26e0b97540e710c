//! The replay and counting engine: records sorted by member (a radix sort
//! on a key squeezed from the bytes members share), grouped, and merged
//! into the compacted prefix a value usually starts with.

use std::cmp::Ordering;

use super::decoded::{DecodedSet, SetStats};
use super::members::{MemberSet, Span};
use super::{Format, Op, RawRecord};

/// Replays (T1, B1) or counts (Membase lists) the records into a set.
///
/// A value often starts with a compacted part (adds of strictly increasing
/// members, as compaction writes them) followed by appended records: only
/// those are sorted and grouped, then merged into the compacted part, their
/// verdict replacing its add. The merge compares members byte by byte
/// (one comparison per appended member until the compacted part is used
/// up), so it is used only when the compacted part is at least as long as
/// the rest; otherwise (a value written in arrival order has a compacted
/// part of a record or two) the value is sorted whole. Counted formats
/// are sorted whole unless they are compacted.
pub(crate) fn build(
    value: &[u8],
    format: Option<Format>,
    records: Vec<RawRecord>,
    sealed: bool,
) -> DecodedSet {
    let removals = records.iter().filter(|r| r.op == Op::Remove).count();
    let total = records.len();
    let counting = format.is_some_and(Format::counts);
    let member = |span: Span| &value[span.start as usize..(span.start + span.len) as usize];
    let compacted = match records.first() {
        Some(first) if first.op == Op::Add => {
            1 + records
                .windows(2)
                .take_while(|w| w[1].op == Op::Add && member(w[0].span) < member(w[1].span))
                .count()
        }
        _ => 0,
    };
    let spans: Vec<Span> = if compacted == total {
        records.into_iter().map(|r| r.span).collect()
    } else if counting || compacted < total - compacted {
        groups(value, &records, counting)
            .filter_map(|(span, present)| present.then_some(span))
            .collect()
    } else {
        let (prefix, appended) = records.split_at(compacted);
        let mut live = Vec::with_capacity(total);
        let mut next = 0;
        for (span, present) in groups(value, appended, false) {
            let mut order = Ordering::Less;
            while next < prefix.len() {
                order = member(prefix[next].span).cmp(member(span));
                if order != Ordering::Less {
                    break;
                }
                live.push(prefix[next].span);
                next += 1;
            }
            if next < prefix.len() && order == Ordering::Equal {
                next += 1; // the appended records decide
            }
            if present {
                live.push(span);
            }
        }
        live.extend(prefix[next..].iter().map(|r| r.span));
        live
    };
    let stats = SetStats {
        records: total,
        removals,
        redundant: total - spans.len(),
        value_len: value.len(),
        format,
        sealed,
    };
    DecodedSet {
        members: MemberSet::from_parts(value.to_vec(), spans),
        stats,
    }
}

/// The distinct members of `records` in sorted order, each with its
/// verdict: replayed, whether its last record is an add; counted, whether
/// its adds outnumber its removes.
fn groups<'a>(
    value: &'a [u8],
    records: &'a [RawRecord],
    counting: bool,
) -> impl Iterator<Item = (Span, bool)> + 'a {
    // After the stable sort, the records of one member are adjacent and in
    // value order, so the last one is the last write. Records with
    // different sort keys are different members; equal keys are told
    // apart by their lengths when the keys are exact, else by their bytes.
    let member = |span: Span| &value[span.start as usize..(span.start + span.len) as usize];
    let (sorted, keys) = sort_records(value, records);
    let record = move |entry: u64| records[index(entry)];
    let same = move |a: u64, b: u64| {
        key(a) == key(b)
            && match keys {
                Keys::ExactOneLength => true,
                Keys::Exact => record(a).span.len == record(b).span.len,
                Keys::Prefixes => member(record(a).span) == member(record(b).span),
            }
    };
    let mut group = 0;
    std::iter::from_fn(move || {
        if group == sorted.len() {
            return None;
        }
        let mut end = group + 1;
        while end < sorted.len() && same(sorted[group], sorted[end]) {
            end += 1;
        }
        let present = if counting {
            let adds = sorted[group..end]
                .iter()
                .filter(|&&entry| record(entry).op == Op::Add)
                .count();
            adds > end - group - adds
        } else {
            record(sorted[end - 1]).op == Op::Add
        };
        let span = record(sorted[group]).span;
        group = end;
        Some((span, present))
    })
}

/// Below this many records a plain comparison sort is as fast as keying.
const SMALL_SORT: usize = 64;

/// A sort entry: a key in the high 32 bits, a record index in the low 32.
/// Sorting entries by key keeps the records of equal keys in value order.
fn entry(key: u32, index: usize) -> u64 {
    (u64::from(key) << 32) | index as u64
}

/// The key of an entry.
fn key(entry: u64) -> u32 {
    (entry >> 32) as u32
}

/// The record index of an entry.
fn index(entry: u64) -> usize {
    entry as u32 as usize
}

/// What equal sort keys say about two members (see [`sort_records`]).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// Members with equal keys may still differ: compare their bytes.
    Prefixes,
    /// Every member is its common prefix plus at most the 8 bytes of its
    /// key, none of whose varying bits was cut: members with equal keys
    /// differ at most in their length (`a` and `a\0`), and the shorter
    /// sorts first.
    Exact,
    /// Exact keys, and every member has the same length: equal keys are
    /// equal members.
    ExactOneLength,
}

/// Sorts the records stably by member bytes and returns them as entries
/// (see [`entry`]) in sorted order: the records of one member end up
/// adjacent and in value order. The key is a prefix of the member order:
/// records with different keys have different members, ordered as their
/// keys; records with equal keys are ordered by their bytes. [`Keys`] says
/// how much equal keys tell.
///
/// The key is the 8 bytes that follow the prefix common to every member
/// (big-endian, zero-padded), with the bits that are equal in every key
/// squeezed out (see [`Squeeze`]) and cut to 32 bits, so an LSD radix sort
/// orders the records in at most 3 passes, instead of the `n log n` byte
/// comparisons of a comparison sort. Runs of equal keys (repeated members,
/// or members alike in their key) are then sorted by their bytes.
fn sort_records(value: &[u8], records: &[RawRecord]) -> (Vec<u64>, Keys) {
    let member = |span: Span| &value[span.start as usize..(span.start + span.len) as usize];
    let by_member =
        |a: &u64, b: &u64| member(records[index(*a)].span).cmp(member(records[index(*b)].span));
    if records.len() < SMALL_SORT {
        let mut sorted: Vec<u64> = (0..records.len()).map(|i| entry(0, i)).collect();
        sorted.sort_by(by_member);
        return (sorted, Keys::Prefixes);
    }
    // The first 8 bytes of every member, and the bits in which some differ.
    let (mut min_len, mut max_len) = (usize::MAX, 0);
    let mut keys: Vec<u64> = records
        .iter()
        .map(|r| {
            min_len = min_len.min(r.span.len as usize);
            max_len = max_len.max(r.span.len as usize);
            load8(value, r.span, 0)
        })
        .collect();
    let mut varying = keys.iter().fold(0, |varying, &k| varying | (k ^ keys[0]));
    // The prefix common to every member: the leading bytes equal in every
    // key, then 8 bytes at a time while whole words are equal.
    let mut common = varying.leading_zeros() as usize / 8;
    while common > 0 && common % 8 == 0 && common < min_len {
        let first = load8(value, records[0].span, common);
        let differ = records.iter().fold(0, |differ, r| {
            differ | (load8(value, r.span, common) ^ first)
        });
        common += differ.leading_zeros() as usize / 8;
        if differ != 0 {
            break;
        }
    }
    let common = common.min(min_len);
    if common > 0 {
        // The keys are the 8 bytes after the common prefix.
        let first = load8(value, records[0].span, common);
        varying = 0;
        for (k, r) in keys.iter_mut().zip(records) {
            *k = load8(value, r.span, common);
            varying |= *k ^ first;
        }
    }
    let squeeze = Squeeze::new(varying);
    // The top 32 bits of the squeezed keys (fewer bits only make more
    // keys equal), beside the record index.
    let cut = squeeze.bits().saturating_sub(32);
    for (i, k) in keys.iter_mut().enumerate() {
        *k = entry((squeeze.apply(*k) >> cut) as u32, i);
    }
    let mut sorted = keys;
    radix_sort(&mut sorted, squeeze.bits() - cut);
    let exact = cut == 0 && max_len <= common + 8;
    if exact && min_len == max_len {
        // Equal keys are equal members, already in value order.
        return (sorted, Keys::ExactOneLength);
    }
    let mut run = 0;
    while run < sorted.len() {
        let mut end = run + 1;
        while end < sorted.len() && key(sorted[end]) == key(sorted[run]) {
            end += 1;
        }
        if end - run > 1 {
            // Stable: equal members keep their value order.
            if exact {
                sorted[run..end].sort_by_key(|&e| records[index(e)].span.len);
            } else {
                sorted[run..end].sort_by(by_member);
            }
        }
        run = end;
    }
    (sorted, if exact { Keys::Exact } else { Keys::Prefixes })
}

/// The 8 bytes of the member at `span` that follow its first `skip`
/// bytes (at most its length), big-endian and zero-padded. Zero padding
/// keeps the order: a member that ended sorts no later than any longer
/// member alike so far.
fn load8(value: &[u8], span: Span, skip: usize) -> u64 {
    let start = span.start as usize + skip;
    let len = span.len as usize - skip;
    // One 8-byte load (a variable-length copy would call memcpy), then
    // the bytes past the member are cleared.
    let word = match value.get(start..start + 8) {
        Some(bytes) => u64::from_be_bytes(bytes.try_into().expect("8 bytes")),
        None => {
            let mut bytes = [0u8; 8];
            bytes[..value.len() - start].copy_from_slice(&value[start..]);
            u64::from_be_bytes(bytes)
        }
    };
    if len >= 8 {
        word
    } else {
        word & !(u64::MAX >> (8 * len))
    }
}

/// Squeezes the constant bits out of keys. In every byte, the bits from
/// the lowest to the highest bit that varies in any byte are kept (the
/// same span in every byte, so that a few shifts pack all eight spans);
/// the bits dropped are equal in every key, so the order of the keys is
/// unchanged. Member bytes that are decimal digits keep 4 bits each,
/// letters 5, anything 8.
struct Squeeze {
    /// The lowest bit kept in each byte.
    low: u32,
    /// How many bits each byte keeps (0 when every key is equal).
    width: u32,
}

impl Squeeze {
    /// The squeeze for keys that differ in the bits of `varying`.
    fn new(varying: u64) -> Self {
        let byte_mask = varying.to_be_bytes().iter().fold(0u8, |m, &b| m | b);
        if byte_mask == 0 {
            return Squeeze { low: 0, width: 0 };
        }
        let low = byte_mask.trailing_zeros();
        Squeeze {
            low,
            width: 8 - byte_mask.leading_zeros() - low,
        }
    }

    /// The width of a squeezed key.
    fn bits(&self) -> u32 {
        8 * self.width
    }

    /// The squeezed `key`.
    fn apply(&self, key: u64) -> u64 {
        let width = self.width;
        let lanes = u64::from_ne_bytes([((1u16 << width) - 1) as u8; 8]);
        let x = (key >> self.low) & lanes;
        // Pairs of bytes, then of 16-bit and 32-bit lanes: the upper field
        // goes just above the lower one.
        let x = (((x >> 8) & 0x00FF_00FF_00FF_00FF) << width) | (x & 0x00FF_00FF_00FF_00FF);
        let x = (((x >> 16) & 0x0000_FFFF_0000_FFFF) << (2 * width)) | (x & 0x0000_FFFF_0000_FFFF);
        ((x >> 32) << (4 * width)) | (x & 0xFFFF_FFFF)
    }
}

/// Bits per radix digit: 2,048 counters fit the L1 cache.
const DIGIT_BITS: u32 = 11;

/// Stable LSD radix sort of entries by the low `bits` bits of their key
/// (`bits` at most 32).
fn radix_sort(entries: &mut Vec<u64>, bits: u32) {
    let passes = bits.div_ceil(DIGIT_BITS);
    let mut counts = vec![[0u32; 1 << DIGIT_BITS]; passes as usize];
    let digit = |entry: u64, pass: usize| {
        (key(entry) >> (pass as u32 * DIGIT_BITS)) as usize & ((1 << DIGIT_BITS) - 1)
    };
    for &entry in entries.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[digit(entry, pass)] += 1;
        }
    }
    let mut scratch = vec![0; entries.len()];
    for (pass, count) in counts.iter_mut().enumerate() {
        if count.contains(&(entries.len() as u32)) {
            continue; // every key has the same digit: nothing moves
        }
        let mut next = 0;
        for slot in count.iter_mut() {
            (*slot, next) = (next, next + *slot);
        }
        for &entry in entries.iter() {
            let slot = &mut count[digit(entry, pass)];
            scratch[*slot as usize] = entry;
            *slot += 1;
        }
        std::mem::swap(entries, &mut scratch);
    }
}
