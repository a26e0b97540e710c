//! Predis 1.1 client-side sharding (`'cluster' => 'predis'`, Debian
//! `php-predis` 1.1.10): `PredisStrategy` with its default distributor
//! `Predis\Cluster\Distributor\HashRing`, or `KetamaRing` in its place.
//!
//! * The node string hashed is the connection's `__toString()`:
//!   `host:port` from its parameters (port 6379 when none is given, IPv6
//!   without brackets; a unix socket's path), never its `alias`. A server
//!   given as `HOST`, `HOST:PORT` or `[IPV6]:PORT` is written so; the name
//!   column, when given, is hashed as written instead (a socket path, or
//!   the string a `nodeHashCallback` returns).
//! * Weights: the `weight` parameter, 100 when none is given (and when 0);
//!   each server's share is `weight / total` in PHP floats.
//! * `HashRing`: `(int) round(share × servers × 128)` points per server,
//!   each `crc32("<node>:<i>")`; keys hashed with `crc32`; a key goes to the
//!   *last* point ≤ its hash, wrapping to the last point. PHP's `round()`
//!   pre-rounds to 15 significant digits ([`php_round`]).
//! * `KetamaRing`: `(int) floor(share × servers × 40)` MD5 digests per
//!   server of `"<node>-<i>"`, four little-endian points each; keys hashed
//!   with the first four bytes of MD5; the first point ≥ the hash.
//! * Both: keys are hashed after Predis's hash tag ([`hash_tags::predis`]);
//!   points are keys of a PHP array, so of two equal points the one
//!   generated later (the later server) wins.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget;
use crate::placement::hash_tags;
use crate::placement::points::Md5Points;
use crate::placement::points::push_crc32_points;
use crate::placement::servers::host_and_port;
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `HashRing::DEFAULT_REPLICAS`.
pub const HASH_RING_REPLICAS: u32 = 128;

/// `KetamaRing::DEFAULT_REPLICAS` (points; a quarter as many digests).
pub const KETAMA_RING_REPLICAS: u32 = 160;

/// `HashRing::DEFAULT_WEIGHT`.
const DEFAULT_WEIGHT: u64 = 100;

/// Redis's port, Predis's default.
const DEFAULT_PORT: u16 = 6379;

/// Largest total weight accepted: PHP sums weights as 64-bit integers and
/// divides them as doubles, exact up to 2^53.
const MAX_TOTAL_WEIGHT: u64 = 1 << 53;

/// `Predis\Cluster\Distributor\HashRing`: CRC-32 points and keys.
pub static HASH_RING: Placement = Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, _| {
    hash_ring(servers, HASH_RING_REPLICAS)
});

/// `Predis\Cluster\Distributor\KetamaRing`: MD5 points and keys.
pub static KETAMA_RING: Placement = Placement::continuum(&[HashAlgorithm::Md5], |servers, _, _| {
    ketama_ring(servers, KETAMA_RING_REPLICAS)
});

/// The string Predis hashes for a server (see the module documentation).
pub fn node_string(server: &ServerSpec) -> Result<Vec<u8>, Error> {
    match &server.name {
        Some(name) => Ok(name.clone()),
        None => host_and_port(&server.address, DEFAULT_PORT),
    }
}

/// Each server's node string and share of the total weight, as PHP
/// computes `$node['weight'] / $totalWeight`.
fn nodes(servers: &[ServerSpec]) -> Result<Vec<(Vec<u8>, f64)>, Error> {
    let weights: Vec<u64> = servers
        .iter()
        .map(|s| s.weight.filter(|&w| w > 0).unwrap_or(DEFAULT_WEIGHT))
        .collect();
    let total = weights
        .iter()
        .try_fold(0u64, |sum, &w| sum.checked_add(w))
        .filter(|&t| t <= MAX_TOTAL_WEIGHT)
        .ok_or_else(|| {
            Error::InvalidArgument(format!(
                "predis: the weights add up to more than {MAX_TOTAL_WEIGHT}"
            ))
        })?;
    servers
        .iter()
        .zip(weights)
        .map(|(server, w)| Ok((node_string(server)?, w as f64 / total as f64)))
        .collect()
}

