//! Sharding: the layout as specified, within memcached's key limits.

use ketama_core::setcodec::shard::{ShardLayout, fnv1a64, shard_of};
use ketama_core::setcodec::{Format, MemberSet, Op, SetErrorKind, decode};

use super::*;

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
