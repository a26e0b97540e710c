//! Envoy's consistent-hashing load balancers, `ring_hash` ([`ring`]) and
//! `maglev` ([`maglev`]) (envoyproxy/envoy,
//! `source/extensions/load_balancing_policies/`): not continuums of 32-bit
//! points. Envoy balances on a 64-bit request hash; a header hash policy
//! (`hash_policy: header`) makes it `xxHash64(value, seed 0)`, and so a key
//! is hashed here. [`Envoy::pick_hash`] places a 64-bit hash directly.
//!
//! * **What is hashed for a host**: its `hash_key` (the `envoy.lb` metadata
//!   `hash_key`, or the hostname under `use_hostname_for_hashing`): the
//!   server's name column; without one, its address as written, which
//!   should be Envoy's form of it (`10.0.0.1:11211`, `[::1]:11211`).
//! * **Weights**: the weight column is the endpoint's
//!   `load_balancing_weight` (1 when absent); each host's share is its
//!   weight over the sum of the weights (`normalizeHostWeights`; no
//!   locality weighting).
//! * **Hosts that are down**: Envoy builds its ring or table over the
//!   healthy hosts only, so a host going down moves its keys and only
//!   those; when fewer than half of the hosts are healthy (the default
//!   `healthy_panic_threshold`, 50%), Envoy panics and balances over every
//!   host, and a key whose host is down has no live server here.
//!
//! Ring and table sizes are build parameters with Envoy's defaults
//! ([`RingHashConfig`], [`MaglevConfig`]).

pub mod maglev;
pub mod ring;

use std::sync::{Arc, Mutex};

use crate::hash::HashAlgorithm as H;
use crate::hash::xxhash64::xxhash64;
use crate::placement::Placement;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::placement::replica_rule::ReplicaRule;
use crate::{Error, ServerSpec};

use maglev::MaglevTable;
use ring::RingTable;

pub use maglev::MaglevConfig;
pub use ring::{RingHashConfig, RingHashFunction};

/// One host as a balancer is built from it: the bytes hashed for it, its
/// normalized weight and its index in the server list.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// What is hashed for the host (its `hash_key`).
    pub key: &'a [u8],
    /// Its share of the weight (the weights of a build sum to 1).
    pub weight: f64,
    /// Its index in the server list.
    pub host: usize,
}

/// Where a 64-bit hash landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    /// The host's index in the server list.
    pub host: usize,
    /// The ring entry's index (ring_hash) or the table slot (maglev).
    pub slot: usize,
    /// The top 32 bits of the ring entry's 64-bit position (ring_hash), or
    /// the slot (maglev).
    pub point: u32,
}

/// `lb_policy: RING_HASH`: ring sizes and `hash_function` from the options
/// (`min_ring_size`, `max_ring_size`, `hash_function`), Envoy's defaults
/// otherwise.
pub static RING_HASH: Placement = Placement::per_key(&[H::XxHash64], |servers, options| {
    let policy = Policy::RingHash(RingHashConfig::from_options(options));
    Ok(Arc::new(Envoy::new(servers, policy)?) as PerKey)
})
.with_settings(&["min_ring_size", "max_ring_size", "hash_function"])
.with_replicas(ReplicaRule::NextInList);

/// `lb_policy: MAGLEV`: `table_size` from the options, 65537 otherwise.
pub static MAGLEV: Placement = Placement::per_key(&[H::XxHash64], |servers, options| {
    let default = MaglevConfig::default();
    let policy = Policy::Maglev(MaglevConfig {
        table_size: options.table_size.unwrap_or(default.table_size),
    });
    Ok(Arc::new(Envoy::new(servers, policy)?) as PerKey)
})
.with_settings(&["table_size"])
.with_replicas(ReplicaRule::NextInList);

/// Which balancer, with its parameters.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Policy {
    /// `ring_hash`.
    RingHash(RingHashConfig),
    /// `maglev`.
    Maglev(MaglevConfig),
}

impl Policy {
    /// Fails, naming the parameter, when Envoy would refuse the
    /// configuration.
    pub fn check(&self) -> Result<(), Error> {
        match self {
            Policy::RingHash(config) => config.check(),
            Policy::Maglev(config) => config.check(),
        }
    }
}