/// `HashRing` with `replicas` points per server of average weight.
pub fn hash_ring(servers: &[ServerSpec], replicas: u32) -> Result<GeneratedPoints, Error> {
    let nodes = nodes(servers)?;
    let n = nodes.len() as f64;
    let counts: Vec<u64> = nodes
        .iter()
        .map(|(_, share)| php_round(share * n * f64::from(replicas)) as u64)
        .collect();
    let mut points = Vec::with_capacity(budget::check("predis", counts.iter().sum())?);
    for (index, ((node, _), &count)) in nodes.iter().zip(&counts).enumerate() {
        let mut prefix = node.clone();
        prefix.push(b':');
        push_crc32_points(&prefix, count, index as u32, &mut points);
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::AtOrBefore,
        prepare: Some(&hash_tags::PREDIS_TAG),
    })
}

/// `KetamaRing` with `replicas` points (a quarter as many digests) per
/// server of average weight.
pub fn ketama_ring(servers: &[ServerSpec], replicas: u32) -> Result<GeneratedPoints, Error> {
    let nodes = nodes(servers)?;
    let n = nodes.len() as f64;
    let digests: Vec<u64> = nodes
        .iter()
        .map(|(_, share)| (share * n * f64::from(replicas / 4)).floor() as u64)
        .collect();
    let count = digests
        .iter()
        .fold(0u64, |sum, &d| sum.saturating_add(d.saturating_mul(4)));
    let mut points = Vec::with_capacity(budget::check("predis", count)?);
    let mut batch = Md5Points::new(&mut points);
    for (index, ((node, _), &count)) in nodes.iter().zip(&digests).enumerate() {
        batch.push_server(node, count as u32, index as u32);
    }
    batch.finish();
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::AtOrAfter,
        prepare: Some(&hash_tags::PREDIS_TAG),
    })
}

/// PHP 8.2's `round($value)` (`_php_math_round` with 0 places): the value
/// is first rounded to 15 significant digits, then half away from zero, so
/// that a product such as `63.49999999999999` rounds as `63.5` would.
pub fn php_round(value: f64) -> f64 {
    if !value.is_finite() || value == 0.0 {
        return value;
    }
    let precision_places = 14 - value.abs().log10().floor() as i32;
    let rounded = if precision_places > 0 && precision_places < 15 {
        let scale = 10f64.powi(precision_places);
        round_half_away(value * scale) / scale
    } else if value.abs() >= 1e15 {
        return value;
    } else {
        value
    };
    round_half_away(rounded)
}

/// `php_round_helper` in `PHP_ROUND_HALF_UP` mode.
fn round_half_away(value: f64) -> f64 {
    if value >= 0.0 {
        (value + 0.5).floor()
    } else {
        (value - 0.5).ceil()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn php_round_pre_rounds() {
        assert_eq!(php_round(63.49999999999999), 64.0);
        assert_eq!(php_round(63.4999999), 63.0);
        assert_eq!(php_round(2.5), 3.0);
        assert_eq!(php_round(0.49), 0.0);
        assert_eq!(php_round(0.5), 1.0);
        assert_eq!(php_round(-2.5), -3.0);
        assert_eq!(php_round(1e16 + 2.0), 1e16 + 2.0);
    }

    #[test]
    fn node_strings_follow_the_connection_parameters() {
        let node = |s: ServerSpec| String::from_utf8(node_string(&s).unwrap()).unwrap();
        assert_eq!(node(ServerSpec::unweighted("10.0.0.1")), "10.0.0.1:6379");
        assert_eq!(node(ServerSpec::unweighted("[::1]:7000")), "::1:7000");
        let mut named = ServerSpec::unweighted("10.0.0.1:6379");
        named.name = Some(b"/tmp/redis.sock".to_vec());
        assert_eq!(node(named), "/tmp/redis.sock");
    }

    #[test]
    fn weights_share_the_replicas() {
        let servers = [
            ServerSpec::unweighted("a:1"),
            ServerSpec::new("b:1", 300),
            ServerSpec::new("c:1", 100),
        ];
        let points = hash_ring(&servers, 128).unwrap().points;
        let count = |s: u32| points.iter().filter(|p| p.1 == s).count();
        // 100/500 × 3 × 128 = 76.8, 300/500 × 3 × 128 = 230.4.
        assert_eq!((count(0), count(1), count(2)), (77, 230, 77));
        let points = ketama_ring(&servers, 160).unwrap().points;
        let count = |s: u32| points.iter().filter(|p| p.1 == s).count();
        // PHP: floor((100/500)*3*40) = 24, floor((300/500)*3*40) = 72.
        assert_eq!((count(0), count(1), count(2)), (4 * 24, 4 * 72, 4 * 24));
    }
}
