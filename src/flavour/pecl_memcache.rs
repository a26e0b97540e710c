//! pecl memcache 4.0.5's consistent strategy: `160 × weight` points per
//! server, each `hash("host:port-i")` with the configured hash (full CRC-32
//! or FNV-1a 32), and a 1024-bucket lookup ([`KeyLookup::PeclBuckets`]).

use super::points::{HostPort, push_hashed_server, weights};
use super::{GeneratedPoints, KeyLookup};
use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::{Error, ServerSpec};

/// Points per unit of weight.
const POINTS_PER_WEIGHT: u64 = 160;

/// Generates pecl memcache's continuum.
pub fn generate(servers: &[ServerSpec], hash: HashAlgorithm) -> Result<GeneratedPoints, Error> {
    let (weights, _) = weights(servers)?;
    let mut points = Vec::new();
    let mut per_server = Vec::with_capacity(servers.len());
    for (index, server) in servers.iter().enumerate() {
        let count = weights[index]
            .checked_mul(POINTS_PER_WEIGHT)
            .and_then(|c| u32::try_from(c).ok())
            .filter(|&c| c <= 1 << 24)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "server '{}': weight {} is too large for pecl memcache (160 points per unit)",
                    String::from_utf8_lossy(&server.address),
                    weights[index]
                ))
            })?;
        let prefix = HostPort::parse(&server.address)?.with_port();
        per_server.push(push_hashed_server(&prefix, count, hash, index as u32, &mut points));
    }
    Ok(GeneratedPoints { points, per_server, ties: TiePolicy::FirstWins, lookup: KeyLookup::PeclBuckets })
}
