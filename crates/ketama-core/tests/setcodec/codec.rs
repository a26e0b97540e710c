//! The set codec without a server: the research's adversarial inputs
//! (setcodec.md e.1), encoders, compaction, Membase lists, sharding, the
//! recipe state machine, and property tests against simple models.

use std::collections::{BTreeMap, BTreeSet};

use ketama_core::setcodec::ops;
use ketama_core::setcodec::recipe::{Reply, WriteAction, WriteOutcome, Writer, plan_read};
use ketama_core::setcodec::shard::{ShardLayout, fnv1a64, shard_of};
use ketama_core::setcodec::{
    CompactionPolicy, DecodeOptions, Format, MemberSet, Op, SetErrorKind, compacted, convert,
    decode, decode_salvage, detect, encode, should_compact,
};
use proptest::prelude::*;

fn auto() -> DecodeOptions {
    DecodeOptions::default()
}

fn members(value: &[u8]) -> Vec<Vec<u8>> {
    decode(value, &auto())
        .unwrap_or_else(|e| panic!("{value:?}: {e}"))
        .members
        .to_vec()
}

fn set(items: &[&str]) -> Vec<Vec<u8>> {
    items.iter().map(|s| s.as_bytes().to_vec()).collect()
}

fn error(value: &[u8]) -> (SetErrorKind, usize, usize) {
    let e = decode(value, &auto()).expect_err("value should be rejected");
    (e.kind, e.offset, e.record)
}

#[test]
fn t1_examples_from_the_research() {
    assert_eq!(members(b""), set(&[]));
    assert_eq!(members(b"   \t\r\n"), set(&[]));
    assert_eq!(members(b"+a"), set(&["a"]));
    let flood = decode(b"+a +a +a", &auto()).unwrap();
    assert_eq!(flood.members.to_vec(), set(&["a"]));
    assert_eq!(
        (
            flood.stats.records,
            flood.stats.removals,
            flood.stats.redundant
        ),
        (3, 0, 2)
    );
    assert_eq!(members(b"+a -a +a"), set(&["a"]));
    assert_eq!(members(b"-a +a"), set(&["a"]));
    assert_eq!(members(b"+a -a"), set(&[]));
    let x = decode(b"-x", &auto()).unwrap();
    assert!(x.members.is_empty());
    assert_eq!(x.stats.removals, 1);
    // The post's doctest: dirtiness 2, {a, c}.
    let post = decode(b"+a +b +c -b -x", &auto()).unwrap();
    assert_eq!(post.members.to_vec(), set(&["a", "c"]));
    assert_eq!(post.stats.removals, 2);
    assert_eq!(post.stats.format, Some(Format::T1));
    assert_eq!(members(b"+\xff\xfe"), vec![vec![0xff, 0xfe]]);
    assert_eq!(members(b"+a\xc2\xa0b"), vec![b"a\xc2\xa0b".to_vec()]);
    assert_eq!(members(b"++a"), set(&["+a"]));
    assert_eq!(members(b"+-a -+a"), set(&["-a"]));
    assert_eq!(members(b"+a\r\n+b\x0b+c\x0c"), set(&["a", "b", "c"]));
    assert_eq!(members(&b" ".repeat(1 << 20)), set(&[]));
}

#[test]
fn t1_errors_name_kind_offset_and_record() {
    assert_eq!(error(b"+"), (SetErrorKind::EmptyMember, 0, 0));
    assert_eq!(error(b"+a +"), (SetErrorKind::EmptyMember, 3, 1));
    assert_eq!(error(b"a").0, SetErrorKind::UnknownEncoding);
    assert_eq!(error(b"*a").0, SetErrorKind::UnknownEncoding);
    assert_eq!(error(b"a,b,").0, SetErrorKind::UnknownEncoding);
    assert_eq!(error(b"[1]2").0, SetErrorKind::UnknownEncoding);
    assert_eq!(error(b"+a *b"), (SetErrorKind::BadOp, 3, 1));
    assert_eq!(error(b"+a\0b"), (SetErrorKind::InvalidByte, 2, 0));
    assert_eq!(error(b"+a\x7f"), (SetErrorKind::InvalidByte, 2, 0));
    assert_eq!(error(b"+x +a\x1fb"), (SetErrorKind::InvalidByte, 5, 1));
    let long = [b"+a +".as_slice(), &[b'm'; 251]].concat();
    assert_eq!(error(&long), (SetErrorKind::MemberTooLong, 3, 1));
    let ok = [b"+".as_slice(), &[b'm'; 250]].concat();
    assert_eq!(members(&ok).len(), 1);
    let huge = [b"+".as_slice(), &vec![b'm'; 1 << 20]].concat();
    assert_eq!(error(&huge).0, SetErrorKind::MemberTooLong);
    // A binary record appended to a text value.
    assert_eq!(error(b"+a \xa1\x01b"), (SetErrorKind::MixedEncoding, 3, 1));
}

