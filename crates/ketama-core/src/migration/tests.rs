use std::sync::Arc;

use super::*;
use crate::{Flavour, RingConfig, ServerSpec};

fn ring(addresses: &[&str], flavour: Flavour) -> Arc<Ring> {
    let servers = addresses.iter().map(|a| ServerSpec::new(*a, 100)).collect();
    Arc::new(Ring::new(servers, RingConfig::flavour(flavour)).unwrap())
}

const THREE: [&str; 3] = ["10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"];
const FOUR: [&str; 4] = [
    "10.0.0.1:11211",
    "10.0.0.2:11211",
    "10.0.0.3:11211",
    "10.0.0.4:11211",
];

fn grow(mode: Mode, interval_ms: u64) -> Migration {
    let schedule = Schedule {
        mode,
        start_ms: 1000,
        interval_ms,
        warmup_ms: 1000,
    };
    Migration::new(
        ring(&THREE, Flavour::Libketama),
        ring(&FOUR, Flavour::Libketama),
        schedule,
    )
    .unwrap()
    .with_leases(Leases::with_seed(1))
}

fn key(i: usize) -> Vec<u8> {
    format!("key:{i}").into_bytes()
}

#[test]
fn routes_name_both_owners_and_agree_with_each_ring() {
    let m = grow(Mode::Warmup, 0);
    let mut moved = 0;
    for i in 0..10_000 {
        let k = key(i);
        let route = m.route(&k).unwrap();
        assert_eq!(route.old, m.old().locate(&k).unwrap().server_index);
        assert_eq!(route.new, m.new_ring().locate(&k).unwrap().server_index);
        let (a, b) = (
            m.old().servers()[route.old].address(),
            m.new_ring().servers()[route.new].address(),
        );
        assert_eq!(route.moved, a != b);
        moved += usize::from(route.moved);
    }
    // 3 → 4 servers moves about a quarter of the keys, all to the new one.
    assert!((2000..3000).contains(&moved), "{moved} of 10000 moved");
    // Between two flavours (the hashes differ, each ring hashes its own way).
    let change = Migration::new(
        ring(&THREE, Flavour::PeclMemcache),
        ring(&THREE, Flavour::Libmemcached),
        Schedule::new(Mode::Phased, 0),
    )
    .unwrap();
    for i in 0..2000 {
        let k = key(i);
        let route = change.route(&k).unwrap();
        assert_eq!(route.old, change.old().locate(&k).unwrap().server_index);
        assert_eq!(
            route.new,
            change.new_ring().locate(&k).unwrap().server_index
        );
    }
}

