//! The `memcached-proxy` flavour (memcached 1.6's built-in proxy, a pool's
//! default key distribution) against the real parts Debian packages, asked
//! in the same run: `XXH3_64bits` of every key from libxxhash 0.8.1
//! through python3-xxhash (ketama-testkit/peers/xxh3_peer.py) and the jump
//! from the hash to a bucket from Guava's `Hashing.consistentHash`
//! (ketama-testkit/peers/GuavaJumpPeer.java); the pool's own step (the
//! backend at the key's bucket, in the order the pool lists them, seed 0)
//! is read from memcached's `proxy_lua.c`, `proxy_jump_hash.c` and
//! `proxy_xxhash.c`. Debian's memcached is built without the proxy, and
//! the proxy's tests (`t/proxyconfig.t`) record where keys land rather
//! than publish it. Lists and keys as for `dskit-jump`: 3, 10 and 100
//! backends as listed and backwards, one, one listed twice, IPv6, host
//! names, unix sockets and non-ASCII names; 10,000+ keys of every kind and
//! length.

use ketama_core::Flavour;
use ketama_testkit::jump_peers::Hasher;

use crate::dskit_jump::{compare_pools, pools};

#[test]
fn a_pool_sends_every_key_where_the_library_does() {
    let compared = compare_pools(Flavour::MemcachedProxy, Hasher::PythonXxh3, &pools());
    assert!(compared >= 12 * 10_000);
    println!("{compared} keys, 0 differences");
}