/// The entries of `hosts` (server indices) with `normalizeHostWeights`'s
/// weights: `weight * 1.0 / sum`, with their least and largest.
pub fn normalized<'a>(
    keys: &'a [Vec<u8>],
    weights: &[u32],
    hosts: impl Iterator<Item = usize> + Clone,
) -> (Vec<Entry<'a>>, f64, f64) {
    let sum: u64 = hosts.clone().map(|i| u64::from(weights[i])).sum();
    let (mut min, mut max) = (1.0f64, 0.0f64);
    let entries = hosts
        .map(|host| {
            let weight = f64::from(weights[host]) * 1.0 / sum as f64;
            min = min.min(weight);
            max = max.max(weight);
            Entry {
                key: &keys[host],
                weight,
                host,
            }
        })
        .collect();
    (entries, min, max)
}

/// A built ring or table.
#[derive(Debug)]
pub enum Table {
    /// A `ring_hash` ring.
    Ring(RingTable),
    /// A `maglev` table.
    Maglev(MaglevTable),
}

impl Table {
    /// Builds the balancer of `policy` over `entries` (already normalized,
    /// with their least and largest weight).
    pub fn build(policy: &Policy, entries: &[Entry<'_>], min: f64, max: f64) -> Table {
        match policy {
            Policy::RingHash(config) => Table::Ring(RingTable::build(entries, min, config)),
            Policy::Maglev(config) => Table::Maglev(MaglevTable::build(entries, max, config)),
        }
    }

    /// The bytes it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        match self {
            Table::Ring(ring) => ring.heap_bytes(),
            Table::Maglev(table) => table.heap_bytes(),
        }
    }

    /// The ring's entries or the table's slots.
    pub fn len(&self) -> usize {
        match self {
            Table::Ring(ring) => ring.positions().len(),
            Table::Maglev(table) => table.slots().len(),
        }
    }

    /// True for a ring without entries (no host had weight).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Where a request hash lands; `None` for an empty ring.
    #[inline]
    pub fn pick(&self, hash: u64) -> Option<Pick> {
        match self {
            Table::Ring(ring) => ring.pick(hash),
            Table::Maglev(table) => table.pick(hash),
        }
    }
}

/// Envoy's balancer over a server list.
#[derive(Debug)]
pub struct Envoy {
    policy: Policy,
    keys: Vec<Vec<u8>>,
    weights: Vec<u32>,
    all: Table,
    /// The balancer over the healthy hosts of the last set of down hosts.
    live: Mutex<Option<(Vec<bool>, Arc<Table>)>>,
}

impl Envoy {
    /// Envoy's `policy` balancer over `servers`.
    pub fn new(servers: &[ServerSpec], policy: Policy) -> Result<Self, Error> {
        policy.check()?;
        // Ring::new refuses an empty list first; this is for callers of
        // Envoy::new itself, whose balancer would have no host to pick.
        if servers.is_empty() {
            return Err(Error::NoServers("the server list is empty".into()));
        }
        let mut weights = Vec::with_capacity(servers.len());
        let mut sum = 0u64;
        for server in servers {
            let weight = server.weight.unwrap_or(1);
            let weight = u32::try_from(weight)
                .ok()
                .filter(|&w| w >= 1)
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "Envoy: server {} has weight {weight}; a load_balancing_weight is 1 to {}",
                        String::from_utf8_lossy(&server.address),
                        u32::MAX
                    ))
                })?;
            sum += u64::from(weight);
            weights.push(weight);
        }
        if sum > u64::from(u32::MAX) {
            return Err(Error::InvalidArgument(format!(
                "Envoy: the weights sum to {sum}, more than Envoy accepts ({})",
                u32::MAX
            )));
        }
        let keys: Vec<Vec<u8>> = servers
            .iter()
            .map(|s| s.name.clone().unwrap_or_else(|| s.address.clone()))
            .collect();
        let (entries, min, max) = normalized(&keys, &weights, 0..servers.len());
        let all = Table::build(&policy, &entries, min, max);
        drop(entries);
        Ok(Envoy {
            policy,
            keys,
            weights,
            all,
            live: Mutex::new(None),
        })
    }

    /// The balancer over every host.
    pub fn table(&self) -> &Table {
        &self.all
    }

    /// Where a request hash lands with every host healthy.
    #[inline]
    pub fn pick_hash(&self, hash: u64) -> Option<Pick> {
        self.all.pick(hash)
    }

    /// Where Envoy sends a request hash when the hosts `is_down` says are
    /// unhealthy: the balancer over the healthy hosts, or in panic (fewer
    /// than half healthy) over every host, so the pick may be a host that
    /// is down.
    pub fn pick_hash_live(&self, hash: u64, is_down: &dyn Fn(usize) -> bool) -> Option<Pick> {
        let down: Vec<bool> = (0..self.keys.len()).map(is_down).collect();
        let healthy = down.iter().filter(|&&d| !d).count();
        if healthy == down.len() || 100.0 * healthy as f64 / (down.len() as f64) < 50.0 {
            return self.all.pick(hash);
        }
        self.live_table(down).pick(hash)
    }

    /// The balancer over the hosts not in `down`, rebuilt when the set
    /// changes.
    fn live_table(&self, down: Vec<bool>) -> Arc<Table> {
        let mut cached = self.live.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((was_down, table)) = cached.as_ref() {
            if *was_down == down {
                return Arc::clone(table);
            }
        }
        let hosts = (0..down.len()).filter(|&i| !down[i]);
        let (entries, min, max) = normalized(&self.keys, &self.weights, hosts);
        let table = Arc::new(Table::build(&self.policy, &entries, min, max));
        *cached = Some((down, Arc::clone(&table)));
        table
    }

    fn location(pick: Pick) -> Location {
        Location {
            point_index: pick.slot,
            point: pick.point,
            server_index: pick.host,
        }
    }
}

