//! The checks every fuzz input goes through, shared by the cargo-fuzz
//! targets (fuzz/) and the bounded stable-toolchain run
//! (tests/setcodec_fuzz.rs).

#![allow(dead_code)]

use std::collections::BTreeSet;

use ketama_core::setcodec::{
    DecodeOptions, Format, MemberSet, Op, compacted, decode, decode_salvage, encode,
};

/// Decodes `data[1..]` with the decoder chosen by `data[0]` (0 detect,
/// 1 T1, 2 B1, 3-5 Membase) and checks the invariants: strict and salvage
/// agree, members are sorted and unique and fit in the input, counters
/// add up, errors point inside the input, and a canonical re-encoding
/// decodes to the same set.
pub fn check_decoders(data: &[u8]) {
    let Some((&selector, value)) = data.split_first() else {
        return;
    };
    let format = match selector % 6 {
        0 => None,
        n => Some(Format::ALL[n as usize - 1]),
    };
    let options = DecodeOptions::format(format);
    let strict = decode(value, &options);
    let salvaged = decode_salvage(value, &options);
    let set = &salvaged.set;
    assert!(set.members.member_bytes() <= value.len());
    assert!(
        set.members
            .iter()
            .zip(set.members.iter().skip(1))
            .all(|(a, b)| a < b),
        "sorted and unique"
    );
    assert!(set.stats.removals <= set.stats.records);
    assert_eq!(set.stats.redundant + set.members.len(), set.stats.records);
    match strict {
        Ok(decoded) => {
            assert!(salvaged.error.is_none());
            assert_eq!(&decoded, set);
            for target in [Format::T1, Format::B1] {
                if let Ok(value) = compacted(&decoded.members, target, options.max_member_len) {
                    let again =
                        decode(&value, &DecodeOptions::default()).expect("canonical values decode");
                    assert_eq!(again.members, decoded.members);
                    assert_eq!(again.stats.redundant, 0);
                }
            }
        }
        Err(error) => {
            assert_eq!(Some(&error), salvaged.error.as_ref());
            assert!(
                error.offset <= value.len(),
                "offset {} past the end {}",
                error.offset,
                value.len()
            );
            assert_eq!(error.record, set.stats.records);
        }
    }
}

/// Structure-aware check: `data` is read as ops (bit 0: add/remove, rest:
/// member id); encodes them as two payloads in T1 and B1 and checks
/// decode(a ++ b) against a model replay, and T1/B1 agreement.
pub fn check_round_trip(data: &[u8]) {
    let ops: Vec<(Op, Vec<u8>)> = data
        .chunks(2)
        .map(|c| {
            let op = if c[0] & 1 == 0 { Op::Add } else { Op::Remove };
            let member = format!("m{}", c.get(1).copied().unwrap_or(0) % 32).into_bytes();
            (op, member)
        })
        .collect();
    let split = ops.len() / 2;
    let mut model = BTreeSet::new();
    for (op, member) in &ops {
        if *op == Op::Add {
            model.insert(member.clone());
        } else {
            model.remove(member);
        }
    }
    let expected = MemberSet::from_members(&model);
    let mut results = Vec::new();
    for format in [Format::T1, Format::B1] {
        let payload = |part: &[(Op, Vec<u8>)]| -> Vec<u8> {
            part.iter()
                .flat_map(|(op, m)| encode(*op, &[m], format, 250).expect("valid member"))
                .collect()
        };
        let value = [payload(&ops[..split]), payload(&ops[split..])].concat();
        let decoded = decode(&value, &DecodeOptions::default()).expect("encoder output decodes");
        assert_eq!(decoded.members, expected);
        assert_eq!(decoded.stats.records, ops.len());
        results.push(decoded.members);
    }
    assert_eq!(results[0], results[1]);
}
