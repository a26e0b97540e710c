//! go-redis v8 and v9 `Ring` with its default `NewConsistentHash`
//! (`ring.go`: `rendezvous.New(shards, xxhash.Sum64String)` of
//! `github.com/dgryski/go-rendezvous` up to v9.18, the same rule inlined
//! as `internal/hashtag/rendezvous.go` since): rendezvous hashing over the
//! shard names, not a continuum.
//!
//! * a shard is named by its key in `RingOptions.Addrs` (`name → addr`):
//!   the name column here, else the address as written; names are unique;
//! * a key is cut to its hash tag (`hashtag.Key`: the bytes between the
//!   first `{` and the first `}` after it, when there are some; Redis
//!   Cluster's rule, [`redis_cluster`]);
//! * each live shard scores `mix(xxhash(tag) ^ xxhash(name))`, xxhash
//!   being `xxhash.Sum64String` (XXH64, seed 0) and `mix` go-rendezvous'
//!   `xorshiftMult64` ([`score`]); the greatest score wins, the first
//!   shard on an equal score (go-redis lists the shards from a Go map, in
//!   no fixed order: equal 64-bit scores of different names are not seen
//!   in practice);
//! * a shard that fails its health check leaves the ring (`rebalance`
//!   rebuilds it over the live shards): a down server's keys move to the
//!   next best score. No weights.

use std::borrow::Cow;
use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::hash::xxhash64::xxhash64;
use crate::placement::Placement;
use crate::placement::hash_tags::redis_cluster;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::placement::servers::{refuse_duplicates, refuse_weights};

/// `NewRing(opt)` with the default consistent hash.
pub static PLACEMENT: Placement =
    Placement::per_key(&[HashAlgorithm::XxHash64], |servers, _options| {
        refuse_weights(servers, "go-redis-ring")?;
        let names: Vec<&[u8]> = servers
            .iter()
            .map(|s| s.name.as_deref().unwrap_or(&s.address))
            .collect();
        refuse_duplicates(&names, "go-redis-ring")?;
        let name_hashes = names.iter().map(|n| xxhash64(n, 0)).collect();
        Ok(Arc::new(GoRedisRing { name_hashes }) as PerKey)
    });

/// go-rendezvous' `xorshiftMult64` of a key's and a shard's hashes.
#[inline]
pub fn score(key_hash: u64, name_hash: u64) -> u64 {
    let mut x = key_hash ^ name_hash;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x.wrapping_mul(2_685_821_657_736_338_717)
}

/// The shards' name hashes, in list order.
#[derive(Debug, Clone)]
pub struct GoRedisRing {
    name_hashes: Vec<u64>,
}

impl PerKeyPlacement for GoRedisRing {
    fn describe(&self) -> &'static str {
        "go-redis Ring's rendezvous hashing over shard names"
    }

    fn heap_bytes(&self) -> usize {
        self.name_hashes.len() * size_of::<u64>()
    }

    fn locate(
        &self,
        key: &[u8],
        _hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        let key_hash = xxhash64(redis_cluster(key), 0);
        let mut best: Option<(usize, u64)> = None;
        for (index, &name_hash) in self.name_hashes.iter().enumerate() {
            if is_down(index) {
                continue;
            }
            let s = score(key_hash, name_hash);
            if best.is_none_or(|(_, top)| s > top) {
                best = Some((index, s));
            }
        }
        best.map(|(server_index, s)| Location {
            point_index: server_index,
            point: (s >> 32) as u32,
            server_index,
        })
    }

    fn prepare_key<'k>(&self, key: &'k [u8]) -> Cow<'k, [u8]> {
        Cow::Borrowed(redis_cluster(key))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Ring, RingConfig, ServerSpec};

    #[test]
    fn down_shards_leave_the_ring_and_tags_stay_together() {
        let specs: Vec<ServerSpec> = (0..5)
            .map(|i| ServerSpec::unweighted(format!("10.0.0.{i}:6379").as_str()))
            .collect();
        let ring = Ring::new(specs, RingConfig::flavour(Flavour::GoRedisRing)).unwrap();
        for i in 0..300 {
            let key = format!("k{i}");
            let up = ring.locate(key.as_bytes()).unwrap().server_index;
            let moved = ring
                .locate_live(key.as_bytes(), |s| s == up)
                .unwrap()
                .server_index;
            assert_ne!(moved, up);
            let tagged = format!("{{user{}}}:{i}", i % 3);
            let same = format!("x{{user{}}}", i % 3);
            assert_eq!(
                ring.locate(tagged.as_bytes()).unwrap().server_index,
                ring.locate(same.as_bytes()).unwrap().server_index
            );
        }
    }
}
