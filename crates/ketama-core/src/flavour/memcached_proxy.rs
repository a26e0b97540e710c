//! memcached's built-in proxy (1.6.x, `proxy_lua.c`, `proxy_jump_hash.c`,
//! `proxy_xxhash.c`): the key distribution of a pool made with its
//! defaults, `mcp.pool({b1, b2, …})`; not a continuum.
//!
//! * the pool's key hasher is `XXH3_64bits_withSeed` with seed 0 (a pool
//!   option `seed` would make the seed the XXH3 of its string) over the
//!   whole key;
//! * its distribution is `mcp.dist_jump_hash`: the key's jump hash
//!   ([`jump`]) over the backends *in the order the pool lists them*
//!   (no sorting; a backend listed twice counts twice);
//! * no weights, no failover: a request whose backend is down fails
//!   (`SERVER_ERROR backend failure`).
//!
//! Pool options that change this (`seed`, `filter` = `stop` / `tags`,
//! `hash`, `dist = mcp.dist_ring_hash`) are not modelled.

use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::hash::xxh3::xxh3_64;
use crate::placement::Placement;
use crate::placement::jump::jump;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::placement::servers::refuse_weights;

/// `mcp.pool(backends)`: XXH3 of the key, jump hash over the list.
pub static PLACEMENT: Placement = Placement::per_key(&[HashAlgorithm::Xxh3], |servers, _| {
    refuse_weights(servers, "memcached-proxy")?;
    Ok(Arc::new(ProxyPool {
        backends: servers.len() as u32,
    }) as PerKey)
});

/// A pool of this many backends, in list order.
#[derive(Debug, Clone, Copy)]
pub struct ProxyPool {
    backends: u32,
}

impl ProxyPool {
    #[inline]
    fn place(&self, key: &[u8]) -> Option<Location> {
        if self.backends == 0 {
            return None;
        }
        let hash = xxh3_64(key, 0);
        let index = jump(hash, self.backends) as usize;
        Some(Location {
            point_index: index,
            point: hash as u32,
            server_index: index,
        })
    }
}

impl PerKeyPlacement for ProxyPool {
    fn describe(&self) -> &'static str {
        "memcached's proxy: the jump hash of the key's XXH3 over the pool"
    }

    fn heap_bytes(&self) -> usize {
        0
    }

    fn locate(
        &self,
        key: &[u8],
        _hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        self.place(key).filter(|at| !is_down(at.server_index))
    }

    #[inline]
    fn locate_up(&self, key: &[u8], _hash: HashAlgorithm) -> Option<Location> {
        self.place(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_list_order_is_the_bucket_order() {
        let pool = ProxyPool { backends: 5 };
        for i in 0..500 {
            let key = format!("/test/{i}");
            let at = pool.locate_up(key.as_bytes(), HashAlgorithm::Xxh3).unwrap();
            assert_eq!(at.server_index as u32, jump(xxh3_64(key.as_bytes(), 0), 5));
            let down = pool.locate(key.as_bytes(), HashAlgorithm::Xxh3, &|s| {
                s == at.server_index
            });
            assert_eq!(down, None, "no failover");
        }
        let empty = ProxyPool { backends: 0 };
        assert_eq!(empty.locate_up(b"k", HashAlgorithm::Xxh3), None);
    }
}
