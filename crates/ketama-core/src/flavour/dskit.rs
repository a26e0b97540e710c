//! Grafana dskit's `MemcachedJumpHashSelector` (`cache/memcached_server_selector.go`,
//! the memcached client of Loki, Mimir, Cortex and Tempo) and Thanos' of
//! the same name (`pkg/cacheutil/memcached_server_selector.go`), which
//! place keys alike: not a continuum.
//!
//! * `SetServers` sorts the server strings as given in natural order
//!   (`natsort.Sort`, [`natural_order`]) before resolving them; the list
//!   order does not matter, a server listed twice counts twice;
//! * `PickServer` hashes the key with `xxhash.Sum64String` (XXH64, seed
//!   0, all 64 bits) and takes the server at the key's jump hash
//!   ([`jump`]) over the sorted list (with one server, that server);
//! * no weights, no failover: a key whose server is down fails.
//!
//! The strings sorted are the addresses as written (`memcached-0.memcached:11211`);
//! two different strings equal in natural order (`h:011211` and `h:11211`)
//! are refused: Go's sort decides their order.

use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::hash::xxhash64::xxhash64;
use crate::placement::Placement;
use crate::placement::hash_pick::HashPick;
use crate::placement::jump::jump;
use crate::placement::natural_order::natural_order;
use crate::placement::per_key::PerKey;
use crate::placement::servers::refuse_weights;

/// `MemcachedJumpHashSelector.PickServer`.
pub static PLACEMENT: Placement =
    Placement::per_key(&[HashAlgorithm::XxHash64], |servers, _options| {
        refuse_weights(servers, "dskit-jump")?;
        let names: Vec<&[u8]> = servers.iter().map(|s| s.address.as_slice()).collect();
        let sorted = natural_order(&names, "dskit-jump")?;
        Ok(Arc::new(HashPick::ordered(
            "dskit's jump hash over the servers in natural order",
            xxhash64_seed0,
            jump,
            sorted,
        )) as PerKey)
    });

/// `xxhash.Sum64String`: XXH64 with seed 0.
fn xxhash64_seed0(key: &[u8]) -> u64 {
    xxhash64(key, 0)
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Ring, RingConfig, ServerSpec};

    fn ring(names: &[&str]) -> Result<Ring, crate::Error> {
        let specs = names.iter().map(|n| ServerSpec::unweighted(*n)).collect();
        Ring::new(specs, RingConfig::flavour(Flavour::DskitJump))
    }

    #[test]
    fn list_order_does_not_matter() {
        let names = ["mc-10:11211", "mc-2:11211", "mc-1:11211", "mc-0:11211"];
        let reversed: Vec<&str> = names.iter().rev().copied().collect();
        let (a, b) = (ring(&names).unwrap(), ring(&reversed).unwrap());
        for i in 0..500 {
            let key = format!("key{i}");
            let at_a = a.locate(key.as_bytes()).unwrap().server_index;
            let at_b = b.locate(key.as_bytes()).unwrap().server_index;
            assert_eq!(names[at_a], reversed[at_b], "{key}");
        }
        let weighted = Ring::new(
            vec![ServerSpec::new("a:1", 3)],
            RingConfig::flavour(Flavour::DskitJump),
        );
        assert!(weighted.is_err());
        assert!(ring(&["h:011211", "h:11211"]).is_err());
    }
}
