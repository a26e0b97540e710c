//! The round trip every fuzz input goes through, shared by the cargo-fuzz
//! target `fuzz/fuzz_targets/round_trip.rs` and the bounded
//! stable-toolchain run (`setcodec.rs`).

use std::collections::BTreeSet;

use ketama_core::setcodec::{DecodeOptions, Format, MemberSet, Op, decode, encode};

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
