//! Sets past one value: the 1 MB wall (`SET_FULL`), then sharding over
//! keys placed through the ring, read back with one multi-GET per server.

use super::*;

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