#[test]
fn b1_examples_from_the_research() {
    assert_eq!(members(b"\xa1\x00"), vec![Vec::<u8>::new()]);
    assert_eq!(error(b"\xa1"), (SetErrorKind::Truncated, 0, 0));
    assert_eq!(error(b"\xa1\x80"), (SetErrorKind::Truncated, 0, 0));
    assert_eq!(error(b"\xa1\x05\x61\x62"), (SetErrorKind::Truncated, 0, 0));
    assert_eq!(error(b"\xa1\x80\x00"), (SetErrorKind::OverlongLength, 0, 0));
    assert_eq!(
        error(b"\xa1\xff\xff\xff\xff\x0f"),
        (SetErrorKind::LengthTooLarge, 0, 0)
    );
    assert_eq!(
        error(b"\xa1\xff\xff\xff\x7fabc"),
        (SetErrorKind::LengthTooLarge, 0, 0)
    );
    assert_eq!(error(b"\xa7\x00"), (SetErrorKind::UnsupportedOp, 0, 0));
    assert_eq!(error(b"\xa0\x00"), (SetErrorKind::UnsupportedOp, 0, 0));
    assert_eq!(
        error(b"\xa1\x01\x61\x2b\x61\x20"),
        (SetErrorKind::MixedEncoding, 3, 1)
    );
    // Large lengths are fine when allowed and present.
    let big = vec![b'z'; 300];
    let payload = encode(Op::Add, &[&big], Format::B1, 1000).unwrap();
    assert_eq!(&payload[..3], b"\xa1\xac\x02");
    let wide = DecodeOptions {
        max_member_len: 1000,
        ..auto()
    };
    assert_eq!(decode(&payload, &wide).unwrap().members.to_vec(), vec![big]);
    assert_eq!(
        decode(&payload, &auto()).unwrap_err().kind,
        SetErrorKind::LengthTooLarge
    );
    // 10^6 zero-length adds, and 10^5 alternating add/remove.
    let zeros = b"\xa1\x00".repeat(1_000_000);
    let flood = decode(&zeros, &auto()).unwrap();
    assert_eq!((flood.members.len(), flood.stats.redundant), (1, 999_999));
    let mut alternating = Vec::new();
    for _ in 0..50_000 {
        alternating.extend(encode(Op::Add, &[b"m"], Format::B1, 250).unwrap());
        alternating.extend(encode(Op::Remove, &[b"m"], Format::B1, 250).unwrap());
    }
    let alt = decode(&alternating, &auto()).unwrap();
    assert!(alt.members.is_empty());
    assert_eq!((alt.stats.records, alt.stats.removals), (100_000, 50_000));
}

#[test]
fn detection_and_forced_formats() {
    assert_eq!(detect(b"").unwrap(), None);
    assert_eq!(detect(b" \n").unwrap(), None);
    assert_eq!(detect(b"  +a").unwrap(), Some(Format::T1));
    assert_eq!(detect(b"\xa2\x00").unwrap(), Some(Format::B1));
    let unknown = detect(b"  {\"a\":1}").unwrap_err();
    assert_eq!(
        (unknown.kind, unknown.offset),
        (SetErrorKind::UnknownEncoding, 2)
    );
    let t1_as_b1 = decode(b"+a ", &DecodeOptions::format(Some(Format::B1))).unwrap_err();
    assert_eq!(t1_as_b1.kind, SetErrorKind::MixedEncoding);
    let b1_as_t1 = decode(b"\xa1\x01a", &DecodeOptions::format(Some(Format::T1))).unwrap_err();
    assert_eq!(b1_as_t1.kind, SetErrorKind::MixedEncoding);
}

