//! The set codec against real memcached servers on 127.0.0.1, driven by the
//! `memcache` crate's meta client: round trips of every operation, 8
//! concurrent writers with compacting readers, and TTL preservation; the
//! 1 MB wall and sharding in [`sharding`].

mod sharding;

use ketama_testkit as common;
use ketama_testkit::set_clients;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::Memcached;
use ketama_core::setcodec::recipe::{Reply, WriteOutcome};
use ketama_core::setcodec::shard::ShardLayout;
use ketama_core::setcodec::{
    CompactionPolicy, DecodeOptions, Format, MemberSet, Op, SetErrorKind, convert, decode, ops,
};
use ketama_core::{Ring, RingConfig, ServerSpec};
use set_clients::SetClient;

fn policy() -> CompactionPolicy {
    CompactionPolicy::default()
}

fn names(items: &[&str]) -> MemberSet {
    MemberSet::from_members(items)
}

#[test]
fn round_trips_through_memcached() {
    let server = Memcached::start();
    let client = SetClient::connect(&server.address());
    for format in [Format::T1, Format::B1] {
        let key = format!("rt-{}", format.name());
        let key = key.as_bytes();
        // Create, append, remove (one round trip per batch).
        assert_eq!(
            client
                .write(key, Op::Add, &["a", "b", "c"], format, 0)
                .unwrap(),
            WriteOutcome::Created
        );
        assert_eq!(
            client.write(key, Op::Add, &["d", "a"], format, 0).unwrap(),
            WriteOutcome::Appended
        );
        assert_eq!(
            client
                .write(key, Op::Remove, &["b", "zz"], format, 0)
                .unwrap(),
            WriteOutcome::Appended
        );
        assert_eq!(
            client
                .write(b"missing", Op::Remove, &["x"], format, 0)
                .unwrap(),
            WriteOutcome::NothingToRemove
        );
        let read = client.read(key, &policy(), false).unwrap();
        assert_eq!(read.set.members, names(&["a", "c", "d"]));
        assert_eq!(
            (
                read.set.stats.records,
                read.set.stats.removals,
                read.set.stats.redundant
            ),
            (7, 2, 4)
        );
        assert_eq!(read.set.stats.format, Some(format));
        assert_eq!(read.compacted, None);
        // Forced compaction writes the canonical value under CAS.
        assert_eq!(
            client.read(key, &policy(), true).unwrap().compacted,
            Some(true)
        );
        let (value, _, _) = client.fetch(key).unwrap();
        let expected =
            ketama_core::setcodec::compacted(&names(&["a", "c", "d"]), format, 250).unwrap();
        assert_eq!(value, expected);
        // Compacting to the empty set writes an empty value, not a delete.
        client
            .write(key, Op::Remove, &["a", "c", "d"], format, 0)
            .unwrap();
        assert_eq!(
            client.read(key, &policy(), true).unwrap().compacted,
            Some(true)
        );
        assert_eq!(client.fetch(key).unwrap().0, b"");
        assert_eq!(
            client.write(key, Op::Add, &["e"], format, 0).unwrap(),
            WriteOutcome::Appended
        );
        assert_eq!(
            client.read(key, &policy(), false).unwrap().set.members,
            names(&["e"])
        );
    }
    // Members of any bytes in B1.
    let binary = [&b"\x00\xff"[..], b"with space", b""];
    client
        .write(b"rt-bytes", Op::Add, &binary, Format::B1, 0)
        .unwrap();
    assert_eq!(
        client
            .read(b"rt-bytes", &policy(), false)
            .unwrap()
            .set
            .members,
        MemberSet::from_members(binary)
    );
    // A stale CAS never overwrites a newer append.
    let (_, stale_cas, _) = client.fetch(b"rt-bytes").unwrap();
    client
        .write(b"rt-bytes", Op::Add, &["late"], Format::B1, 0)
        .unwrap();
    let stale = client
        .mc
        .set(&b"rt-bytes"[..], &b""[..])
        .compare_cas(stale_cas)
        .send()
        .unwrap();
    assert!(!stale.applied());
    assert!(
        client
            .read(b"rt-bytes", &policy(), false)
            .unwrap()
            .set
            .members
            .contains(b"late")
    );
    // A corrupted value is reported with its offset and never compacted.
    client.set_value(b"rt-bad", b"+a +b \x01", 0);
    let err = client.read(b"rt-bad", &policy(), true).unwrap_err();
    assert_eq!(
        (err.kind, err.offset, err.record),
        (SetErrorKind::BadOp, 6, 2)
    );
    assert_eq!(client.fetch(b"rt-bad").unwrap().0, b"+a +b \x01");
}

