//! libmemcached's MODULA distribution, its default (and so php-memcached's
//! and pylibmc's): a key goes to server `hash(key) % n`, `n` the number of
//! servers in list order, weights ignored (libmemcached 1.1.4
//! `dispatch_host`, `MEMCACHED_DISTRIBUTION_MODULA`). The key hash is
//! libmemcached's, one-at-a-time unless `MEMCACHED_BEHAVIOR_HASH` says
//! otherwise. A server that is down is not skipped: libmemcached reports
//! the failure (auto-ejection only rebuilds the continuum distributions), so
//! a down server's keys have no live server.

use std::sync::Arc;

use super::libmemcached;
use super::placement::{Location, PerKey, PerKeyPlacement, Placement};
use crate::hash::HashAlgorithm;
use crate::{Error, ServerSpec};

/// libmemcached `MEMCACHED_DISTRIBUTION_MODULA`, with libmemcached's hashes.
pub static LIBMEMCACHED: Placement =
    Placement::per_key(libmemcached::CONSISTENT.hashes, |servers, _| {
        Ok(Arc::new(Modula::new(servers)?) as PerKey)
    });

/// `hash % n` over the servers in list order.
#[derive(Debug, Clone)]
pub struct Modula {
    servers: usize,
}

impl Modula {
    /// The placement of `servers` (at least one).
    pub fn new(servers: &[ServerSpec]) -> Result<Self, Error> {
        if servers.is_empty() {
            return Err(Error::NoServers("the server list is empty".into()));
        }
        Ok(Modula {
            servers: servers.len(),
        })
    }
}

impl PerKeyPlacement for Modula {
    fn describe(&self) -> &'static str {
        "hash modulo the number of servers"
    }

    fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        self.locate_hash(hash.hash(key))
            .filter(|at| !is_down(at.server_index))
    }

    fn locate_hash(&self, hash: u32) -> Option<Location> {
        let server_index = (hash as usize) % self.servers;
        Some(Location {
            point_index: server_index,
            point: hash,
            server_index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_go_to_their_hash_modulo_the_server_count() {
        let servers: Vec<ServerSpec> = (0..3)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211").as_str(), 1 + i))
            .collect();
        let modula = Modula::new(&servers).unwrap();
        for key in [&b"a"[..], b"user:1", b""] {
            let hash = HashAlgorithm::OneAtATime.hash(key);
            let at = modula
                .locate(key, HashAlgorithm::OneAtATime, &|_| false)
                .unwrap();
            assert_eq!(at.server_index, hash as usize % 3);
            assert_eq!(
                modula.locate(key, HashAlgorithm::OneAtATime, &|s| s == at.server_index),
                None
            );
        }
        assert!(Modula::new(&[]).is_err());
    }
}