#[test]
fn salvage_returns_the_valid_prefix_and_the_error() {
    let salvaged = decode_salvage(b"+a +b -a +c \x01", &auto());
    assert_eq!(salvaged.set.members.to_vec(), set(&["b", "c"]));
    let e = salvaged.error.unwrap();
    assert_eq!((e.kind, e.offset, e.record), (SetErrorKind::BadOp, 12, 4));
    assert_eq!(salvaged.set.stats.records, 4);
    let whole = decode_salvage(b"+a", &auto());
    assert!(whole.error.is_none());
    let unknown = decode_salvage(b"xyz", &auto());
    assert!(unknown.set.members.is_empty());
    assert_eq!(unknown.error.unwrap().kind, SetErrorKind::UnknownEncoding);
}

#[test]
fn encoder_validates_members() {
    assert_eq!(
        encode(Op::Add, &["a", "b", "c"], Format::T1, 250).unwrap(),
        b"+a +b +c "
    );
    assert_eq!(encode(Op::Remove, &["a"], Format::T1, 250).unwrap(), b"-a ");
    let e = encode(Op::Add, &["ok", "has space"], Format::T1, 250).unwrap_err();
    assert_eq!(
        (e.kind, e.offset, e.record, e.in_member),
        (SetErrorKind::MemberHasWhitespace, 3, 1, true)
    );
    assert_eq!(
        encode(Op::Add, &[""], Format::T1, 250).unwrap_err().kind,
        SetErrorKind::EmptyMember
    );
    assert_eq!(
        encode(Op::Add, &["a\x01"], Format::T1, 250)
            .unwrap_err()
            .kind,
        SetErrorKind::InvalidByte
    );
    assert_eq!(
        encode(Op::Add, &["abc"], Format::T1, 2).unwrap_err().kind,
        SetErrorKind::MemberTooLong
    );
    assert_eq!(
        encode(Op::Add, &[""], Format::B1, 250).unwrap(),
        b"\xa1\x00"
    );
    assert_eq!(
        encode(Op::Add, &["a b"], Format::B1, 250).unwrap(),
        b"\xa1\x03a b"
    );
    assert_eq!(
        encode(Op::Add, &["x"], Format::MembaseComma, 250)
            .unwrap_err()
            .kind,
        SetErrorKind::InvalidArgument
    );
}

#[test]
fn members_sort_bytewise_with_prefixes_first() {
    let value = encode(Op::Add, &[&b"ab"[..], b"a\x00", b"a"], Format::B1, 250).unwrap();
    assert_eq!(
        members(&value),
        vec![b"a".to_vec(), b"a\x00".to_vec(), b"ab".to_vec()]
    );
}

#[test]
fn compaction_decision_and_canonical_form() {
    let policy = CompactionPolicy::default();
    let dirty = decode(&b"+a ".repeat(102), &auto()).unwrap();
    assert!(
        should_compact(&dirty.stats, dirty.members.len(), &policy, false),
        "duplicate adds trigger compaction"
    );
    let clean = decode(&b"+a ".repeat(101), &auto()).unwrap();
    assert!(
        !should_compact(&clean.stats, 1, &policy, false),
        "redundant 100 is not above the threshold"
    );
    assert!(should_compact(&clean.stats, 1, &policy, true));
    let small = CompactionPolicy {
        soft_limit: 4,
        ..policy
    };
    let over = decode(b"+a +a ", &auto()).unwrap();
    assert!(should_compact(&over.stats, 1, &small, false));
    let ratio = CompactionPolicy {
        threshold: 1,
        ratio: true,
        ..policy
    };
    assert!(!should_compact(
        &decode(b"+a +b +c -c", &auto()).unwrap().stats,
        2,
        &ratio,
        false
    ));
    let set = decode(b"+c +a -b +b -c", &auto()).unwrap();
    assert_eq!(compacted(&set.members, Format::T1, 250).unwrap(), b"+a +b ");
    assert_eq!(compacted(&MemberSet::new(), Format::T1, 250).unwrap(), b"");
    let spaced = MemberSet::from_members(["a b"]);
    assert_eq!(
        compacted(&spaced, Format::T1, 250).unwrap_err().kind,
        SetErrorKind::MemberHasWhitespace
    );
    assert_eq!(compacted(&spaced, Format::B1, 250).unwrap(), b"\xa1\x03a b");
}