/// Drives `op` with `replies` (one per step) and returns the actions taken
/// and the outcome.
fn drive(mut op: Op, replies: &[Reply<'_>]) -> (Vec<(Command, Side)>, Outcome) {
    let mut actions = Vec::new();
    let mut replies = replies.iter();
    loop {
        match op.step() {
            Step::Done(outcome) => {
                assert!(replies.next().is_none(), "replies left over");
                return (actions, outcome);
            }
            Step::Do(action) => {
                actions.push((action.command, action.side));
                op.reply(*replies.next().expect("a reply for every step"))
                    .unwrap();
            }
        }
    }
}

fn moved_key(m: &Migration) -> Vec<u8> {
    (0..).map(key).find(|k| m.route(k).unwrap().moved).unwrap()
}

fn kept_key(m: &Migration) -> Vec<u8> {
    (0..).map(key).find(|k| !m.route(k).unwrap().moved).unwrap()
}

const MISS: Reply<'static> = Reply::of(ReplyKind::Miss);
const STORED: Reply<'static> = Reply::of(ReplyKind::Stored);
const NOT_STORED: Reply<'static> = Reply::of(ReplyKind::NotStored);
const DELETED: Reply<'static> = Reply::of(ReplyKind::Deleted);
const NOT_FOUND: Reply<'static> = Reply::of(ReplyKind::NotFound);
const FAILED: Reply<'static> = Reply::of(ReplyKind::Failed);

#[test]
fn keys_that_stay_and_every_key_outside_the_migration_take_one_command() {
    use Command as C;
    let m = grow(Mode::Warmup, 10);
    let (kept, moved) = (kept_key(&m), moved_key(&m));
    for (now, key, side) in [
        (1500, &kept, Side::New),
        (0, &moved, Side::Old),
        (999_999, &moved, Side::New),
    ] {
        let get = m.begin(OpKind::Get, key, now).unwrap();
        assert_eq!(
            drive(get, &[Reply::hit(b"v", 0)]),
            (vec![(C::Get, side)], hit_of(side))
        );
        let set = m.begin(OpKind::Set, key, now).unwrap();
        assert_eq!(
            drive(set, &[STORED]),
            (vec![(C::Set, side)], Outcome::Stored)
        );
        let delete = m.begin(OpKind::Delete, key, now).unwrap();
        assert_eq!(
            drive(delete, &[NOT_FOUND]),
            (vec![(C::Delete, side)], Outcome::NotFound)
        );
    }
}

/// The outcome of a hit on `side`.
fn hit_of(side: Side) -> Outcome {
    match side {
        Side::Old => Outcome::HitOld,
        Side::New => Outcome::HitNew,
    }
}

#[test]
fn a_warm_miss_copies_the_old_value_under_a_lease() {
    use Command as C;
    use Side::{New, Old};
    let m = grow(Mode::Warmup, 10);
    let k = moved_key(&m);
    let op = m.begin(OpKind::Get, &k, 1500).unwrap();
    assert_eq!(op.phase(), Phase::Warm);
    let lease = op.lease().to_vec();
    assert!(is_lease(&lease));
    let mut op2 = op.clone();
    let (actions, outcome) = drive(
        op,
        &[
            MISS,
            STORED,
            Reply::hit(&lease, 77),
            Reply::hit(b"v0", 0),
            STORED,
        ],
    );
    assert_eq!(
        actions,
        [
            (C::Get, New),
            (C::AddLease, New),
            (C::Gets, New),
            (C::Get, Old),
            (C::CasCopy, New)
        ]
    );
    assert_eq!(outcome, Outcome::HitOld);
    // The copy is a CAS on the lease's unique, with the copy TTL.
    for reply in [MISS, STORED, Reply::hit(&lease, 77), Reply::hit(b"v0", 0)] {
        op2.reply(reply).unwrap();
    }
    let Step::Do(copy) = op2.step() else { panic!() };
    assert_eq!(
        (copy.cas, copy.exptime),
        (77, Some(options::DEFAULT_COPY_TTL))
    );
    // Another reader's lease: read the old side, copy nothing.
    let other = Leases::with_seed(2).next();
    let op = m.begin(OpKind::Get, &k, 1500).unwrap();
    assert_eq!(
        drive(op, &[Reply::hit(&other, 5), Reply::hit(b"v0", 0)]),
        (vec![(C::Get, New), (C::Get, Old)], Outcome::HitOld)
    );
    // A write replaced the lease before it was read back: that value wins.
    let op = m.begin(OpKind::Get, &k, 1500).unwrap();
    assert_eq!(
        drive(op, &[MISS, STORED, Reply::hit(b"v1", 9)]).1,
        Outcome::HitNew
    );
    // The lease was not taken and the key is still empty: read, no copy.
    let op = m.begin(OpKind::Get, &k, 1500).unwrap();
    assert_eq!(
        drive(op, &[MISS, NOT_STORED, MISS, Reply::hit(b"v0", 0)]),
        (
            vec![
                (C::Get, New),
                (C::AddLease, New),
                (C::Get, New),
                (C::Get, Old)
            ],
            Outcome::HitOld
        )
    );
}

#[test]
fn writes_clear_the_other_side_and_a_failed_clear_is_not_acknowledged() {
    use Command as C;
    use Side::{New, Old};
    let m = grow(Mode::Warmup, 10);
    let k = moved_key(&m);
    let set = |now| m.begin(OpKind::Set, &k, now).unwrap();
    assert_eq!(
        drive(set(1005), &[STORED, NOT_FOUND]),
        (vec![(C::Set, Old), (C::Delete, New)], Outcome::Stored)
    );
    assert_eq!(
        drive(set(1500), &[DELETED, STORED]),
        (vec![(C::Delete, Old), (C::Set, New)], Outcome::Stored)
    );
    // A write whose old side could not be cleared is not made.
    assert_eq!(
        drive(set(1500), &[FAILED]),
        (vec![(C::Delete, Old)], Outcome::Failed)
    );
    assert_eq!(drive(set(1005), &[STORED, FAILED]).1, Outcome::Failed);
    let delete = |now| m.begin(OpKind::Delete, &k, now).unwrap();
    for now in [1005, 1500, 2015] {
        assert_eq!(
            drive(delete(now), &[NOT_FOUND, DELETED]),
            (vec![(C::Delete, Old), (C::Delete, New)], Outcome::Deleted)
        );
    }
    assert_eq!(drive(delete(1500), &[FAILED, DELETED]).1, Outcome::Failed);
    assert_eq!(
        drive(delete(1500), &[NOT_FOUND, NOT_FOUND]).1,
        Outcome::NotFound
    );
}

#[test]
fn adds_respect_the_old_value_and_replace_leases() {
    use Command as C;
    use Side::{New, Old};
    let m = grow(Mode::Warmup, 10);
    let k = moved_key(&m);
    let add = || m.begin(OpKind::Add, &k, 1500).unwrap();
    assert_eq!(
        drive(add(), &[Reply::hit(b"v0", 0)]),
        (vec![(C::Get, Old)], Outcome::NotStored)
    );
    assert_eq!(
        drive(add(), &[MISS, DELETED, STORED]),
        (
            vec![(C::Get, Old), (C::Delete, Old), (C::Add, New)],
            Outcome::Stored
        )
    );
    let lease = Leases::with_seed(3).next();
    assert_eq!(
        drive(
            add(),
            &[MISS, NOT_FOUND, NOT_STORED, Reply::hit(&lease, 4), STORED]
        ),
        (
            vec![
                (C::Get, Old),
                (C::Delete, Old),
                (C::Add, New),
                (C::Gets, New),
                (C::CasValue, New),
            ],
            Outcome::Stored
        )
    );
    assert_eq!(
        drive(add(), &[MISS, NOT_FOUND, NOT_STORED, Reply::hit(b"v2", 4)]).1,
        Outcome::NotStored
    );
}

#[test]
fn a_reply_that_does_not_fit_is_refused_and_changes_nothing() {
    let m = grow(Mode::Warmup, 10);
    let mut op = m.begin(OpKind::Delete, &moved_key(&m), 1500).unwrap();
    let before = op.clone();
    let err = op.reply(Reply::hit(b"x", 0)).unwrap_err().to_string();
    assert_eq!(
        err,
        "migration: reply hit does not answer the command delete"
    );
    assert_eq!(op, before);
    let mut done = m.begin(OpKind::Set, &kept_key(&m), 0).unwrap();
    done.reply(STORED).unwrap();
    assert!(done.reply(STORED).is_err());
}

#[test]
fn the_plan_of_a_growth_names_flows_loads_and_the_new_server() {
    let m = grow(Mode::Warmup, 0);
    let plan = m.plan(None::<Vec<Vec<u8>>>);
    assert_eq!(plan.measure(), crate::analysis::Measure::Exact);
    assert!(
        (0.2..0.3).contains(&plan.movement.moved),
        "{}",
        plan.movement.moved
    );
    let away: f64 = plan.old_servers.iter().map(|s| s.moving_away).sum();
    assert!((away - plan.movement.moved).abs() < 1e-9);
    for server in &plan.old_servers {
        assert!((server.warmup_load - server.moving_away / server.share).abs() < 1e-12);
    }
    assert_eq!(plan.gaining.len(), 1);
    assert_eq!(plan.gaining[0].address, FOUR[3].as_bytes());
    assert!(plan.gaining[0].returning);
    assert_eq!(plan.must_flush().collect::<Vec<_>>(), [FOUR[3].as_bytes()]);
    // A placement change on the same servers flushes nothing, but every
    // server gains keys.
    let change = Migration::new(
        ring(&THREE, Flavour::PeclMemcache),
        ring(&THREE, Flavour::Libmemcached),
        Schedule::new(Mode::Phased, 0),
    )
    .unwrap();
    let plan = change.plan(None::<Vec<Vec<u8>>>);
    assert!(matches!(
        plan.measure(),
        crate::analysis::Measure::Sampled(_)
    ));
    assert_eq!(plan.must_flush().count(), 0);
    assert_eq!(plan.gaining.len(), 3);
}

#[test]
fn at_risk_keys_are_those_a_server_gains() {
    let m = grow(Mode::Warmup, 0);
    let keys: Vec<Vec<u8>> = (0..3000).map(key).collect();
    for address in FOUR {
        let risky = m.at_risk(address.as_bytes(), keys.iter().map(Vec::as_slice));
        for k in &keys {
            let route = m.route(k).unwrap();
            let gains =
                route.moved && m.new_ring().servers()[route.new].address() == address.as_bytes();
            assert_eq!(risky.contains(&k.as_slice()), gains);
        }
        assert_eq!(risky.is_empty(), address != FOUR[3]);
    }
}

#[test]
fn metadump_listings_are_read_and_bad_lines_named() {
    let listing = b"key=user%3A1 exp=-1 la=1 cas=2 fetch=no cls=1 size=70\r\n\
                    key=a%20b%25 exp=-1 la=1 cas=3 fetch=no cls=1 size=70\r\nEND\r\n";
    assert_eq!(
        plan::metadump_keys(listing).unwrap(),
        [b"user:1".to_vec(), b"a b%".to_vec()]
    );
    let err = plan::metadump_keys(b"key=ok exp=1\nvalue 1\n")
        .unwrap_err()
        .to_string();
    assert_eq!(err, "metadump line 2: does not begin with key=: value 1");
    assert!(plan::metadump_keys(b"key=%zz exp=1\n").is_err());
    assert!(plan::metadump_keys(b"key=%+f exp=1\n").is_err());
    assert!(plan::metadump_keys(b"key=%4 exp=1\n").is_err());
}
