//! The set codec against real memcached servers on 127.0.0.1, driven by the
//! `memcache` crate's meta client: round trips of every operation, 8
//! concurrent writers with compacting readers, the 1 MB wall and sharding,
//! and TTL preservation.

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

#[test]
fn a_full_value_fails_with_set_full_then_sharding_holds_200k_members() {
    let server = Memcached::start_with(256, &["-I", "1m"]);
    let client = SetClient::connect(&server.address());
    let member = |i: usize| format!("{i:06}{}", "x".repeat(244)); // 250 bytes
    let mut stored = Vec::new();
    let mut full = None;
    for batch in 0..100 {
        let members: Vec<String> = (batch * 100..batch * 100 + 100).map(member).collect();
        match client.write(b"big", Op::Add, &members, Format::T1, 0) {
            Ok(_) => stored.extend(members),
            Err(e) => {
                full = Some(e);
                break;
            }
        }
    }
    let error = full.expect("appends must eventually fail near 1 MB");
    assert_eq!(error.kind, SetErrorKind::SetFull, "{error}");
    let (value, _, _) = client.fetch(b"big").unwrap();
    assert!(
        value.len() > 900_000 && value.len() < 1_048_576,
        "value is {} bytes",
        value.len()
    );
    let read = client.read(b"big", &policy(), false).unwrap();
    assert_eq!(
        read.set.members,
        MemberSet::from_members(&stored),
        "nothing already stored is lost"
    );

    // Shard the 200,000-member set over 8 keys, N kept in an index item.
    let layout = ShardLayout::new(b"followers", 8).unwrap();
    let created = client
        .mc
        .set(&b"followers"[..], layout.index_value())
        .add()
        .send()
        .unwrap();
    assert!(created.applied());
    let (index, _, _) = client.fetch(b"followers").unwrap();
    let layout = ShardLayout::from_index(b"followers", &index).unwrap();
    assert_eq!(layout.count(), 8);
    let all: Vec<String> = (0..200_000).map(|i| format!("user-{i}")).collect();
    for batch in all.chunks(5_000) {
        for (shard, payload) in layout.split(Op::Add, batch, Format::T1, 250).unwrap() {
            client
                .write_payload(&layout.shard_key(shard).unwrap(), Op::Add, &payload, 0)
                .expect("shard append");
        }
    }
    let shards: Vec<MemberSet> = layout
        .keys()
        .iter()
        .map(|key| {
            let (value, _, _) = client.fetch(key).expect("shard exists");
            assert!(value.len() < 1_000_000, "a shard is {} bytes", value.len());
            decode(&value, &DecodeOptions::default()).unwrap().members
        })
        .collect();
    let merged = layout.merge(&shards).unwrap();
    assert_eq!(merged.len(), 200_000);
    assert_eq!(merged, MemberSet::from_members(&all));
}

#[test]
fn shard_keys_are_placed_through_the_ring() {
    let servers = [Memcached::start(), Memcached::start()];
    let specs = servers
        .iter()
        .map(|s| ServerSpec::new(s.address().as_str(), 1))
        .collect();
    let ring = Ring::new(specs, RingConfig::default()).unwrap();
    let clients: Vec<SetClient> = servers
        .iter()
        .map(|s| SetClient::connect(&s.address()))
        .collect();
    // The servers' ports differ from run to run, and so does the ring: take
    // the first tag whose 6 shards land on both servers, so that each
    // server is checked to hold its shards and only those.
    let (layout, placements) = (0..64)
        .map(|n| {
            let layout = ShardLayout::new(format!("tag:red:{n}").as_bytes(), 6).unwrap();
            let placements = layout.placements(&ring).unwrap();
            (layout, placements)
        })
        .find(|(_, placements)| {
            placements.iter().any(|p| p.server_index == 0)
                && placements.iter().any(|p| p.server_index == 1)
        })
        .expect("64 tags of 6 shards each, none spread over both servers");
    let members: Vec<String> = (0..600).map(|i| format!("item-{i}")).collect();
    for (shard, payload) in layout.split(Op::Add, &members, Format::B1, 250).unwrap() {
        let server = placements[shard as usize].server_index;
        clients[server]
            .write_payload(&placements[shard as usize].key, Op::Add, &payload, 0)
            .unwrap();
    }
    let shards: Vec<MemberSet> = placements
        .iter()
        .map(|p| {
            let other = 1 - p.server_index;
            assert!(
                clients[other].fetch(&p.key).is_none(),
                "shard key only on its ring server"
            );
            clients[p.server_index]
                .read(&p.key, &policy(), false)
                .unwrap()
                .set
                .members
        })
        .collect();
    assert_eq!(
        layout.merge(&shards).unwrap(),
        MemberSet::from_members(&members)
    );
}

/// The multi-GET planner reads a sharded set with one request per server:
/// 12 shards over 3 servers, each server asked once for exactly the shard
/// keys the ring gives it, and the merged shards are the whole set.
#[test]
fn sharded_set_is_read_with_one_multi_get_per_server() {
    let servers = [Memcached::start(), Memcached::start(), Memcached::start()];
    let specs = servers
        .iter()
        .map(|s| ServerSpec::new(s.address().as_str(), 1))
        .collect();
    let ring = Ring::new(specs, RingConfig::default()).unwrap();
    let clients: Vec<SetClient> = servers
        .iter()
        .map(|s| SetClient::connect(&s.address()))
        .collect();
    let layout = ShardLayout::new(b"followers:42", 12).unwrap();
    let placements = layout.placements(&ring).unwrap();
    let members: Vec<String> = (0..900).map(|i| format!("user-{i}")).collect();
    for (shard, payload) in layout.split(Op::Add, &members, Format::T1, 250).unwrap() {
        let p = &placements[shard as usize];
        clients[p.server_index]
            .write_payload(&p.key, Op::Add, &payload, 0)
            .unwrap();
    }
    let plan = layout.fetch_plan(&ring).unwrap();
    let used: BTreeSet<usize> = placements.iter().map(|p| p.server_index).collect();
    assert_eq!(
        plan.iter().map(|g| g.server_index).collect::<Vec<_>>(),
        used.into_iter().collect::<Vec<_>>(),
        "one group per server holding shards, in server order"
    );
    let mut shards = vec![MemberSet::new(); 12];
    let mut requests = 0;
    for group in &plan {
        let keys: Vec<Vec<u8>> = group
            .key_indices
            .iter()
            .map(|&i| layout.shard_key(i as u32).unwrap())
            .collect();
        for &shard in &group.key_indices {
            assert_eq!(placements[shard].server_index, group.server_index);
        }
        let found = set_clients::multi_get(&servers[group.server_index].address(), &keys);
        requests += 1;
        assert_eq!(
            found.len(),
            keys.len(),
            "every shard key answered in one get"
        );
        for (key, value) in found {
            let shard = keys.iter().position(|k| *k == key).expect("asked key");
            let set = decode(&value, &DecodeOptions::default()).unwrap();
            shards[group.key_indices[shard]] = set.members;
        }
    }
    assert!(requests <= 3);
    assert_eq!(
        layout.merge(&shards).unwrap(),
        MemberSet::from_members(&members)
    );
}
