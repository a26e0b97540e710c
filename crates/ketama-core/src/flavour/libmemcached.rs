//! libmemcached 1.1.4's consistent distributions (also php-memcached's).
//!
//! * KETAMA_WEIGHTED (`libmemcached`): labels `host-i` (port 11211) or
//!   `host:port-i`, the shared float weight formula, 4 points per MD5 digest.
//! * CONSISTENT / KETAMA (`libmemcached-consistent`): 100 points per server,
//!   one `hash(label)` each, with the key hash.
//! * CONSISTENT_KETAMA_SPY (`libmemcached-spy`): labels `/host:port-i`,
//!   otherwise as CONSISTENT.
//!
//! Any weight above 1 turns libmemcached's weighted flag on, and the
//! consistent distributions then build the weighted MD5 continuum (with
//! their own labels). Ties: the lower server index wins.
//!
//! MODULA ([`MODULA`], `libmemcached-modula`), the default distribution of
//! libmemcached (and so php-memcached's and pylibmc's), is not a
//! continuum: a key goes to server `hash(key) % n`, `n` the number of
//! servers in list order, weights ignored (`dispatch_host`,
//! `MEMCACHED_DISTRIBUTION_MODULA`), with libmemcached's key hashes,
//! one-at-a-time unless `MEMCACHED_BEHAVIOR_HASH` says otherwise. A server
//! that is down is not skipped: libmemcached reports the failure
//! (auto-ejection only rebuilds the continuum distributions), so a down
//! server's keys have no live server.

use std::sync::Arc;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::per_key::PerKey;
use crate::placement::points::{float_weighted_digests, push_hashed_server, push_md5_server};
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;
use crate::placement::server_modulo::{Failover, Rule, ServerModulo};
use crate::placement::servers::{HostPort, weights};
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

use HashAlgorithm as H;

/// libmemcached's key hashes, its default (one-at-a-time) first.
const HASHES: &[H] = &[
    H::OneAtATime,
    H::Md5,
    H::Crc,
    H::Fnv1_64,
    H::Fnv1a64,
    H::Fnv1_32,
    H::Fnv1a32,
    H::Hsieh,
    H::Murmur,
    H::Jenkins,
    H::Murmur3,
];

/// KETAMA_WEIGHTED (php-memcached `OPT_LIBKETAMA_COMPATIBLE`): MD5 keys by default.
pub static WEIGHTED: Placement = Placement::continuum(
    &[
        H::Md5,
        H::OneAtATime,
        H::Crc,
        H::Fnv1_64,
        H::Fnv1a64,
        H::Fnv1_32,
        H::Fnv1a32,
        H::Hsieh,
        H::Murmur,
        H::Jenkins,
        H::Murmur3,
    ],
    |servers, hash, _| generate(servers, hash, Distribution::Weighted),
)
.with_replicas(ReplicaRule::NextInList);

/// CONSISTENT / KETAMA: 100 hashed points per server.
pub static CONSISTENT: Placement = Placement::continuum(HASHES, |servers, hash, _| {
    generate(servers, hash, Distribution::Consistent)
})
.with_replicas(ReplicaRule::NextInList);

/// CONSISTENT_KETAMA_SPY.
pub static SPY: Placement = Placement::continuum(HASHES, |servers, hash, _| {
    generate(servers, hash, Distribution::Spy)
})
.with_replicas(ReplicaRule::NextInList);

/// MODULA: `hash % n` over the servers in list order.
const MODULA_RULE: Rule = Rule {
    select: Select::Unsigned,
    failover: Failover::None,
    prepare: None,
    weights_as_copies: false,
};

/// `MEMCACHED_DISTRIBUTION_MODULA`, with libmemcached's hashes.
pub static MODULA: Placement = Placement::per_key(HASHES, |servers, _| {
    Ok(Arc::new(ServerModulo::new(servers, MODULA_RULE)?) as PerKey)
})
.with_replicas(ReplicaRule::NextInList);

/// Which libmemcached distribution.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Distribution {
    /// `MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA` with `KETAMA_WEIGHTED`.
    Weighted,
    /// `MEMCACHED_DISTRIBUTION_CONSISTENT` / `CONSISTENT_KETAMA`.
    Consistent,
    /// `MEMCACHED_DISTRIBUTION_CONSISTENT_KETAMA_SPY`.
    Spy,
}

/// Points per server of the unweighted consistent distributions.
const POINTS_PER_SERVER: u32 = 100;

/// Generates libmemcached's continuum for `distribution`.
pub fn generate(
    servers: &[ServerSpec],
    hash: HashAlgorithm,
    distribution: Distribution,
) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let weighted = distribution == Distribution::Weighted || weights.iter().any(|&w| w > 1);
    let digests: Vec<u32> = weights
        .iter()
        .map(|&weight| float_weighted_digests(weight, total, servers.len()))
        .collect();
    let count = match weighted {
        true => digests.iter().map(|&d| u64::from(d) * 4).sum(),
        false => servers.len() as u64 * u64::from(POINTS_PER_SERVER),
    };
    let mut points = Vec::with_capacity(budget::check("libmemcached", count)?);
    for (index, server) in servers.iter().enumerate() {
        let hp = HostPort::parse(&server.address)?;
        let prefix = match distribution {
            Distribution::Spy => [b"/".as_slice(), &hp.with_port()].concat(),
            Distribution::Weighted | Distribution::Consistent => hp.without_default_port(),
        };
        if weighted {
            push_md5_server(&prefix, digests[index], index as u32, &mut points)
        } else {
            push_hashed_server(&prefix, POINTS_PER_SERVER, hash, index as u32, &mut points)
        }
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::AtOrAfter,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::per_key::PerKeyPlacement;

    #[test]
    fn modula_keys_go_to_their_hash_modulo_the_server_count() {
        let servers: Vec<ServerSpec> = (0..3)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211").as_str(), 1 + i))
            .collect();
        let modula = ServerModulo::new(&servers, MODULA_RULE).unwrap();
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
        assert!(ServerModulo::new(&[], MODULA_RULE).is_err());
    }
}
