//! Detection, strict and salvage decoding, and the replay/counting engines.

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
fn build(
    value: &[u8],
    format: Option<Format>,
    records: Vec<RawRecord>,
    sealed: bool,
) -> DecodedSet {
    let removals = records.iter().filter(|r| r.op == Op::Remove).count();
    let total = records.len();
    let member = |span: Span| &value[span.start as usize..(span.start + span.len) as usize];
    let counting = format.is_some_and(Format::counts);
    let already_canonical = removals == 0
        && records
            .windows(2)
            .all(|w| member(w[0].span) < member(w[1].span));
    let spans: Vec<Span> = if already_canonical {
        records.into_iter().map(|r| r.span).collect()
    } else {
        // Group equal members: after the stable sort, the records of one
        // member are adjacent and in value order, so the last one is the
        // last write. Records with different sort keys are different
        // members; equal keys are told apart by their bytes.
        let sorted = sort_records(value, &records);
        let same = |a: (u64, u32), b: (u64, u32)| {
            a.0 == b.0 && member(records[a.1 as usize].span) == member(records[b.1 as usize].span)
        };
        let mut live = Vec::new();
        let mut group = 0;
        while group < sorted.len() {
            let mut end = group + 1;
            while end < sorted.len() && same(sorted[group], sorted[end]) {
                end += 1;
            }
            let present = if counting {
                let adds = sorted[group..end]
                    .iter()
                    .filter(|&&(_, i)| records[i as usize].op == Op::Add)
                    .count();
                adds > end - group - adds
            } else {
                records[sorted[end - 1].1 as usize].op == Op::Add
            };
            if present {
                live.push(records[sorted[group].1 as usize].span);
            }
            group = end;
        }
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

/// Below this many records a plain comparison sort is as fast as keying.
const SMALL_SORT: usize = 64;

/// Sorts the records stably by member bytes and returns them as
/// `(key, record index)` pairs in sorted order: the records of one member
/// end up adjacent and in value order. The key is a prefix of the member's
/// order: records with different keys have different members, ordered as
/// their keys; records with equal keys are ordered by their bytes.
///
/// The key packs the bits that vary between members in the 16 bytes that
/// follow the prefix common to every member (see [`KeyFields`]), and an
/// LSD radix sort orders the records by it in `ceil(bits / 11)` passes: 3
/// for members that differ only in 8 decimal digits, instead of the
/// `n log n` byte comparisons of a comparison sort. Runs of equal keys
/// (repeated members, or members alike beyond the key) are then sorted
/// by their bytes.
fn sort_records(value: &[u8], records: &[RawRecord]) -> Vec<(u64, u32)> {
    let member = |span: Span| &value[span.start as usize..(span.start + span.len) as usize];
    let by_member = |a: &(u64, u32), b: &(u64, u32)| {
        member(records[a.1 as usize].span).cmp(member(records[b.1 as usize].span))
    };
    let mut keyed: Vec<(u64, u32)> = (0..records.len() as u32).map(|i| (0, i)).collect();
    if records.len() < SMALL_SORT {
        keyed.sort_by(by_member);
        return keyed;
    }
    let first = member(records[0].span);
    let common = records.iter().fold(first.len(), |common, r| {
        let m = member(r.span);
        common.min(
            first[..common]
                .iter()
                .zip(m)
                .take_while(|(a, b)| a == b)
                .count(),
        )
    });
    let head = |span: Span| head16(value, span, common);
    let first_head = head(records[0].span);
    let varying = records
        .iter()
        .fold(0, |varying, r| varying | (head(r.span) ^ first_head));
    let fields = KeyFields::new(varying);
    for (entry, record) in keyed.iter_mut().zip(records) {
        entry.0 = fields.pack(head(record.span));
    }
    radix_sort(&mut keyed, fields.bits);
    let mut run = 0;
    while run < keyed.len() {
        let mut end = run + 1;
        while end < keyed.len() && keyed[end].0 == keyed[run].0 {
            end += 1;
        }
        if end - run > 1 {
            // Stable: equal members keep their value order.
            keyed[run..end].sort_by(by_member);
        }
        run = end;
    }
    keyed
}

/// The 16 bytes of the member at `span` that follow its first `skip`
/// bytes, big-endian and zero-padded. Zero padding keeps the order: a
/// member that ended sorts no later than any longer member alike so far.
fn head16(value: &[u8], span: Span, skip: usize) -> u128 {
    let start = span.start as usize + skip;
    let len = (span.len as usize - skip).min(16);
    let mut bytes = [0u8; 16];
    bytes[..len].copy_from_slice(&value[start..start + len]);
    u128::from_be_bytes(bytes)
}

/// Where the varying bits of the 16-byte heads lie: for each byte, from
/// the most significant, the span from its lowest to its highest varying
/// bit. Bits outside the spans are equal in every head, so concatenating
/// the spans keeps the heads' order; spans are taken while they fit in a
/// `u64`, and the bits left out only make more keys equal.
struct KeyFields {
    /// `(shift, width)` of each span, most significant first.
    fields: Vec<(u32, u32)>,
    /// Total width of the spans.
    bits: u32,
}

impl KeyFields {
    fn new(varying: u128) -> Self {
        let mut fields = Vec::new();
        let mut bits = 0;
        for byte in (0..16).rev() {
            let mask = (varying >> (8 * byte)) as u8;
            if mask == 0 {
                continue;
            }
            let low = mask.trailing_zeros();
            let width = 8 - mask.leading_zeros() - low;
            if bits + width > 64 {
                break;
            }
            fields.push((8 * byte + low, width));
            bits += width;
        }
        KeyFields { fields, bits }
    }

    /// The concatenated spans of `head`.
    fn pack(&self, head: u128) -> u64 {
        self.fields.iter().fold(0, |key, &(shift, width)| {
            (key << width) | ((head >> shift) as u64 & ((1 << width) - 1))
        })
    }
}

/// Bits per radix digit: 2,048 counters fit the L1 cache.
const DIGIT_BITS: u32 = 11;

/// Stable LSD radix sort of `(key, index)` pairs by the low `bits` bits of
/// the key.
fn radix_sort(entries: &mut Vec<(u64, u32)>, bits: u32) {
    let passes = bits.div_ceil(DIGIT_BITS);
    let mut counts = vec![[0u32; 1 << DIGIT_BITS]; passes as usize];
    let digit = |key: u64, pass: u32| (key >> (pass * DIGIT_BITS)) as usize & ((1 << DIGIT_BITS) - 1);
    for &(key, _) in entries.iter() {
        for (pass, count) in counts.iter_mut().enumerate() {
            count[digit(key, pass as u32)] += 1;
        }
    }
    let mut scratch = vec![(0, 0); entries.len()];
    for (pass, count) in counts.iter_mut().enumerate() {
        if count.contains(&(entries.len() as u32)) {
            continue; // every key has the same digit: nothing moves
        }
        let mut next = 0;
        for slot in count.iter_mut() {
            (*slot, next) = (next, next + *slot);
        }
        for &entry in entries.iter() {
            let slot = &mut count[digit(entry.0, pass as u32)];
            scratch[*slot as usize] = entry;
            *slot += 1;
        }
        std::mem::swap(entries, &mut scratch);
    }
}