#[test]
fn algebra_membase_and_redis_commands_through_memcached() {
    let server = Memcached::start();
    let client = SetClient::connect(&server.address());
    client
        .write(b"s1", Op::Add, &["a", "b", "c", "d"], Format::T1, 0)
        .unwrap();
    client
        .write(b"s2", Op::Add, &["c", "d", "e"], Format::T1, 0)
        .unwrap();
    let s1 = client.read(b"s1", &policy(), false).unwrap().set.members;
    let s2 = client.read(b"s2", &policy(), false).unwrap().set.members;
    let missing = client.read(b"nope", &policy(), false).unwrap().set.members;
    assert_eq!(
        ops::union(&[&s1, &s2, &missing]),
        names(&["a", "b", "c", "d", "e"])
    );
    assert_eq!(ops::inter(&[&s1, &s2]).unwrap(), names(&["c", "d"]));
    assert!(ops::inter(&[&s1, &missing]).unwrap().is_empty());
    assert_eq!(
        ops::diff(&[&s1, &s2, &missing]).unwrap(),
        names(&["a", "b"])
    );
    assert_eq!(ops::intercard(&[&s1, &s2], 1).unwrap(), 1);
    // SINTERSTORE: overwrite the destination with the canonical value.
    let (card, value) = ops::store(&ops::inter(&[&s1, &s2]).unwrap(), Format::T1, 250).unwrap();
    client.set_value(b"dst", &value, 0);
    assert_eq!(card, 2);
    assert_eq!(
        client.read(b"dst", &policy(), false).unwrap().set.members,
        names(&["c", "d"])
    );
    // SMOVE: add to the destination first, then remove from the source.
    let plan = ops::smove(&s1, b"a", false, Format::T1, 250).unwrap();
    client
        .write_payload(b"s2", Op::Add, &plan.add_to_destination.unwrap(), 0)
        .unwrap();
    client
        .write_payload(b"s1", Op::Remove, &plan.remove_from_source.unwrap(), 0)
        .unwrap();
    assert!(
        !client
            .read(b"s1", &policy(), false)
            .unwrap()
            .set
            .members
            .contains(b"a")
    );
    assert!(
        client
            .read(b"s2", &policy(), false)
            .unwrap()
            .set
            .members
            .contains(b"a")
    );
    // SPOP: choose from a read, append the removal under its CAS; a
    // concurrent change makes the CAS fail and the pop is retried.
    let (value, cas, _) = client.fetch(b"s1").unwrap();
    let set = decode(&value, &DecodeOptions::default()).unwrap().members;
    let chosen = ops::spop(&set, Some(2), 42).unwrap();
    let payload = ops::remove_payload(&set, &chosen, Format::T1, 250).unwrap();
    client
        .write(b"s1", Op::Add, &["intruder"], Format::T1, 0)
        .unwrap();
    assert_eq!(client.append_under_cas(b"s1", &payload, cas), Reply::Exists);
    let (value, cas, _) = client.fetch(b"s1").unwrap();
    let set = decode(&value, &DecodeOptions::default()).unwrap().members;
    let chosen = ops::spop(&set, Some(2), 42).unwrap();
    let payload = ops::remove_payload(&set, &chosen, Format::T1, 250).unwrap();
    assert_eq!(client.append_under_cas(b"s1", &payload, cas), Reply::Stored);
    let after = client.read(b"s1", &policy(), false).unwrap().set.members;
    assert_eq!(after.len(), set.len() - 2);
    assert!(chosen.iter().all(|&i| !after.contains(set.get(i).unwrap())));
    // Membase lists stored by another client, converted to T1.
    client.set_value(b"topic-X", b"user-222,|user-1234,user-222,user-987,", 0);
    let (value, _, _) = client.fetch(b"topic-X").unwrap();
    let tombstone = DecodeOptions::format(Some(Format::MembaseTombstone));
    let converted = convert(&value, &tombstone, Format::T1).unwrap();
    client.set_value(b"topic-X.t1", &converted, 0);
    assert_eq!(
        client
            .read(b"topic-X.t1", &policy(), false)
            .unwrap()
            .set
            .members,
        names(&["user-1234", "user-987"])
    );
}

#[test]
fn compaction_preserves_the_ttl() {
    let server = Memcached::start();
    let client = SetClient::connect(&server.address());
    client
        .write(b"ttl", Op::Add, &["a", "b"], Format::T1, 1000)
        .unwrap();
    client
        .write(b"ttl", Op::Remove, &["a"], Format::T1, 1000)
        .unwrap();
    let before = client.fetch(b"ttl").unwrap().2;
    assert!((990..=1000).contains(&before), "ttl before: {before}");
    assert_eq!(
        client.read(b"ttl", &policy(), true).unwrap().compacted,
        Some(true)
    );
    let (value, _, after) = client.fetch(b"ttl").unwrap();
    assert_eq!(value, b"+b ");
    // memcached counts TTLs on its own one-second clock: the remaining TTL
    // written back may read one second more than the one read.
    assert!(
        after != -1 && after <= before + 1 && after >= before - 5,
        "ttl after compaction: {after} (before {before})"
    );
    // A TTL over 30 days survives too (memcached reads such exptimes as Unix times).
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as u32;
    let sixty_days = 60 * 86_400;
    client
        .write(b"long", Op::Add, &["a", "b"], Format::T1, now + sixty_days)
        .unwrap();
    client
        .write(b"long", Op::Remove, &["a"], Format::T1, now + sixty_days)
        .unwrap();
    let before = client.fetch(b"long").unwrap().2;
    assert!(before > 2_592_000, "ttl before: {before}");
    assert_eq!(
        client.read(b"long", &policy(), true).unwrap().compacted,
        Some(true)
    );
    let (value, _, after) = client
        .fetch(b"long")
        .expect("the set survived its compaction");
    assert_eq!(value, b"+b ");
    assert!(
        after <= before + 1 && after >= before - 5,
        "ttl after compaction: {after} (before {before})"
    );
    // A set without expiry stays without expiry.
    client
        .write(b"forever", Op::Add, &["a", "a"], Format::T1, 0)
        .unwrap();
    assert_eq!(
        client.read(b"forever", &policy(), true).unwrap().compacted,
        Some(true)
    );
    assert_eq!(client.fetch(b"forever").unwrap().2, -1);
}

