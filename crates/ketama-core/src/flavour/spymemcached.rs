//! spymemcached 2.12.3's `KetamaNodeLocator`, and its default
//! `ArrayModNodeLocator` ([`ARRAY_MOD`]).
//!
//! * Node keys: format SPYMEMCACHED is `String.valueOf(InetSocketAddress)`
//!   without the leading `/`: `ip:port` for an IP literal (IPv6 in Java's
//!   full bracketed form `[0:0:0:0:0:0:0:1]:port`), or the address as written
//!   (e.g. `name/10.0.0.1:11211`, what Java prints for a resolved name).
//!   Format LIBMEMCACHED is the host, plus `:port` unless it is 11211; the
//!   host is taken literally (the library never does DNS).
//! * Unweighted: 160 points per server; MD5 gives 4 per digest, any other
//!   hash one point per label `hash("<key>-<i>")`.
//! * Weighted (any weight given): the shared float formula, always MD5.
//! * Ties: a `TreeMap.put` overwrite, so the later point wins.

use std::io::Write;
use std::net::Ipv6Addr;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::points::{float_weighted_digests, push_hashed_server, push_md5_server};
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;
use crate::placement::server_modulo::{Failover, Rule, ServerModulo};
use crate::placement::servers::{HostPort, weights};
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

use HashAlgorithm as H;

/// spymemcached's `DefaultHashAlgorithm`s, KETAMA_HASH first.
const HASHES: &[H] = &[
    H::Md5,
    H::SpyNative,
    H::Crc,
    H::SpyFnv1_64,
    H::SpyFnv1a64,
    H::SpyFnv1_32,
    H::SpyFnv1a32,
];

/// Its spellings: `fnv1_64` and the like run over UTF-16 code units.
const SPELLINGS: &[(&str, H)] = &[
    ("fnv1_64", H::SpyFnv1_64),
    ("fnv1a_64", H::SpyFnv1a64),
    ("fnv1_32", H::SpyFnv1_32),
    ("fnv1a_32", H::SpyFnv1a32),
];

/// `KetamaNodeLocator` with node keys in SPYMEMCACHED format.
pub static SPYMEMCACHED: Placement = Placement::continuum(HASHES, |servers, hash, _| {
    generate(servers, hash, NodeKeyFormat::Spymemcached)
})
.with_spellings(SPELLINGS);

/// `KetamaNodeLocator` with node keys in LIBMEMCACHED format.
pub static LIBMEMCACHED_KEYS: Placement = Placement::continuum(HASHES, |servers, hash, _| {
    generate(servers, hash, NodeKeyFormat::Libmemcached)
})
.with_spellings(SPELLINGS);

/// `ArrayModNodeLocator`'s hashes: `DefaultConnectionFactory`'s
/// `NATIVE_HASH` first, then the other `DefaultHashAlgorithm`s.
const ARRAY_HASHES: &[H] = &[
    H::SpyNative,
    H::Md5,
    H::Crc,
    H::SpyFnv1_64,
    H::SpyFnv1a64,
    H::SpyFnv1_32,
    H::SpyFnv1a32,
];

/// `ArrayModNodeLocator`, as `DefaultConnectionFactory` builds it: node
/// `hash(key) % n` (the hash masked to 32 bits, so never negative), in
/// list order, no weights. With the default `FailureMode.Redistribute` a
/// key whose node is down goes to the next active node of `getSequence`
/// (list order from the primary, wrapping).
pub static ARRAY_MOD: Placement = Placement::per_key(ARRAY_HASHES, |servers, _| {
    Ok(std::sync::Arc::new(ServerModulo::new(servers, ARRAY_RULE)?)
        as crate::placement::per_key::PerKey)
})
.with_spellings(SPELLINGS)
.with_replicas(ReplicaRule::NextInList);

const ARRAY_RULE: Rule = Rule {
    select: Select::Unsigned,
    failover: Failover::NextServer,
    prepare: None,
    weights_as_copies: false,
};

/// spymemcached's `KetamaNodeKeyFormatter.Format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeKeyFormat {
    /// `SPYMEMCACHED` (the default).
    Spymemcached,
    /// `LIBMEMCACHED`.
    Libmemcached,
}

/// Repetitions per node (`getNodeRepetitions`).
const REPETITIONS: u32 = 160;

/// The node key (label prefix) of a server.
pub fn node_key(server: &ServerSpec, format: NodeKeyFormat) -> Result<Vec<u8>, Error> {
    let hp = HostPort::parse(&server.address)?;
    Ok(match format {
        NodeKeyFormat::Libmemcached => hp.without_default_port(),
        NodeKeyFormat::Spymemcached => match std::str::from_utf8(hp.host)
            .ok()
            .and_then(|h| h.parse::<Ipv6Addr>().ok())
        {
            Some(v6) => {
                let full: Vec<String> = v6.segments().iter().map(|s| format!("{s:x}")).collect();
                let mut key = Vec::new();
                write!(key, "[{}]:{}", full.join(":"), hp.port)
                    .expect("writing to a Vec cannot fail");
                key
            }
            None => hp.with_port(),
        },
    })
}

/// Generates spymemcached's continuum.
pub fn generate(
    servers: &[ServerSpec],
    hash: HashAlgorithm,
    format: NodeKeyFormat,
) -> Result<GeneratedPoints, Error> {
    let weighted = servers.iter().any(|s| s.weight.is_some());
    if weighted && let Some(missing) = servers.iter().find(|s| s.weight.is_none()) {
        return Err(Error::InvalidArgument(format!(
            "spymemcached's weighted continuum needs a weight for every server; '{}' has none",
            String::from_utf8_lossy(&missing.address)
        )));
    }
    let (weights, total) = weights(servers)?;
    let digests: Vec<u32> = weights
        .iter()
        .map(|&weight| float_weighted_digests(weight, total, servers.len()))
        .collect();
    let count = match weighted {
        true => digests.iter().map(|&d| u64::from(d) * 4).sum(),
        false => servers.len() as u64 * u64::from(REPETITIONS),
    };
    let mut points = crate::prefault::vec_with_capacity(budget::check("spymemcached", count)?);
    for (index, server) in servers.iter().enumerate() {
        let key = node_key(server, format)?;
        let index = index as u32;
        if weighted {
            push_md5_server(&key, digests[index as usize], index, &mut points)
        } else if hash == HashAlgorithm::Md5 {
            push_md5_server(&key, REPETITIONS / 4, index, &mut points)
        } else {
            push_hashed_server(&key, REPETITIONS, hash, index, &mut points)
        }
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::AtOrAfter,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use crate::{Flavour, Ring, RingConfig, ServerSpec};

    #[test]
    fn point_counts_add_up_to_the_continuum_after_the_tie_rule() {
        // 2,000 spymemcached servers: some equal points are dropped (later wins).
        let servers: Vec<ServerSpec> = (0..2000)
            .map(|i| ServerSpec::unweighted(format!("10.{}.{}.1:11211", i / 250, i % 250)))
            .collect();
        let ring = Ring::new(servers, RingConfig::flavour(Flavour::Spymemcached)).unwrap();
        let total: usize = ring
            .servers()
            .iter()
            .map(|s| s.point_count() as usize)
            .sum();
        assert_eq!(total, ring.continuum().len());
    }
}
