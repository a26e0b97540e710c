//! twemproxy (nutcracker) 0.5.0's ketama: labels `<name>-i` where the name is
//! the explicit name column when given, else `host` (port 11211) or
//! `host:port`; the shared float weight formula; always 4 points per MD5
//! digest (the configured hash only hashes keys). Ties: the earlier server.

use super::points::{HostPort, float_weighted_digests, push_md5_server, weights};
use super::{GeneratedPoints, KeyLookup};
use crate::continuum::TiePolicy;
use crate::{Error, ServerSpec};

/// Generates twemproxy's continuum.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let mut points = Vec::new();
    let mut per_server = Vec::with_capacity(servers.len());
    for (index, server) in servers.iter().enumerate() {
        let prefix = match &server.name {
            Some(name) => name.clone(),
            None => HostPort::parse(&server.address)?.without_default_port(),
        };
        let digests = float_weighted_digests(weights[index], total, servers.len());
        per_server.push(push_md5_server(&prefix, digests, index as u32, &mut points));
    }
    Ok(GeneratedPoints { points, per_server, ties: TiePolicy::FirstWins, lookup: KeyLookup::Direct })
}
