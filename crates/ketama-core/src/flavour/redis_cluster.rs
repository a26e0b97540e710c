//! Redis Cluster (redis-server 7.0, `cluster.c`; `redis-cli --cluster
//! create`, `redis-cli.c`): not a continuum. A key's slot is
//! `crc16(key) & 0x3fff` (CRC-16/XMODEM), of its hash tag when it has one
//! (the first `{`, the first `}` after it, at least one byte between:
//! [`redis_cluster`](crate::placement::hash_tags::redis_cluster)); the
//! master serving the slot serves the key (the others answer `-MOVED`).
//!
//! The servers are the masters, and which slots each serves comes one of
//! two ways:
//!
//! * **a slot map**: every server's name column holds its slots (`0-5460
//!   10923`, [`slot_map`]); the `redis-cluster-nodes` reading of a saved
//!   `CLUSTER NODES` output writes them there. Every slot must be served,
//!   and by one master only;
//! * **the layout of `redis-cli --cluster create`** (no names): the masters
//!   as given, first grouped by host and taken round-robin over the hosts
//!   in order of first appearance (redis-cli's anti-affinity interleaving;
//!   one host keeps the order), then master `i` serves `first ..= last`
//!   with `last = lround(cursor + 16384/n − 1)` in 32-bit floats, `cursor`
//!   growing by `16384/n` per master, the last master to slot 16383. This
//!   is the split of `--cluster-replicas 0` (with replicas, redis-cli takes
//!   the first `n/(r+1)` interleaved nodes as masters: list those). redis-cli
//!   asks for at least 3 masters; the same split is computed for 1 or 2.
//!
//! No weights. A master that is down is not replaced: its keys have no
//! server until a replica takes its slots over (a new slot map).

use std::borrow::Cow;
use std::sync::Arc;

use crate::hash::HashAlgorithm as H;
use crate::parser::ParseMode;
use crate::placement::Placement;
use crate::placement::hash_tags::{REDIS_CLUSTER_TAG, redis_cluster};
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::placement::servers::{HostPort, refuse_duplicates, refuse_weights};
use crate::placement::slot_map::{self, SLOTS};
use crate::{Error, ServerSpec};

/// Redis Cluster: CRC-16 key slots over a slot map or redis-cli's layout,
/// read from `CLUSTER NODES` text by default.
pub static PLACEMENT: Placement = Placement::per_key(&[H::Crc16Xmodem], |servers, _options| {
    Ok(Arc::new(RedisCluster::new(servers)?) as PerKey)
})
.with_syntax(ParseMode::RedisClusterNodes, ParseMode::RedisClusterNodes);

/// The key's slot: CRC-16/XMODEM of its hash tag (or of the whole key),
/// modulo 16384.
#[inline]
pub fn key_slot(key: &[u8]) -> u16 {
    crate::hash::crc::crc16_xmodem(redis_cluster(key)) & 0x3fff
}

/// The slots of `n` masters as `redis-cli --cluster create` splits them,
/// in interleaved order: inclusive ranges.
pub fn create_split(n: usize) -> Result<Vec<(u16, u16)>, Error> {
    if n == 0 || n > SLOTS {
        return Err(Error::InvalidArgument(format!(
            "Redis Cluster splits {SLOTS} slots over 1 to {SLOTS} masters, not {n}"
        )));
    }
    let per_node = SLOTS as f32 / n as f32;
    let (mut first, mut cursor) = (0i64, 0.0f32);
    let mut ranges = Vec::with_capacity(n);
    for i in 0..n {
        let mut last = f64::from(cursor + per_node - 1.0).round() as i64;
        if last > SLOTS as i64 || i == n - 1 {
            last = SLOTS as i64 - 1;
        }
        last = last.max(first);
        if first >= SLOTS as i64 || last >= SLOTS as i64 {
            return Err(Error::InvalidArgument(format!(
                "redis-cli's split of {SLOTS} slots leaves master {i} of {n} no slot"
            )));
        }
        ranges.push((first as u16, last as u16));
        first = last + 1;
        cursor += per_node;
    }
    Ok(ranges)
}

/// redis-cli's interleaving: the server indices grouped by host (hosts in
/// order of first appearance), then taken one per host in turn.
pub fn interleave(servers: &[ServerSpec]) -> Result<Vec<usize>, Error> {
    let mut hosts: Vec<(&[u8], Vec<usize>)> = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        let host = HostPort::parse(&server.address)?.host;
        match hosts.iter_mut().find(|(h, _)| *h == host) {
            Some((_, members)) => members.push(index),
            None => hosts.push((host, vec![index])),
        }
    }
    let mut order = Vec::with_capacity(servers.len());
    for round in 0.. {
        let before = order.len();
        order.extend(hosts.iter().filter_map(|(_, m)| m.get(round).copied()));
        if order.len() == before {
            break;
        }
    }
    Ok(order)
}

/// A cluster's slot map: the master of every slot.
#[derive(Debug, Clone)]
pub struct RedisCluster {
    owners: Box<[u32]>,
}

