//! twemproxy (nutcracker) 0.5.0's ketama: labels `<name>-i` where the name is
//! the explicit name column when given, else `host` (port 11211) or
//! `host:port`; the shared float weight formula; always 4 points per MD5
//! digest (the configured hash only hashes keys). Ties: the earlier server.
//! Like nutcracker, two servers with the same name are an error.

use super::points::{HostPort, float_weighted_digests, push_md5_server, weights};
use super::{GeneratedPoints, KeyLookup};
use crate::continuum::TiePolicy;
use crate::{Error, ServerSpec};

use super::placement::Placement;
use crate::hash::HashAlgorithm as H;

/// `distribution: ketama`: FNV-1a 64 by default; its `crc32` is the 15-bit crc.
pub static PLACEMENT: Placement = Placement::continuum(
    &[
        H::Fnv1a64,
        H::Md5,
        H::Crc,
        H::Crc32,
        H::OneAtATime,
        H::Fnv1_64,
        H::Fnv1_32,
        H::Fnv1a32,
        H::Hsieh,
        H::Murmur,
        H::Jenkins,
        H::Crc16,
    ],
    |servers, _| generate(servers),
)
.with_spellings(&[("crc32", H::Crc)]);

/// Generates twemproxy's continuum.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let mut points = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (index, server) in servers.iter().enumerate() {
        let prefix = match &server.name {
            Some(name) => name.clone(),
            None => HostPort::parse(&server.address)?.without_default_port(),
        };
        if !seen.insert(prefix.clone()) {
            return Err(Error::InvalidArgument(format!(
                "twemproxy: two servers are named '{}' (nutcracker rejects such a pool)",
                String::from_utf8_lossy(&prefix)
            )));
        }
        let digests = float_weighted_digests(weights[index], total, servers.len());
        push_md5_server(&prefix, digests, index as u32, &mut points);
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        lookup: KeyLookup::Direct,
    })
}
