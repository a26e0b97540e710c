//! Compaction and the recipes: when a value is compacted and its canonical
//! form, read plans (TTL kept, bad values never compacted), and the write
//! recipe's bounded state machine.

use ketama_core::setcodec::recipe::{Reply, WriteAction, WriteOutcome, Writer, plan_read};
use ketama_core::setcodec::{
    CompactionPolicy, DecodeOptions, Format, MemberSet, Op, SetErrorKind, compacted, decode,
    should_compact,
};

use super::*;

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
