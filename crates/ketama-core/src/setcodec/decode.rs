//! Detection, strict and salvage decoding, and the replay/counting engines.

use std::cmp::Ordering;

use super::error::{SetError, SetErrorKind};
use super::flip::{self, Prefix};
use super::members::{MemberSet, Span};
use super::{Format, Op, RawRecord, binary, membase, text};

/// Default maximum member length: 250 bytes, so every member is also a
/// legal memcached key.
pub const DEFAULT_MAX_MEMBER_LEN: usize = 250;

/// How to decode a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// The format to read; `None` detects T1 or B1 from the bytes.
    pub format: Option<Format>,
    /// Longest member accepted (default [`DEFAULT_MAX_MEMBER_LEN`]).
    pub max_member_len: usize,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            format: None,
            max_member_len: DEFAULT_MAX_MEMBER_LEN,
        }
    }
}

impl DecodeOptions {
    /// Options reading `format` (or detecting, for `None`).
    pub fn format(format: Option<Format>) -> Self {
        DecodeOptions {
            format,
            ..Default::default()
        }
    }
}

/// Counters of a decoded value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SetStats {
    /// Records (tokens, list entries) in the value.
    pub records: usize,
    /// Remove records (the original post's "dirtiness"), counting removals
    /// of absent members too.
    pub removals: usize,
    /// `records - live members`: every record compaction would delete.
    pub redundant: usize,
    /// Size of the value in bytes.
    pub value_len: usize,
    /// The format read; `None` for an empty value under detection.
    pub format: Option<Format>,
    /// The value starts with the `^` seal: a retired list of a flipped
    /// pair (see [`super::flip`]); its records still count.
    pub sealed: bool,
}

/// A decoded value: the live members (sorted, unique) and the counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedSet {
    /// The live members.
    pub members: MemberSet,
    /// The counters.
    pub stats: SetStats,
}

impl DecodedSet {
    /// An empty set (a missing key).
    pub fn empty() -> Self {
        DecodedSet {
            members: MemberSet::new(),
            stats: SetStats::default(),
        }
    }
}

/// The result of a salvage decode: the set of the valid prefix and, when
/// the value did not decode whole, the error that stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Salvaged {
    /// The set replayed from every record before the error.
    pub set: DecodedSet,
    /// Why decoding stopped early, if it did.
    pub error: Option<SetError>,
}

/// Detects the encoding of a stored value: `Ok(None)` for an empty or
/// all-separator value, `T1` when the first non-separator byte is `+` or
/// `-`, `B1` when the first byte is in 0xA0-0xBF; anything else is
/// `UnknownEncoding` at the offset of the first byte that decided it.
pub fn detect(value: &[u8]) -> Result<Option<Format>, SetError> {
    if let Some(&first) = value.first()
        && (0xA0..=0xBF).contains(&first)
    {
        return Ok(Some(Format::B1));
    }
    match value.iter().position(|&b| !text::is_separator(b)) {
        None => Ok(None),
        Some(at) if value[at] == b'+' || value[at] == b'-' => Ok(Some(Format::T1)),
        Some(at) => Err(SetError::new(
            SetErrorKind::UnknownEncoding,
            at,
            0,
            format!(
                "byte 0x{:02x} starts neither a T1 nor a B1 value",
                value[at]
            ),
        )),
    }
}

/// Decodes a value strictly: any malformed byte is an error naming its kind,
/// byte offset and record index. Linear in the value plus a sort of the
/// records; never allocates more than a constant times the value's size.
pub fn decode(value: &[u8], options: &DecodeOptions) -> Result<DecodedSet, SetError> {
    let (format, records, error, prefix) = parse(value, options)?;
    match error {
        Some(error) => Err(error),
        None => Ok(build(value, format, records, prefix.sealed)),
    }
}

/// Decodes as much as is valid: the set replayed from the records before
/// the first error, plus that error. For repair tools; never compact what a
/// salvage returns automatically, it would erase the unreadable tail.
pub fn decode_salvage(value: &[u8], options: &DecodeOptions) -> Salvaged {
    match parse(value, options) {
        Ok((format, records, error, prefix)) => Salvaged {
            set: build(value, format, records, prefix.sealed),
            error,
        },
        Err(error) => Salvaged {
            set: DecodedSet::empty(),
            error: Some(error),
        },
    }
}

