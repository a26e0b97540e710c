//! PyPI `emcache` 1.3.3 (asyncio memcached client), `Cluster.pick_node`:
//! rendezvous hashing, not a continuum (`emcache/cluster.py`,
//! `emcache/_cython/hashing/rendezvous.pyx`):
//!
//! * a node's rendezvous id is `f"{host}{port}"`, the host as given to
//!   `MemcachedHostAddress` and the port as an integer, *with no separator*
//!   (`10.0.0.1:11211` is `10.0.0.111211`, `[::1]:11211` is `::111211`);
//!   a `MemcachedUnixSocketPath` node's is its path (the name column here);
//! * a key's score on a node is `_hash(key + id)`, emcache's fold of
//!   MurmurHash3_x64_128 ([`emcache_fold`]); the first node in list order
//!   scores first and a later node wins with a greater score, or with an
//!   equal score and a greater `_hash(id)`;
//! * one node takes every key; no weights (a weight other than 1 is
//!   refused). With `purge_unhealthy_nodes=True` an unhealthy node leaves
//!   the scoring, which is what servers marked down do here (by default
//!   emcache keeps sending its keys to it).
//!
//! Keys are bytes to emcache (it refuses keys over 250 bytes or with
//! blanks and control bytes before it picks a node); the library places any
//! bytes the same way.

use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::hash::murmur128::emcache_fold;
use crate::placement::Placement;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::placement::servers::{HostPort, refuse_duplicates, refuse_weights};
use crate::{Error, ServerSpec};

/// `Cluster.pick_node`: emcache's rendezvous scores.
pub static PLACEMENT: Placement =
    Placement::per_key(&[HashAlgorithm::EmcacheMurmur3], |servers, _| {
        Ok(Arc::new(Emcache::new(servers)?) as PerKey)
    });

/// The nodes' rendezvous ids and their own hashes.
#[derive(Debug, Clone)]
pub struct Emcache {
    ids: Box<[Box<[u8]>]>,
    id_hashes: Box<[u32]>,
}

/// The rendezvous id of `server`: its name column (a unix socket's path),
/// else its host and port written one after the other.
pub fn rendezvous_id(server: &ServerSpec) -> Result<Vec<u8>, Error> {
    if let Some(name) = &server.name {
        return Ok(name.clone());
    }
    let at = HostPort::parse(&server.address)?;
    let mut id = at.host.to_vec();
    id.extend_from_slice(at.port.to_string().as_bytes());
    Ok(id)
}

impl Emcache {
    /// The nodes of `servers`, in list order.
    pub fn new(servers: &[ServerSpec]) -> Result<Self, Error> {
        refuse_weights(servers, "emcache")?;
        let ids = servers
            .iter()
            .map(rendezvous_id)
            .collect::<Result<Vec<_>, _>>()?;
        let names: Vec<&[u8]> = ids.iter().map(Vec::as_slice).collect();
        refuse_duplicates(&names, "emcache")?;
        let id_hashes = ids.iter().map(|id| emcache_fold(id)).collect();
        Ok(Emcache {
            ids: ids.into_iter().map(Vec::into_boxed_slice).collect(),
            id_hashes,
        })
    }
}

impl PerKeyPlacement for Emcache {
    fn describe(&self) -> &'static str {
        "emcache's rendezvous hashing"
    }

    fn heap_bytes(&self) -> usize {
        let ids: usize = self
            .ids
            .iter()
            .map(|id| size_of::<Box<[u8]>>() + id.len())
            .sum();
        ids + self.id_hashes.len() * size_of::<u32>()
    }

    fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        let mut scored = Vec::with_capacity(key.len() + 64);
        let mut winner: Option<(usize, u32)> = None;
        for (index, id) in self.ids.iter().enumerate() {
            if is_down(index) {
                continue;
            }
            scored.clear();
            scored.extend_from_slice(key);
            scored.extend_from_slice(id);
            let score = hash.hash(&scored);
            winner = match winner {
                None => Some((index, score)),
                Some((_, best)) if score > best => Some((index, score)),
                Some((held, best))
                    if score == best && self.id_hashes[index] > self.id_hashes[held] =>
                {
                    Some((index, score))
                }
                kept => kept,
            };
        }
        winner.map(|(server_index, point)| Location {
            point_index: server_index,
            point,
            server_index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_join_host_and_port_without_a_separator() {
        let id = |a: &str| String::from_utf8(rendezvous_id(&ServerSpec::unweighted(a)).unwrap());
        assert_eq!(id("10.0.0.1:11211").unwrap(), "10.0.0.111211");
        assert_eq!(id("cache:011212").unwrap(), "cache11212");
        assert_eq!(id("[::1]:11211").unwrap(), "::111211");
        assert!(Emcache::new(&[ServerSpec::new("a:1", 2)]).is_err());
        let twice = [
            ServerSpec::unweighted("a:1"),
            ServerSpec::unweighted("a:01"),
        ];
        assert!(Emcache::new(&twice).is_err(), "one id twice");
    }

    #[test]
    fn down_nodes_leave_the_scoring() {
        let servers: Vec<ServerSpec> = (0..4)
            .map(|i| ServerSpec::unweighted(format!("10.0.0.{i}:11211").as_str()))
            .collect();
        let placement = Emcache::new(&servers).unwrap();
        let hash = HashAlgorithm::EmcacheMurmur3;
        for i in 0..200 {
            let key = format!("k{i}");
            let up = placement.locate(key.as_bytes(), hash, &|_| false).unwrap();
            let without = placement
                .locate(key.as_bytes(), hash, &|s| s == up.server_index)
                .unwrap();
            assert_ne!(without.server_index, up.server_index);
        }
        assert_eq!(placement.locate(b"k", hash, &|_| true), None);
    }
}