#[test]
fn read_plan_keeps_ttl_and_never_compacts_bad_values() {
    let value = b"+a -a +b ".repeat(60);
    let policy = CompactionPolicy::default();
    let plan = plan_read(&value, 77, Some(500), &auto(), &policy, false).unwrap();
    let write = plan.compaction.unwrap();
    assert_eq!(
        (write.value.as_slice(), write.cas, write.exptime),
        (&b"+b "[..], 77, Some(500))
    );
    // Over 30 days memcached reads exptimes as Unix times: the absolute expiry is written.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let sixty_days = 60 * 86_400;
    let long = plan_read(&value, 1, Some(sixty_days), &auto(), &policy, false).unwrap();
    let at = u64::from(long.compaction.unwrap().exptime.unwrap());
    assert!(
        (now + sixty_days as u64..=now + sixty_days as u64 + 5).contains(&at),
        "{at}"
    );
    let never = plan_read(&value, 1, Some(-1), &auto(), &policy, false).unwrap();
    assert_eq!(never.compaction.unwrap().exptime, Some(0));
    assert!(
        plan_read(&value, 1, Some(0), &auto(), &policy, false)
            .unwrap()
            .compaction
            .is_none()
    );
    assert_eq!(
        plan_read(&value, 1, None, &auto(), &policy, false)
            .unwrap()
            .compaction
            .unwrap()
            .exptime,
        None
    );
    let bad = [value.as_slice(), b"\x00"].concat();
    assert!(plan_read(&bad, 1, Some(9), &auto(), &policy, true).is_err());
    let membase = DecodeOptions::format(Some(Format::MembaseComma));
    assert!(
        plan_read(b"a,a,a,", 1, Some(9), &membase, &policy, true)
            .unwrap()
            .compaction
            .is_none()
    );
}

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

#[test]
fn sharding_is_specified_and_respects_key_limits() {
    // FNV-1a 64 reference vectors.
    assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
    assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
    assert_eq!(fnv1a64(b"foobar"), 0x85944171f73967e8);
    assert_eq!(shard_of(b"foobar", 8), (0x85944171f73967e8u64 % 8) as u32);
    let layout = ShardLayout::new(b"topic-X", 12).unwrap();
    assert_eq!(layout.shard_key(11).unwrap(), b"topic-X.11");
    assert!(layout.shard_key(12).is_err());
    assert_eq!(
        ShardLayout::new(&[b'k'; 247], 10)
            .unwrap()
            .shard_key(9)
            .unwrap()
            .len(),
        249
    );
    assert!(ShardLayout::new(&[b'k'; 248], 10).is_ok());
    assert!(
        ShardLayout::new(&[b'k'; 248], 11)
            .unwrap_err()
            .detail
            .contains("shard keys would be 251 bytes")
    );
    assert_eq!(
        ShardLayout::new(b"has space", 2).unwrap_err().kind,
        SetErrorKind::InvalidArgument
    );
    assert!(ShardLayout::new(b"k", 0).is_err());
    assert!(
        ShardLayout::new(b"k", u32::MAX).is_err(),
        "no table of 4 billion shards"
    );
    assert!(ShardLayout::new(b"k", 65_536).is_ok());
    assert_eq!(
        layout.index_value(),
        b"+0 +1 +2 +3 +4 +5 +6 +7 +8 +9 +10 +11 "
    );
    assert_eq!(
        ShardLayout::from_index(b"topic-X", &layout.index_value()).unwrap(),
        layout
    );
    assert!(ShardLayout::from_index(b"topic-X", b"+0 +2 ").is_err());
    let batch: Vec<String> = (0..100).map(|i| format!("user-{i}")).collect();
    let payloads = layout.split(Op::Add, &batch, Format::T1, 250).unwrap();
    let shards: Vec<MemberSet> = (0..12)
        .map(|s| {
            payloads
                .iter()
                .find(|(i, _)| *i == s)
                .map_or_else(MemberSet::new, |(_, p)| decode(p, &auto()).unwrap().members)
        })
        .collect();
    assert_eq!(
        layout.merge(&shards).unwrap(),
        MemberSet::from_members(&batch)
    );
    let mut wrong = shards.clone();
    wrong.swap(0, 1);
    assert_eq!(
        layout.merge(&wrong).unwrap_err().kind,
        SetErrorKind::BadListEntry
    );
    let ring = ketama_core::Ring::new(
        vec![
            ketama_core::ServerSpec::new("10.0.0.1:11211", 1),
            ketama_core::ServerSpec::new("10.0.0.2:11211", 1),
        ],
        Default::default(),
    )
    .unwrap();
    let placements = layout.placements(&ring).unwrap();
    assert_eq!(placements.len(), 12);
    for p in &placements {
        assert_eq!(p.server_index, ring.locate(&p.key).unwrap().server_index);
    }
    assert!(
        placements.iter().any(|p| p.server_index == 0)
            && placements.iter().any(|p| p.server_index == 1)
    );
}

