//! redis-rb 4.8 `Redis::Distributed` (Debian `ruby-redis`,
//! `lib/redis/distributed.rb` and `hash_ring.rb`):
//!
//! * each node is hashed by its id: `redis://HOST:PORT/DB` as
//!   `Redis::Client#id` writes it. A server given as `HOST:PORT`,
//!   `[IPV6]:PORT` or `HOST` (port 6379) is the id `redis://HOST:PORT/0`
//!   (IPv6 without brackets, as redis-rb stores the host); an address
//!   already written as a `redis://`, `rediss://` or `unix://` id, and the
//!   name column (an `:id` option, or the id of a URL with a database), are
//!   hashed as written;
//! * 160 points per node, `crc32("<id>:<i>")`; no weights;
//! * keys: the `{tag}` of [`hash_tags::redis_rb`] when the key has
//!   one, then `crc32`; a key goes to the *last* point ≤ its hash, wrapping
//!   to the last point;
//! * points live in a Ruby `Hash`: of two equal points the node added later
//!   wins.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget;
use crate::placement::hash_tags;
use crate::placement::points::push_crc32_points;
use crate::placement::servers::{host_and_port, refuse_weights};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `HashRing::POINTS_PER_SERVER`.
pub const POINTS_PER_SERVER: u32 = 160;

/// `Redis::Distributed`: CRC-32 points and keys.
pub static PLACEMENT: Placement = Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, _| {
    generate(servers, POINTS_PER_SERVER)
});

/// The node id redis-rb hashes for a server (see the module documentation).
pub fn node_id(server: &ServerSpec) -> Result<Vec<u8>, Error> {
    if let Some(name) = &server.name {
        return Ok(name.clone());
    }
    let address = &server.address;
    if [&b"redis://"[..], b"rediss://", b"unix://"]
        .iter()
        .any(|scheme| address.starts_with(scheme))
    {
        return Ok(address.clone());
    }
    let mut id = b"redis://".to_vec();
    id.extend(host_and_port(address, 6379)?);
    id.extend_from_slice(b"/0");
    Ok(id)
}

/// The ring with `replicas` points per node.
pub fn generate(servers: &[ServerSpec], replicas: u32) -> Result<GeneratedPoints, Error> {
    refuse_weights(servers, "redis-rb Redis::Distributed")?;
    let count = servers.len() as u64 * u64::from(replicas);
    let mut points = Vec::with_capacity(budget::check("redis-rb", count)?);
    for (index, server) in servers.iter().enumerate() {
        let mut prefix = node_id(server)?;
        prefix.push(b':');
        push_crc32_points(&prefix, u64::from(replicas), index as u32, &mut points);
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::AtOrBefore,
        prepare: Some(&hash_tags::REDIS_RB_TAG),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_ids_are_redis_urls() {
        let id = |s: ServerSpec| String::from_utf8(node_id(&s).unwrap()).unwrap();
        assert_eq!(
            id(ServerSpec::unweighted("10.0.0.1:6380")),
            "redis://10.0.0.1:6380/0"
        );
        assert_eq!(id(ServerSpec::unweighted("cache")), "redis://cache:6379/0");
        assert_eq!(
            id(ServerSpec::unweighted("[::1]:6379")),
            "redis://::1:6379/0"
        );
        assert_eq!(
            id(ServerSpec::unweighted("redis://10.0.0.1:6379/3")),
            "redis://10.0.0.1:6379/3"
        );
        let mut named = ServerSpec::unweighted("10.0.0.1:6379");
        named.name = Some(b"shard-a".to_vec());
        assert_eq!(id(named), "shard-a");
    }
}
