//! Go groupcache's `consistenthash.Map` (Debian
//! `golang-github-golang-groupcache-dev`, 0.0~git20200121.8c9f03a), as its
//! `HTTPPool` builds it (`consistenthash.New(50, nil)`, then `Add(peers...)`);
//! go-redis v6's `Ring` used a copy of the same code.
//!
//! * each peer is hashed by its name as given (the name column, else the
//!   address as written; `HTTPPool` peers are base URLs such as
//!   `http://10.0.0.1:8080`);
//! * `replicas` points per peer (50 in `HTTPPool`), point `i` the CRC-32
//!   (`crc32.ChecksumIEEE`) of the decimal `i` *followed by* the name
//!   (`strconv.Itoa(i) + key`); no weights;
//! * keys: CRC-32; the first point ≥ the key's hash, wrapping to the first
//!   point;
//! * points are keys of a Go map: of equal points the peer added later
//!   wins.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget::{self, MAX_POINTS};
use crate::placement::options::PointsOption;
use crate::placement::servers::{name_or_address, refuse_weights};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `HTTPPool`'s `defaultReplicas`.
pub const DEFAULT_REPLICAS: u32 = 50;

/// `consistenthash.New(50, nil)`: CRC-32 points and keys; `replicas` set
/// with `--points`.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, options| {
        generate(servers, REPLICAS.value(options))
    })
    .with_points(REPLICAS);

/// `replicas` per peer: 50 (`HTTPPool`'s) unless set.
pub const REPLICAS: PointsOption = PointsOption {
    peer_name: "replicas",
    default: DEFAULT_REPLICAS,
    max: MAX_POINTS as u32,
};

/// The map with `replicas` points per peer.
pub fn generate(servers: &[ServerSpec], replicas: u32) -> Result<GeneratedPoints, Error> {
    consistenthash("groupcache", servers, replicas)
}

/// A `consistenthash.Map` of `replicas` points per name, as `peer` builds
/// it (its errors name `peer`): the points of [`generate`], no preparation.
pub fn consistenthash(
    peer: &str,
    servers: &[ServerSpec],
    replicas: u32,
) -> Result<GeneratedPoints, Error> {
    refuse_weights(servers, peer)?;
    let count = servers.len() as u64 * u64::from(replicas);
    let mut points = Vec::with_capacity(budget::check(peer, count)?);
    for (index, server) in servers.iter().enumerate() {
        let name = name_or_address(server);
        for i in 0..replicas {
            let mut label = crc32fast::Hasher::new();
            label.update(i.to_string().as_bytes());
            label.update(name);
            points.push((label.finalize(), index as u32));
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
    use super::*;

    #[test]
    fn labels_put_the_replica_number_first() {
        let servers = [ServerSpec::unweighted("http://10.0.0.1:8080")];
        let points = generate(&servers, 12).unwrap().points;
        assert_eq!(points.len(), 12);
        assert_eq!(
            points[11].0,
            crate::hash::crc::crc32(b"11http://10.0.0.1:8080")
        );
        assert!(generate(&[ServerSpec::new("a", 2)], 50).is_err());
    }
}
