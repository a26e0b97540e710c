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
    mut records: Vec<RawRecord>,
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
        // Group equal members with a stable sort, so within a group records
        // stay in value order and the last one is the last write. The sort
        // is adaptive: a compacted (sorted) prefix plus an appended tail
        // costs little more than sorting the tail.
        sort_records(value, &mut records);
        let mut live = Vec::new();
        let mut group = 0;
        while group < records.len() {
            let mut end = group + 1;
            while end < records.len() && member(records[end].span) == member(records[group].span) {
                end += 1;
            }
            let present = if counting {
                let adds = records[group..end]
                    .iter()
                    .filter(|r| r.op == Op::Add)
                    .count();
                adds > end - group - adds
            } else {
                records[end - 1].op == Op::Add
            };
            if present {
                live.push(records[group].span);
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

/// Stable sort of records by member bytes. Each record gets a key: the 8
/// bytes that follow the prefix common to every member (big-endian,
/// zero-padded), so most comparisons are one integer compare; equal keys
/// fall back to comparing the members. Zero padding keeps the order
/// exact: where keys differ, the first differing byte decides, and a
/// member that ended (padding 0) sorts before any longer one unless the
/// longer one has a real 0 there, in which case the keys tie.
fn sort_records(value: &[u8], records: &mut Vec<RawRecord>) {
    let member = |span: Span| &value[span.start as usize..(span.start + span.len) as usize];
    let Some(first) = records.first().map(|r| member(r.span)) else {
        return;
    };
    let common = records.iter().fold(first.len(), |common, r| {
        let m = member(r.span);
        common.min(
            first
                .iter()
                .zip(m)
                .take(common)
                .take_while(|(a, b)| a == b)
                .count(),
        )
    });
    let key = |span: Span| {
        let m = &member(span)[common..];
        let mut bytes = [0u8; 8];
        let n = m.len().min(8);
        bytes[..n].copy_from_slice(&m[..n]);
        u64::from_be_bytes(bytes)
    };
    let mut keyed: Vec<(u64, RawRecord)> = records.iter().map(|r| (key(r.span), *r)).collect();
    keyed.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| member(a.1.span).cmp(member(b.1.span)))
    });
    records.clear();
    records.extend(keyed.into_iter().map(|(_, r)| r));
}
