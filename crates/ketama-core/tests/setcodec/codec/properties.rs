//! Property tests against simple models: decoding what was encoded,
//! replaying operations, and the set algebra.

use std::collections::{BTreeMap, BTreeSet};

use ketama_core::setcodec::ops;
use ketama_core::setcodec::{
    DecodeOptions, Format, MemberSet, Op, compacted, decode, decode_salvage, encode,
};
use proptest::prelude::*;

use super::*;

fn t1_member() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(prop_oneof![0x21u8..=0x7E, 0x80u8..=0xFF], 1..12)
}

fn any_member() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(
        prop_oneof![Just(b'a'), Just(b'b'), Just(0u8), Just(b' '), any::<u8>()],
        0..6,
    )
}

fn ops_strategy(
    member: impl Strategy<Value = Vec<u8>>,
) -> impl Strategy<Value = Vec<(bool, Vec<u8>)>> {
    prop::collection::vec((any::<bool>(), member), 0..40)
}

fn payload(ops: &[(bool, Vec<u8>)], format: Format) -> Vec<u8> {
    let mut out = Vec::new();
    for (add, m) in ops {
        out.extend(encode(if *add { Op::Add } else { Op::Remove }, &[m], format, 250).unwrap());
    }
    out
}

fn replay(model: &mut BTreeSet<Vec<u8>>, ops: &[(bool, Vec<u8>)]) {
    for (add, m) in ops {
        if *add {
            model.insert(m.clone());
        } else {
            model.remove(m);
        }
    }
}

fn as_sorted(model: &BTreeSet<Vec<u8>>) -> Vec<Vec<u8>> {
    model.iter().cloned().collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn decode_of_encode_is_identity(members in prop::collection::btree_set(any_member(), 0..30)) {
        let sorted: Vec<Vec<u8>> = members.iter().cloned().collect();
        let value = encode(Op::Add, &sorted, Format::B1, 250).unwrap();
        prop_assert_eq!(decode(&value, &auto()).unwrap().members.to_vec(), sorted.clone());
        let set = MemberSet::from_members(&sorted);
        prop_assert_eq!(compacted(&set, Format::B1, 250).unwrap(), value);
    }

    #[test]
    fn concatenation_is_replay(a in ops_strategy(t1_member()), b in ops_strategy(t1_member()), binary in any::<bool>()) {
        let format = if binary { Format::B1 } else { Format::T1 };
        let (pa, pb) = (payload(&a, format), payload(&b, format));
        let whole = decode(&[pa.as_slice(), &pb].concat(), &auto()).unwrap();
        let mut model = BTreeSet::new();
        replay(&mut model, &a);
        prop_assert_eq!(decode(&pa, &auto()).unwrap().members.to_vec(), as_sorted(&model));
        replay(&mut model, &b);
        prop_assert_eq!(whole.members.to_vec(), as_sorted(&model));
        prop_assert_eq!(whole.stats.records, a.len() + b.len());
        prop_assert_eq!(whole.stats.removals, a.iter().chain(&b).filter(|(add, _)| !add).count());
        prop_assert_eq!(whole.stats.redundant, whole.stats.records - model.len());
        // decode(a ++ b) == replay of b's records over decode(a), via compaction.
        let compacted_a = compacted(&decode(&pa, &auto()).unwrap().members, format, 250).unwrap();
        prop_assert_eq!(decode(&[compacted_a.as_slice(), &pb].concat(), &auto()).unwrap().members, whole.members);
    }

    #[test]
    fn t1_and_b1_agree(a in ops_strategy(t1_member())) {
        let t1 = decode(&payload(&a, Format::T1), &auto()).unwrap();
        let b1 = decode(&payload(&a, Format::B1), &auto()).unwrap();
        prop_assert_eq!(&t1.members, &b1.members);
        prop_assert_eq!((t1.stats.records, t1.stats.removals), (b1.stats.records, b1.stats.removals));
    }

    #[test]
    fn algebra_matches_btreeset(sets in prop::collection::vec(prop::collection::btree_set(0u16..300, 0..120), 1..5), limit in 0i64..20) {
        let built: Vec<MemberSet> = sets.iter().map(|s| MemberSet::from_members(s.iter().map(|n| format!("k{n}")))).collect();
        let refs: Vec<&MemberSet> = built.iter().collect();
        let names = |s: &BTreeSet<u16>| MemberSet::from_members(s.iter().map(|n| format!("k{n}")));
        let union: BTreeSet<u16> = sets.iter().flatten().copied().collect();
        let inter: BTreeSet<u16> = sets[0].iter().filter(|x| sets.iter().all(|s| s.contains(x))).copied().collect();
        let diff: BTreeSet<u16> = sets[0].iter().filter(|x| !sets[1..].iter().any(|s| s.contains(x))).copied().collect();
        prop_assert_eq!(ops::union(&refs), names(&union));
        prop_assert_eq!(ops::inter(&refs).unwrap(), names(&inter));
        prop_assert_eq!(ops::diff(&refs).unwrap(), names(&diff));
        let expected = if limit == 0 { inter.len() } else { inter.len().min(limit as usize) };
        prop_assert_eq!(ops::intercard(&refs, limit).unwrap(), expected);
    }

    #[test]
    fn galloping_equals_linear(small in prop::collection::btree_set(0u32..5000, 0..40), large in prop::collection::btree_set(0u32..5000, 0..2000)) {
        let s = MemberSet::from_members(small.iter().map(|n| n.to_be_bytes()));
        let l = MemberSet::from_members(large.iter().map(|n| n.to_be_bytes()));
        prop_assert_eq!(ops::intersect_galloping(&s, &l, usize::MAX), ops::intersect_linear(&s, &l, usize::MAX));
    }

    #[test]
    fn counting_formats_match_a_counter(entries in prop::collection::vec((any::<bool>(), 0u8..6), 0..40)) {
        let mut value = Vec::new();
        let mut counts: BTreeMap<String, i64> = BTreeMap::new();
        for (add, id) in &entries {
            value.push(if *add { b'+' } else { b'-' });
            value.extend(id.to_string().as_bytes());
            *counts.entry(id.to_string()).or_default() += if *add { 1 } else { -1 };
        }
        let expected = MemberSet::from_members(counts.iter().filter(|(_, c)| **c > 0).map(|(k, _)| k.clone()));
        let got = decode(&value, &DecodeOptions::format(Some(Format::MembasePlusMinus))).unwrap();
        prop_assert_eq!(got.members, expected);
    }

    #[test]
    fn decoders_are_total(value in prop::collection::vec(any::<u8>(), 0..200), format in 0usize..6) {
        let options = DecodeOptions::format(if format == 5 { None } else { Some(Format::ALL[format]) });
        let strict = decode(&value, &options);
        let salvaged = decode_salvage(&value, &options);
        match strict {
            Ok(set) => {
                prop_assert!(salvaged.error.is_none());
                prop_assert_eq!(&set, &salvaged.set);
                prop_assert!(set.members.member_bytes() <= value.len());
                prop_assert!(set.members.iter().zip(set.members.iter().skip(1)).all(|(a, b)| a < b));
            }
            Err(e) => {
                prop_assert_eq!(Some(e.clone()), salvaged.error);
                prop_assert!(e.offset <= value.len());
                prop_assert_eq!(e.record, salvaged.set.stats.records);
            }
        }
    }
}
