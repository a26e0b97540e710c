//! Detection, strict and salvage decoding: a value's prefix and records
//! parsed, then replayed or counted by [`super::replay`].

pub use super::decoded::{DEFAULT_MAX_MEMBER_LEN, DecodeOptions, DecodedSet, Salvaged, SetStats};
use super::error::{SetError, SetErrorKind};
use super::prefix::{self, Prefix};
use super::replay::build;
use super::{Format, Op, RawRecord, binary, membase, text};

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
            let sealed = value.iter().take_while(|&&b| b == prefix::SEAL).count();
            Prefix {
                sealed: sealed > 0,
                header: None,
                body_start: sealed,
                records_start: sealed,
            }
        }
        _ => prefix::parse_prefix(value)?,
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
    use crate::setcodec::members::MemberSet;
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