impl RedisCluster {
    /// The slot map of `servers`: from their names when every one has its
    /// slots there, else redis-cli's layout (a name on some servers only is
    /// refused).
    pub fn new(servers: &[ServerSpec]) -> Result<Self, Error> {
        refuse_weights(servers, "redis-cluster")?;
        let addresses: Vec<&[u8]> = servers.iter().map(|s| s.address.as_slice()).collect();
        refuse_duplicates(&addresses, "redis-cluster")?;
        let named = servers.iter().filter(|s| s.name.is_some()).count();
        let ranges: Vec<Vec<(u16, u16)>> = if named == 0 {
            let order = interleave(servers)?;
            let mut ranges = vec![Vec::new(); servers.len()];
            for (&index, range) in order.iter().zip(create_split(servers.len())?) {
                ranges[index].push(range);
            }
            ranges
        } else {
            servers
                .iter()
                .map(|s| {
                    let name = s.name.as_deref().ok_or_else(|| {
                        Error::InvalidArgument(format!(
                            "redis-cluster: server '{}' has no slots while others have theirs \
                             (give every master its slots, or none for redis-cli's layout)",
                            String::from_utf8_lossy(&s.address)
                        ))
                    })?;
                    slot_map::parse_list(name).map_err(|why| {
                        Error::InvalidArgument(format!(
                            "redis-cluster: the slots of server '{}' ('{}'): {why}",
                            String::from_utf8_lossy(&s.address),
                            String::from_utf8_lossy(name)
                        ))
                    })
                })
                .collect::<Result<_, _>>()?
        };
        if servers.is_empty() {
            return Ok(RedisCluster {
                owners: Box::new([]),
            });
        }
        Ok(RedisCluster {
            owners: slot_map::owners(&ranges, &addresses)?,
        })
    }

    /// The master of each slot (server indices).
    pub fn owners(&self) -> &[u32] {
        &self.owners
    }
}

impl PerKeyPlacement for RedisCluster {
    fn describe(&self) -> &'static str {
        "Redis Cluster key slots"
    }

    fn heap_bytes(&self) -> usize {
        self.owners.len() * size_of::<u32>()
    }

    fn locate(&self, key: &[u8], hash: H, is_down: &dyn Fn(usize) -> bool) -> Option<Location> {
        self.locate_hash(hash.hash(&self.prepare_key(key)))
            .filter(|at| !is_down(at.server_index))
    }

    #[inline]
    fn locate_hash(&self, hash: u32) -> Option<Location> {
        let slot = hash & 0x3fff;
        let owner = *self.owners.get(slot as usize)?;
        Some(Location {
            point_index: slot as usize,
            point: slot,
            server_index: owner as usize,
        })
    }

    fn prepare_key<'k>(&self, key: &'k [u8]) -> Cow<'k, [u8]> {
        REDIS_CLUSTER_TAG.apply(key)
    }

    fn hash_table(&self) -> Option<&[u32]> {
        Some(&self.owners)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_split_of_redis_cli() {
        // redis-cli 7.0 prints "Master[i] -> Slots first - last".
        assert_eq!(
            create_split(3).unwrap(),
            [(0, 5460), (5461, 10922), (10923, 16383)]
        );
        let ten = create_split(10).unwrap();
        assert_eq!((ten[0], ten[9]), ((0, 1637), (14746, 16383)));
        assert_eq!(create_split(1).unwrap(), [(0, 16383)]);
        assert_eq!(create_split(SLOTS).unwrap()[SLOTS - 1], (16383, 16383));
        assert!(create_split(SLOTS + 1).is_err() && create_split(0).is_err());
    }

    #[test]
    fn hosts_are_interleaved() {
        let servers: Vec<ServerSpec> = ["a:1", "a:2", "b:1", "[::1]:3", "b:2", "a:3"]
            .iter()
            .map(|a| ServerSpec::unweighted(*a))
            .collect();
        assert_eq!(interleave(&servers).unwrap(), [0, 2, 3, 1, 4, 5]);
        assert!(interleave(&[ServerSpec::unweighted("noport")]).is_err());
    }

    #[test]
    fn slot_maps_from_names() {
        let named = |address: &str, slots: &str| ServerSpec {
            address: address.into(),
            weight: None,
            name: Some(slots.into()),
        };
        let map =
            RedisCluster::new(&[named("a:1", "0-100 200-16383"), named("b:1", "101-199")]).unwrap();
        let at = map.locate(b"{user1000}.following", H::Crc16Xmodem, &|_| false);
        assert_eq!(at.unwrap().point, u32::from(key_slot(b"user1000")));
        let mixed = RedisCluster::new(&[named("a:1", "0-16383"), ServerSpec::unweighted("b:1")]);
        assert!(
            mixed
                .unwrap_err()
                .to_string()
                .contains("'b:1' has no slots")
        );
        let bad = RedisCluster::new(&[named("a:1", "0-16383 x")]).unwrap_err();
        assert!(
            bad.to_string().contains("slot 'x' is not a number"),
            "{bad}"
        );
        assert!(RedisCluster::new(&[ServerSpec::new("a:1", 2)]).is_err());
        let one = RedisCluster::new(&[ServerSpec::unweighted("a:1")]).unwrap();
        assert_eq!(one.locate(b"k", H::Crc16Xmodem, &|_| true), None);
    }
}