type Parsed = (Option<Format>, Vec<RawRecord>, Option<SetError>, Prefix);

/// Splits a value into records; a detection failure is `Err`, a record
/// failure is returned beside the valid prefix. A leading seal (`^`) and,
/// for T1/B1, a flip copy header (`=gen:len `) are read first; record
/// spans and error offsets count from the start of the whole value.
fn parse(value: &[u8], options: &DecodeOptions) -> Result<Parsed, SetError> {
    if u32::try_from(value.len()).is_err() {
        return Err(SetError::new(
            SetErrorKind::ValueTooLarge,
            u32::MAX as usize,
            0,
            "values of 4 GiB or more are not supported",
        ));
    }
    let prefix = match options.format {
        Some(format) if !format.writable() => {
            let sealed = value.iter().take_while(|&&b| b == flip::SEAL).count();
            Prefix {
                sealed: sealed > 0,
                header: None,
                body_start: sealed,
                records_start: sealed,
            }
        }
        _ => flip::parse_prefix(value)?,
    };
    let start = prefix.records_start;
    let body = &value[start..];
    let shift = |mut error: SetError| {
        error.offset += start;
        error
    };
    let format = match options.format {
        Some(format) => Some(format),
        None => detect(body).map_err(shift)?,
    };
    let mut records = Vec::new();
    let max = options.max_member_len;
    let result = match format {
        None => Ok(()),
        Some(Format::T1) => text::parse(body, max, &mut records),
        Some(Format::B1) => binary::parse(body, max, &mut records),
        Some(Format::MembaseComma) => membase::parse_comma(body, max, &mut records),
        Some(Format::MembaseTombstone) => membase::parse_tombstone(body, max, &mut records),
        Some(Format::MembasePlusMinus) => membase::parse_plus_minus(body, max, &mut records),
    };
    if start > 0 {
        for record in &mut records {
            record.span.start += start as u32;
        }
    }
    Ok((format, records, result.err().map(shift), prefix))
}

/// One record: its op, its member, and the member's byte offset.
pub(crate) type Record<'a> = (Op, &'a [u8], usize);