#[test]
fn write_recipe_is_bounded() {
    let mut w = Writer::new(Op::Add, 3);
    assert_eq!(w.first(), WriteAction::Append);
    assert_eq!(
        w.on_reply(Reply::Stored).unwrap(),
        WriteAction::Done(WriteOutcome::Appended)
    );
    assert!(w.on_reply(Reply::Stored).is_err());
    let mut create = Writer::new(Op::Add, 3);
    assert_eq!(create.on_reply(Reply::NotStored).unwrap(), WriteAction::Add);
    assert_eq!(
        create.on_reply(Reply::Stored).unwrap(),
        WriteAction::Done(WriteOutcome::Created)
    );
    // A full value: append and add keep failing, then the probe finds the key.
    let mut full = Writer::new(Op::Add, 3);
    let mut steps = 0;
    let mut action = full.first();
    let err = loop {
        steps += 1;
        assert!(steps < 20, "the recipe must stop");
        let reply = match action {
            WriteAction::Probe => Reply::Exists,
            _ => Reply::NotStored,
        };
        match full.on_reply(reply) {
            Ok(next) => action = next,
            Err(e) => break e,
        }
    };
    assert_eq!((err.kind, steps), (SetErrorKind::SetFull, 9));
    // The key vanishes every time: contended.
    let mut racing = Writer::new(Op::Add, 1);
    assert_eq!(racing.on_reply(Reply::NotStored).unwrap(), WriteAction::Add);
    assert_eq!(
        racing.on_reply(Reply::NotStored).unwrap(),
        WriteAction::Append
    );
    assert_eq!(racing.on_reply(Reply::NotStored).unwrap(), WriteAction::Add);
    assert_eq!(
        racing.on_reply(Reply::NotStored).unwrap(),
        WriteAction::Probe
    );
    assert_eq!(
        racing.on_reply(Reply::NotFound).unwrap_err().kind,
        SetErrorKind::Contended
    );
    // Removes from a missing set are no-ops; from a full one, SetFull.
    let mut remove = Writer::new(Op::Remove, 3);
    assert_eq!(
        remove.on_reply(Reply::NotStored).unwrap(),
        WriteAction::Probe
    );
    assert_eq!(
        remove.on_reply(Reply::NotFound).unwrap(),
        WriteAction::Done(WriteOutcome::NothingToRemove)
    );
    // A remove racing with the set's creation appends again after the probe.
    let mut remove_full = Writer::new(Op::Remove, 2);
    for _round in 0..2 {
        assert_eq!(
            remove_full.on_reply(Reply::NotStored).unwrap(),
            WriteAction::Probe
        );
        assert_eq!(
            remove_full.on_reply(Reply::Exists).unwrap(),
            WriteAction::Append
        );
    }
    assert_eq!(
        remove_full.on_reply(Reply::NotStored).unwrap(),
        WriteAction::Probe
    );
    assert_eq!(
        remove_full.on_reply(Reply::Exists).unwrap_err().kind,
        SetErrorKind::SetFull
    );
    let mut too_large = Writer::new(Op::Add, 3);
    assert_eq!(
        too_large.on_reply(Reply::TooLarge).unwrap_err().kind,
        SetErrorKind::SetFull
    );
}

// ---- properties -------------------------------------------------------

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