#[test]
fn eight_writers_lose_nothing_while_readers_compact() {
    const WRITERS: usize = 8;
    const BATCHES: usize = 150;
    const RUNS: usize = 10;
    let server = Memcached::start();
    let compactions = Arc::new(AtomicUsize::new(0));
    let lost_cas = Arc::new(AtomicUsize::new(0));
    let operations = Arc::new(AtomicUsize::new(0));
    for run in 0..RUNS {
        let key = Arc::new(format!("busy-{run}"));
        let done = Arc::new(AtomicUsize::new(0));
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (address, key, done, operations) = (
                    server.address(),
                    key.clone(),
                    done.clone(),
                    operations.clone(),
                );
                std::thread::spawn(move || {
                    let client = SetClient::connect(&address);
                    let mut rng = (run * 1000 + w) as u64 * 0x9E37_79B9 + 1;
                    let mut next = move || {
                        rng ^= rng << 13;
                        rng ^= rng >> 7;
                        rng ^= rng << 17;
                        rng
                    };
                    // Each writer owns its members (so its acknowledged order
                    // decides them); "shared-*" members are only ever added.
                    let mut model = BTreeSet::new();
                    for _ in 0..BATCHES {
                        let op = if next() % 3 == 0 { Op::Remove } else { Op::Add };
                        let size = 1 + (next() % 4) as usize;
                        let batch: Vec<String> = (0..size)
                            .map(|_| format!("w{w}-m{}", next() % 40))
                            .collect();
                        client
                            .write(key.as_bytes(), op, &batch, Format::T1, 0)
                            .expect("write acknowledged");
                        operations.fetch_add(1, Ordering::Relaxed);
                        for m in batch {
                            if op == Op::Add {
                                model.insert(m);
                            } else {
                                model.remove(&m);
                            }
                        }
                        if next() % 10 == 0 {
                            let shared = format!("shared-{}", next() % 20);
                            client
                                .write(key.as_bytes(), Op::Add, &[&shared], Format::T1, 0)
                                .expect("write acknowledged");
                            operations.fetch_add(1, Ordering::Relaxed);
                            model.insert(shared);
                        }
                        // Leave readers windows in which their CAS can win.
                        std::thread::sleep(std::time::Duration::from_micros(300));
                    }
                    done.fetch_add(1, Ordering::SeqCst);
                    model
                })
            })
            .collect();
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (address, key, done, compactions, lost_cas) = (
                    server.address(),
                    key.clone(),
                    done.clone(),
                    compactions.clone(),
                    lost_cas.clone(),
                );
                std::thread::spawn(move || {
                    let client = SetClient::connect(&address);
                    let eager = CompactionPolicy {
                        threshold: 10,
                        ..CompactionPolicy::default()
                    };
                    // Bounded: at most 20,000 reads, and stop when the writers are done.
                    for _ in 0..20_000 {
                        if done.load(Ordering::SeqCst) == WRITERS {
                            break;
                        }
                        match client
                            .read(key.as_bytes(), &eager, false)
                            .expect("value decodes")
                            .compacted
                        {
                            Some(true) => compactions.fetch_add(1, Ordering::Relaxed),
                            Some(false) => lost_cas.fetch_add(1, Ordering::Relaxed),
                            None => 0,
                        };
                    }
                })
            })
            .collect();
        let mut expected = BTreeSet::new();
        for writer in writers {
            expected.extend(writer.join().expect("writer thread"));
        }
        for reader in readers {
            reader.join().expect("reader thread");
        }
        let client = SetClient::connect(&server.address());
        let got = client
            .read(key.as_bytes(), &policy(), false)
            .unwrap()
            .set
            .members;
        assert_eq!(
            got,
            MemberSet::from_members(&expected),
            "run {run}: the set differs from the acknowledged operations"
        );
    }
    let (ops_done, compacted, lost) = (
        operations.load(Ordering::Relaxed),
        compactions.load(Ordering::Relaxed),
        lost_cas.load(Ordering::Relaxed),
    );
    eprintln!(
        "nothing-lost: {RUNS} runs, {WRITERS} writers, {ops_done} acknowledged writes, {compacted} compactions, {lost} compactions lost their CAS"
    );
    assert!(
        compacted > 0,
        "readers never compacted: the test did not exercise compaction"
    );
}
