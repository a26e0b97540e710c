//! go-redis v5 to v7 `Ring` (`gopkg.in/redis.v5` 5.2.9 as Debian
//! `golang-gopkg-redis.v5-dev` ships it; v6 and v7 keep the rule): its
//! `internal/consistenthash` is groupcache's map with 100 replicas.
//!
//! * each shard is hashed by its name, the key of `RingOptions.Addrs` (the
//!   name column, else the address as written); a name is one shard, so two
//!   servers of one name are refused; no weights;
//! * 100 points per shard (`nreplicas`, not settable), point `i` the CRC-32
//!   (`crc32.ChecksumIEEE`) of the decimal `i` followed by the name;
//! * keys: the hash tag of `hashtag.Key` (Redis Cluster's rule: the first
//!   `{`, the first `}` after it, a non-empty tag between), then CRC-32; the
//!   first point ≥ the key's hash, wrapping to the first point;
//! * of equal points of two shards, the map keeps the shard added later;
//!   `NewRing` adds them in Go's map order, which Go randomises, so the
//!   peer's answer there is not fixed: the library keeps the later server of
//!   the list.

use crate::flavour::groupcache;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::hash_tags;
use crate::placement::servers::{name_or_address, refuse_duplicates};
use crate::{Error, ServerSpec};

/// `NewRing`'s `nreplicas`.
pub const REPLICAS: u32 = 100;

/// `redis.NewRing`: CRC-32 points and keys, go-redis' `{tag}`.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, _| generate(servers));

/// The ring of `NewRing` over `servers`.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let names: Vec<&[u8]> = servers.iter().map(name_or_address).collect();
    refuse_duplicates(&names, "go-redis-ring-v5")?;
    let mut generated = groupcache::consistenthash("go-redis-ring-v5", servers, REPLICAS)?;
    generated.prepare = Some(&hash_tags::REDIS_CLUSTER_TAG);
    Ok(generated)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hundred_points_per_name_and_no_weights_or_twins() {
        let servers = [
            ServerSpec::unweighted("10.0.0.1:6379"),
            ServerSpec::unweighted("10.0.0.2:6379"),
        ];
        let points = generate(&servers).unwrap().points;
        assert_eq!(points.len(), 200);
        assert_eq!(points[199].0, crate::hash::crc::crc32(b"9910.0.0.2:6379"));
        let err = generate(&[ServerSpec::new("a:1", 2)]).unwrap_err();
        assert!(err.to_string().contains("go-redis-ring-v5"), "{err}");
        let twins = [servers[0].clone(), servers[0].clone()];
        assert!(generate(&twins).is_err());
    }
}
