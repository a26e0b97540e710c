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
use crate::placement::hash_pick::HashPick;
use crate::placement::jump::jump;
use crate::placement::per_key::PerKey;
use crate::placement::servers::refuse_weights;

/// `mcp.pool(backends)`: XXH3 of the key, jump hash over the list.
pub static PLACEMENT: Placement = Placement::per_key(&[HashAlgorithm::Xxh3], |servers, _| {
    refuse_weights(servers, "memcached-proxy")?;
    Ok(Arc::new(pool(servers.len())) as PerKey)
});

/// The pool's XXH3 of a key (seed 0).
fn xxh3_seed0(key: &[u8]) -> u64 {
    xxh3_64(key, 0)
}

/// A pool of `backends` backends, in list order.
fn pool(backends: usize) -> HashPick {
    HashPick::new(
        "memcached's proxy: the jump hash of the key's XXH3 over the pool",
        xxh3_seed0,
        jump,
        backends,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::per_key::PerKeyPlacement;

    #[test]
    fn the_list_order_is_the_bucket_order() {
        let pool = pool(5);
        for i in 0..500 {
            let key = format!("/test/{i}");
            let at = pool.locate_up(key.as_bytes(), HashAlgorithm::Xxh3).unwrap();
            assert_eq!(at.server_index as u32, jump(xxh3_64(key.as_bytes(), 0), 5));
            let down = pool.locate(key.as_bytes(), HashAlgorithm::Xxh3, &|s| {
                s == at.server_index
            });
            assert_eq!(down, None, "no failover");
        }
        let empty = super::pool(0);
        assert_eq!(empty.locate_up(b"k", HashAlgorithm::Xxh3), None);
    }
}