impl PerKeyPlacement for Envoy {
    fn describe(&self) -> &'static str {
        match self.policy {
            Policy::RingHash(_) => "Envoy's ring_hash (a ring of 64-bit xxHash64 positions)",
            Policy::Maglev(_) => "Envoy's maglev (a lookup table)",
        }
    }

    fn heap_bytes(&self) -> usize {
        let keys: usize = self
            .keys
            .iter()
            .map(|k| size_of::<Vec<u8>>() + k.len())
            .sum();
        // The balancer over the healthy hosts, when one was built.
        let live = self
            .live
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .as_ref()
            .map_or(0, |(down, table)| down.len() + table.heap_bytes());
        keys + size_of_val(&*self.weights) + self.all.heap_bytes() + live
    }

    fn locate(&self, key: &[u8], _hash: H, is_down: &dyn Fn(usize) -> bool) -> Option<Location> {
        let pick = self.pick_hash_live(xxhash64(key, 0), is_down)?;
        (!is_down(pick.host)).then(|| Envoy::location(pick))
    }

    #[inline]
    fn locate_up(&self, key: &[u8], _hash: H) -> Option<Location> {
        self.pick_hash(xxhash64(key, 0)).map(Envoy::location)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_and_sizes_envoy_refuses_are_refused() {
        let ring = Policy::RingHash(RingHashConfig::default());
        let err = |servers: &[ServerSpec], policy| Envoy::new(servers, policy).unwrap_err();
        assert!(
            err(&[ServerSpec::new("a:1", 0)], ring)
                .to_string()
                .contains("weight 0")
        );
        let big = [
            ServerSpec::new("a:1", u64::from(u32::MAX)),
            ServerSpec::new("b:1", 1),
        ];
        assert!(err(&big, ring).to_string().contains("sum to"));
        assert!(matches!(err(&[], ring), Error::NoServers(_)));
        let maglev = Policy::Maglev(MaglevConfig {
            table_size: 5_000_012,
        });
        assert!(
            err(&[ServerSpec::unweighted("a:1")], maglev)
                .to_string()
                .contains("5000011")
        );
    }

    #[test]
    fn down_hosts_leave_the_balancer_until_envoy_panics() {
        let servers: Vec<ServerSpec> = (0..4)
            .map(|i| ServerSpec::unweighted(format!("10.0.0.{i}:80")))
            .collect();
        for policy in [
            Policy::RingHash(RingHashConfig::default()),
            Policy::Maglev(MaglevConfig::default()),
        ] {
            let envoy = Envoy::new(&servers, policy).unwrap();
            let hashes = (0..500u64).map(|k| k.wrapping_mul(0x9e37_79b9_7f4a_7c15));
            for hash in hashes.clone() {
                let one_down = envoy.pick_hash_live(hash, &|i| i == 1).unwrap();
                assert_ne!(one_down.host, 1);
            }
            // Two of four healthy is 50%: not yet a panic.
            for hash in hashes.clone() {
                let two_down = envoy.pick_hash_live(hash, &|i| i < 2).unwrap();
                assert!(two_down.host >= 2);
            }
            // One of four: Envoy balances over every host again.
            for hash in hashes {
                let panic = envoy.pick_hash_live(hash, &|i| i < 3).unwrap();
                assert_eq!(panic, envoy.pick_hash(hash).unwrap());
            }
            let key = b"user:1";
            let up = envoy.locate_up(key, H::XxHash64).unwrap();
            let down = |i: usize| i != up.server_index && i != (up.server_index + 1) % 4;
            let live = envoy.locate(key, H::XxHash64, &down).unwrap();
            assert!(!down(live.server_index));
            assert_eq!(envoy.locate(key, H::XxHash64, &|_| true), None);
        }
    }
}