/// Every record of a value in order, with the value's seal and copy
/// header; any error fails.
pub(crate) fn parse_records<'a>(
    value: &'a [u8],
    options: &DecodeOptions,
) -> Result<(Prefix, Vec<Record<'a>>), SetError> {
    let (_, records, error, prefix) = parse(value, options)?;
    if let Some(error) = error {
        return Err(error);
    }
    let records = records
        .into_iter()
        .map(|r| {
            let start = r.span.start as usize;
            (r.op, &value[start..start + r.span.len as usize], start)
        })
        .collect();
    Ok((prefix, records))
}

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
fn build(
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

#[cfg(test)]
mod tests {
    //! The replay engine against a plain `BTreeMap` replay, on random
    //! values built to stress the keyed sort: members sharing long
    //! prefixes, members equal in their first 8 bytes, prefixes of one
    //! another, empty members (B1), zero bytes, repeated members and
    //! removals of absent members, in both encodings and at sizes below
    //! and above the comparison-sort cutoff.

    use std::collections::BTreeMap;

    use super::*;
    use crate::setcodec::{compacted, encode};

    /// A 64-bit linear congruential generator (Knuth's MMIX constants).
    struct Lcg(u64);

    impl Lcg {
        fn below(&mut self, n: usize) -> usize {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            ((self.0 >> 33) % n.max(1) as u64) as usize
        }
    }

    /// Prefixes of members: none, 8 or 9 bytes, 20 bytes, 0xFF bytes.
    const PREFIXES: [&[u8]; 5] = [
        b"",
        b"user-000",
        b"user-0001",
        b"https://example.com/",
        b"\xff\xff\xff\xff\xff\xff\xff\xff",
    ];

    /// A member: `prefix` (or a random one of [`PREFIXES`]) and a suffix
    /// of fewer than `suffix` bytes of `alphabet` (digits, letters, or any
    /// byte for B1).
    fn member(
        rng: &mut Lcg,
        format: Format,
        prefix: Option<&[u8]>,
        suffix: usize,
        alphabet: &[u8],
    ) -> Vec<u8> {
        let mut m = prefix
            .unwrap_or(PREFIXES[rng.below(PREFIXES.len())])
            .to_vec();
        for _ in 0..rng.below(suffix) {
            m.push(alphabet[rng.below(alphabet.len())]);
        }
        if format == Format::T1 && m.is_empty() {
            m.push(alphabet[rng.below(alphabet.len())]);
        }
        m
    }

    /// A random value of `records` records drawn from a pool of members
    /// (so members repeat), about a third of them removals.
    fn value(rng: &mut Lcg, format: Format, records: usize) -> Vec<u8> {
        let alphabets: [&[u8]; 4] = [
            b"0123456789",
            b"abcdefghijklmnopqrstuvwxyz",
            b"!0Az~\x80\xfe\xff",
            &[0, 1, b'a', 0x7f, 0x80, 0xff],
        ];
        let alphabet = loop {
            let a = alphabets[rng.below(alphabets.len())];
            if format == Format::B1 || a[0] != 0 {
                break a;
            }
        };
        // One prefix for every member (keys after it may be exact), or a
        // prefix per member.
        let prefix = (rng.below(2) == 0).then(|| PREFIXES[rng.below(PREFIXES.len())]);
        let suffix = [4, 9, 13][rng.below(3)];
        let pool: Vec<Vec<u8>> = (0..1 + rng.below(records + 1))
            .map(|_| member(rng, format, prefix, suffix, alphabet))
            .collect();
        // Half the values start compacted: a sorted set, then appends.
        let mut out = Vec::new();
        if rng.below(2) == 0 {
            let start = MemberSet::from_members(pool.iter().filter(|_| rng.below(2) == 0));
            out = compacted(&start, format, 250).unwrap();
        }
        for _ in 0..records {
            let op = if rng.below(3) == 0 {
                Op::Remove
            } else {
                Op::Add
            };
            let m = &pool[rng.below(pool.len())];
            out.extend(encode(op, &[m], format, 250).unwrap());
        }
        out
    }

    /// The reference: replay the records into a map, last record wins.
    fn reference(value: &[u8], format: Format) -> (Vec<Vec<u8>>, SetStats) {
        let options = DecodeOptions::format(Some(format));
        let (_, records) = parse_records(value, &options).unwrap();
        let mut live = BTreeMap::new();
        for &(op, m, _) in &records {
            live.insert(m.to_vec(), op == Op::Add);
        }
        let members: Vec<Vec<u8>> = live.into_iter().filter(|e| e.1).map(|e| e.0).collect();
        let stats = SetStats {
            records: records.len(),
            removals: records.iter().filter(|r| r.0 == Op::Remove).count(),
            redundant: records.len() - members.len(),
            value_len: value.len(),
            format: (!records.is_empty()).then_some(format),
            sealed: false,
        };
        (members, stats)
    }

    #[test]
    fn setcodec_replay_matches_a_btreemap_replay() {
        let mut rng = Lcg(0x5eed);
        for round in 0..600 {
            let format = [Format::T1, Format::B1][round % 2];
            let records = [0, 1, 5, 63, 64, 65, 200, 1500][rng.below(8)];
            let value = value(&mut rng, format, records);
            let (members, stats) = reference(&value, format);
            let set = decode(&value, &DecodeOptions::default()).unwrap();
            assert_eq!(set.members.to_vec(), members, "round {round}: {value:?}");
            assert_eq!(set.stats, stats, "round {round}");
            let salvaged = decode_salvage(&value, &DecodeOptions::default());
            assert_eq!(salvaged.set, set);
            assert!(salvaged.error.is_none());
        }
    }

    #[test]
    fn setcodec_salvage_of_a_cut_value_replays_its_valid_prefix() {
        let mut rng = Lcg(7);
        for round in 0..200 {
            let format = [Format::T1, Format::B1][round % 2];
            let mut value = value(&mut rng, format, 300);
            // A B1 value cut inside a record, or a T1 value with a bad op.
            let cut = rng.below(value.len());
            if format == Format::B1 {
                value.truncate(cut);
            } else {
                value.insert(cut, b' ');
                value.insert(cut + 1, b'*');
            }
            let options = DecodeOptions::format(Some(format));
            let salvaged = decode_salvage(&value, &options);
            let Some(error) = salvaged.error else {
                continue; // a B1 cut on a record boundary
            };
            assert_eq!(decode(&value, &options), Err(error.clone()));
            let (members, stats) = reference(&value[..error.offset], format);
            assert_eq!(salvaged.set.members.to_vec(), members, "round {round}");
            assert_eq!(salvaged.set.stats.records, stats.records);
            assert_eq!(salvaged.set.stats.removals, stats.removals);
        }
    }

    #[test]
    fn setcodec_members_of_one_length_are_grouped_by_key_alone() {
        // Every member 13 bytes (exact keys of one length): repeats and
        // removals must still group and replay like the reference.
        let mut rng = Lcg(99);
        for format in [Format::T1, Format::B1] {
            let mut value = Vec::new();
            for _ in 0..3000 {
                let member = format!("user-{:08}", rng.below(500));
                let op = if rng.below(4) == 0 {
                    Op::Remove
                } else {
                    Op::Add
                };
                value.extend(encode(op, &[member], format, 250).unwrap());
            }
            let (expected, stats) = reference(&value, format);
            let set = decode(&value, &DecodeOptions::default()).unwrap();
            assert_eq!(set.members.to_vec(), expected);
            assert_eq!(set.stats, stats);
        }
    }

    #[test]
    fn setcodec_keyed_sort_orders_exact_and_inexact_keys() {
        // Equal 8-byte keys after the common prefix that differ later,
        // members that are prefixes of one another and zero bytes that
        // look like padding, each with enough records for the radix path.
        let mut members: Vec<Vec<u8>> = Vec::new();
        for i in 0..100u8 {
            members.push(vec![b'p', i % 7]);
            members.push(vec![b'p', i % 7, 0]);
            members.push([b"p".as_slice(), &[i % 3; 9], &[i]].concat());
            members.push(vec![b'p']);
        }
        let mut value = encode(Op::Add, &members, Format::B1, 250).unwrap();
        value.extend(encode(Op::Remove, &members[..50], Format::B1, 250).unwrap());
        let (expected, stats) = reference(&value, Format::B1);
        let set = decode(&value, &DecodeOptions::default()).unwrap();
        assert_eq!(set.members.to_vec(), expected);
        assert_eq!(set.stats, stats);
    }

    #[test]
    fn setcodec_exact_keys_tell_trailing_zero_bytes_and_ninth_bytes_apart() {
        // All members within 8 bytes (exact keys): `x`, `x\0`, `x\0\0`
        // and the empty member share their keys and differ in length.
        let mut members: Vec<Vec<u8>> = Vec::new();
        for i in 0..100u8 {
            members.push(vec![i % 7; 1 + (i as usize % 3)]);
            members.push(vec![i % 7, 0]);
            members.push(vec![i % 7, 0, 0]);
            members.push(vec![]);
        }
        // Nine bytes after the common prefix `k`: equal keys, different
        // members (the keys are not exact).
        let mut nine: Vec<Vec<u8>> = (0..100u8)
            .map(|i| [b"k".as_slice(), &[b'a' + i % 2; 8], &[i]].concat())
            .collect();
        nine.extend((0..100u8).map(|i| [b"k".as_slice(), &[b'a' + i % 2; 8]].concat()));
        for members in [members, nine] {
            let mut value = encode(Op::Add, &members, Format::B1, 250).unwrap();
            value.extend(encode(Op::Remove, &members[..60], Format::B1, 250).unwrap());
            value.extend(encode(Op::Add, &members[..30], Format::B1, 250).unwrap());
            let (expected, stats) = reference(&value, Format::B1);
            let set = decode(&value, &DecodeOptions::default()).unwrap();
            assert_eq!(set.members.to_vec(), expected);
            assert_eq!(set.stats, stats);
        }
    }
}
