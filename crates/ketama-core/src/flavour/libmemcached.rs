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

use super::GeneratedPoints;
use super::points::{
    HostPort, float_weighted_digests, push_hashed_server, push_md5_server, weights,
};
use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::search::Search;
use crate::{Error, ServerSpec};

use super::placement::Placement;
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
);

/// CONSISTENT / KETAMA: 100 hashed points per server.
pub static CONSISTENT: Placement = Placement::continuum(HASHES, |servers, hash, _| {
    generate(servers, hash, Distribution::Consistent)
});

/// CONSISTENT_KETAMA_SPY.
pub static SPY: Placement = Placement::continuum(HASHES, |servers, hash, _| {
    generate(servers, hash, Distribution::Spy)
});

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
    let mut points = Vec::new();
    for (index, server) in servers.iter().enumerate() {
        let hp = HostPort::parse(&server.address)?;
        let prefix = match distribution {
            Distribution::Spy => [b"/".as_slice(), &hp.with_port()].concat(),
            Distribution::Weighted | Distribution::Consistent => hp.without_default_port(),
        };
        if weighted {
            let digests = float_weighted_digests(weights[index], total, servers.len());
            push_md5_server(&prefix, digests, index as u32, &mut points)
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
