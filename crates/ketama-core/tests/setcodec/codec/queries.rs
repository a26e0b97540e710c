//! Membase list formats and their counting rules, the Redis-style queries
//! and their count rules, and the galloping intersection against the merge.

use ketama_core::setcodec::ops;
use ketama_core::setcodec::{DecodeOptions, Format, MemberSet, SetErrorKind, convert, decode};

use super::*;

#[test]
fn membase_formats_and_counting_semantics() {
    let comma = DecodeOptions::format(Some(Format::MembaseComma));
    assert_eq!(
        decode(b"user-1234,user-222,user-987,", &comma)
            .unwrap()
            .members
            .to_vec(),
        set(&["user-1234", "user-222", "user-987"])
    );
    let tomb = DecodeOptions::format(Some(Format::MembaseTombstone));
    let t = decode(b"user-222,|user-1234,user-222,user-987,", &tomb).unwrap();
    assert_eq!(t.members.to_vec(), set(&["user-1234", "user-987"]));
    assert_eq!((t.stats.records, t.stats.removals), (4, 1));
    // Re-adding after a delete needs a count above zero (the manual's example).
    let readd = decode(b"user-222,|user-1234,user-222,user-987,user-222", &tomb).unwrap();
    assert_eq!(
        readd.members.to_vec(),
        set(&["user-1234", "user-222", "user-987"])
    );
    assert_eq!(
        decode(b"y,|x,|a,x,y,y", &tomb).unwrap().members.to_vec(),
        set(&["a", "y"])
    );
    let pm = DecodeOptions::format(Some(Format::MembasePlusMinus));
    assert_eq!(
        decode(b"+1234+222+987-222", &pm).unwrap().members.to_vec(),
        set(&["1234", "987"])
    );
    // Counting vs replay: +a+a-a is {a} counted, {} replayed; -a+a the reverse.
    assert_eq!(
        decode(b"+a+a-a", &pm).unwrap().members.to_vec(),
        set(&["a"])
    );
    assert_eq!(members(b"+a +a -a"), set(&[]));
    assert_eq!(decode(b"-a+a", &pm).unwrap().members.to_vec(), set(&[]));
    assert_eq!(members(b"-a +a"), set(&["a"]));
    assert_eq!(
        decode(b"1234+1", &pm).unwrap_err().kind,
        SetErrorKind::BadOp
    );
    assert_eq!(
        decode(b"+1+", &pm).unwrap_err().kind,
        SetErrorKind::EmptyMember
    );
    assert_eq!(convert(b"b,a,b,", &comma, Format::T1).unwrap(), b"+a +b ");
    assert_eq!(convert(b"+1+2-1", &pm, Format::B1).unwrap(), b"\xa1\x012");
    assert_eq!(
        convert(b"a b,", &comma, Format::T1).unwrap_err().kind,
        SetErrorKind::MemberHasWhitespace
    );
}

#[test]
fn redis_queries_and_count_rules() {
    let s = MemberSet::from_members(["a", "b", "c", "d"]);
    assert_eq!(
        ops::smismember(&s, &["a", "x", "d"]),
        vec![true, false, true]
    );
    assert_eq!(ops::smismember(&MemberSet::new(), &["a"]), vec![false]);
    assert_eq!(ops::srandmember(&s, None, 1).unwrap().len(), 1);
    assert!(
        ops::srandmember(&MemberSet::new(), None, 1)
            .unwrap()
            .is_empty()
    );
    let two = ops::srandmember(&s, Some(2), 9).unwrap();
    assert_eq!(two.len(), 2);
    assert_ne!(two[0], two[1]);
    let mut all = ops::srandmember(&s, Some(10), 9).unwrap();
    all.sort();
    assert_eq!(all, vec![0, 1, 2, 3]);
    assert!(ops::srandmember(&s, Some(0), 9).unwrap().is_empty());
    let repeats = ops::srandmember(&s, Some(-10), 9).unwrap();
    assert_eq!(repeats.len(), 10);
    assert!(repeats.iter().all(|&i| i < 4));
    assert!(
        ops::srandmember(&MemberSet::new(), Some(-5), 9)
            .unwrap()
            .is_empty()
    );
    assert!(ops::srandmember(&s, Some(i64::MIN), 9).is_err());
    assert_eq!(
        ops::spop(&s, Some(-1), 1).unwrap_err().detail,
        "value is out of range, must be positive"
    );
    assert!(ops::spop(&s, Some(0), 1).unwrap().is_empty());
    let popped = ops::spop(&s, Some(3), 4).unwrap();
    let payload = ops::remove_payload(&s, &popped, Format::T1, 250).unwrap();
    let after = decode(&[b"+a +b +c +d ".as_slice(), &payload].concat(), &auto()).unwrap();
    assert_eq!(after.members.len(), 1);
    assert!(
        !popped
            .iter()
            .any(|&i| after.members.contains(s.get(i).unwrap()))
    );
    // SMOVE.
    let same = ops::smove(&s, b"a", true, Format::T1, 250).unwrap();
    assert!(same.moved && same.add_to_destination.is_none() && same.remove_from_source.is_none());
    assert!(!ops::smove(&s, b"zz", true, Format::T1, 250).unwrap().moved);
    assert!(!ops::smove(&s, b"zz", false, Format::T1, 250).unwrap().moved);
    let moved = ops::smove(&s, b"b", false, Format::T1, 250).unwrap();
    assert_eq!(
        (
            moved.add_to_destination.unwrap(),
            moved.remove_from_source.unwrap()
        ),
        (b"+b ".to_vec(), b"-b ".to_vec())
    );
    // SINTERCARD and argument errors.
    let t = MemberSet::from_members(["b", "c", "e"]);
    assert_eq!(ops::intercard(&[&s, &t], 0).unwrap(), 2);
    assert_eq!(ops::intercard(&[&s, &t], 1).unwrap(), 1);
    assert_eq!(
        ops::intercard(&[&s, &t], -1).unwrap_err().detail,
        "LIMIT can't be negative"
    );
    assert_eq!(
        ops::intercard(&[], 0).unwrap_err().detail,
        "numkeys should be greater than 0"
    );
    assert!(ops::inter(&[]).is_err());
    assert!(
        ops::diff(&[&s, &t, &s]).unwrap().is_empty(),
        "a first key repeated later gives the empty set"
    );
    assert_eq!(
        ops::store(&MemberSet::new(), Format::T1, 250).unwrap(),
        (0, Vec::new())
    );
    assert_eq!(
        ops::store(&t, Format::T1, 250).unwrap(),
        (3, b"+b +c +e ".to_vec())
    );
}

#[test]
fn skewed_intersection_gallops_and_agrees_with_the_merge() {
    let large = MemberSet::from_members((0..100_000).map(|i| format!("m{i:07}")));
    let small = MemberSet::from_members((0..1_000).map(|i| format!("m{:07}", i * 137)));
    let galloping = ops::intersect_galloping(&small, &large, usize::MAX);
    assert_eq!(galloping, ops::intersect_linear(&small, &large, usize::MAX));
    assert_eq!(galloping.len(), 730); // i * 137 < 100,000 for i < 730
    assert_eq!(ops::inter(&[&large, &small]).unwrap(), galloping);
}
