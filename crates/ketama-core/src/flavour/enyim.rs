//! EnyimMemcached's `DefaultNodeLocator` (.NET, `enyim/EnyimMemcached`,
//! `Enyim.Caching/Memcached/Locators/DefaultNodeLocator.cs`; the same rule
//! is EnyimMemcachedCore's `LegacyNodeLocator`, `UseLegacyNodeLocator`)
//! and EnyimMemcachedCore's `DefaultNodeLocator` since January 2024
//! ([`CORE`]). Both:
//!
//! * 100 points per server (`ServerAddressMutations`; EnyimMemcachedCore
//!   takes another count through `DefaultNodeLocatorFactory`), each the
//!   FNV-1a 32 of a label made from the node's `EndPoint.ToString()`: an
//!   `IPEndPoint` prints `10.0.0.1:11211` or `[2001:db8::10]:11211`
//!   (RFC 5952 form), EnyimMemcachedCore's `DnsEndPoint` for a host name
//!   `Unspecified/cache-a:11211`; no weights;
//! * sorted as unsigned 32-bit numbers; of equal points the later server's
//!   (a dictionary keyed by point);
//! * a key's UTF-8 bytes are hashed, then `Array.BinarySearch`: a point
//!   equal to the hash, else the first point above it; a hash above every
//!   point takes the first point, and one *below* every point the *last*
//!   ([`Search::LowToLast`]). A dead node is dropped and the points rebuilt.
//!
//! They differ in the labels and in the FNV-1a state ([`crate::hash::enyim`]):
//!
//! * [`LEGACY`] (`enyim`): labels `"<endpoint>-<i>"`; `FNV1a` is a .NET
//!   `HashAlgorithm` never initialized by its constructor, so the first
//!   hash an instance computes starts from 0, the next ones from the offset
//!   basis. One instance per node hashes its labels: label 0 from 0, labels
//!   1 to 99 from the basis; a new instance per key: keys from 0
//!   (`enyim_fnv1a`).
//! * [`CORE`] (`enyim-core`): labels `"<i>-<endpoint>"`, every hash from
//!   the offset basis (`fnv1a_32_bytes`).

use std::net::IpAddr;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::hash::enyim::{fnv1a_basis, fnv1a_uninitialized};
use crate::placement::Placement;
use crate::placement::options::PointsOption;
use crate::placement::servers::{HostPort, refuse_weights};
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `ServerAddressMutations`: points per server.
pub const MUTATIONS: PointsOption = PointsOption {
    peer_name: "serverAddressMutations",
    default: 100,
    max: 1 << 20,
};

/// EnyimMemcached's `DefaultNodeLocator` (EnyimMemcachedCore's
/// `LegacyNodeLocator`).
pub static LEGACY: Placement =
    Placement::continuum(&[HashAlgorithm::EnyimFnv1a], |servers, _, options| {
        generate(servers, Labels::Legacy, points(options))
    })
    .with_points(MUTATIONS);

/// EnyimMemcachedCore's `DefaultNodeLocator`.
pub static CORE: Placement =
    Placement::continuum(&[HashAlgorithm::Fnv1a32Bytes], |servers, _, options| {
        generate(servers, Labels::Core, points(options))
    })
    .with_points(MUTATIONS);

fn points(options: &crate::placement::options::Options) -> u32 {
    options.points.unwrap_or(MUTATIONS.default)
}

/// Which locator's labels and FNV-1a state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Labels {
    /// `"<endpoint>-<i>"`, label 0 hashed from 0.
    Legacy,
    /// `"<i>-<endpoint>"`, all from the offset basis.
    Core,
}

/// `EndPoint.ToString()` of the node for a server written `HOST:PORT` or
/// `[IPV6]:PORT`.
pub fn endpoint(server: &ServerSpec) -> Result<String, Error> {
    let hp = HostPort::parse(&server.address)?;
    let host = String::from_utf8_lossy(hp.host);
    Ok(match host.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => format!("{v4}:{}", hp.port),
        Ok(IpAddr::V6(v6)) => format!("[{v6}]:{}", hp.port),
        Err(_) => format!("Unspecified/{host}:{}", hp.port),
    })
}

/// The point of label `i` of a node whose endpoint prints `endpoint`.
pub fn point(labels: Labels, endpoint: &str, i: u32) -> u32 {
    match labels {
        Labels::Legacy => {
            let label = format!("{endpoint}-{i}");
            match i {
                0 => fnv1a_uninitialized(label.as_bytes()),
                _ => fnv1a_basis(label.as_bytes()),
            }
        }
        Labels::Core => fnv1a_basis(format!("{i}-{endpoint}").as_bytes()),
    }
}

/// Generates either locator's points, `mutations` per server.
pub fn generate(
    servers: &[ServerSpec],
    labels: Labels,
    mutations: u32,
) -> Result<GeneratedPoints, Error> {
    refuse_weights(servers, "EnyimMemcached")?;
    let count = servers.len() as u64 * u64::from(mutations);
    let mut points = crate::prefault::vec_with_capacity(budget::check("EnyimMemcached", count)?);
    for (index, server) in servers.iter().enumerate() {
        let endpoint = endpoint(server)?;
        for i in 0..mutations {
            points.push((point(labels, &endpoint, i), index as u32));
        }
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::LowToLast,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_print_as_dotnet_prints_them() {
        let ep = |a: &str| endpoint(&ServerSpec::unweighted(a)).unwrap();
        assert_eq!(ep("10.0.1.1:11211"), "10.0.1.1:11211");
        assert_eq!(ep("[2001:db8:0:0::10]:11300"), "[2001:db8::10]:11300");
        assert_eq!(ep("cache-a:11211"), "Unspecified/cache-a:11211");
    }

    #[test]
    fn only_the_first_legacy_label_starts_from_zero() {
        let e = "10.0.1.1:11211";
        assert_eq!(
            point(Labels::Legacy, e, 0),
            fnv1a_uninitialized(b"10.0.1.1:11211-0")
        );
        assert_eq!(
            point(Labels::Legacy, e, 1),
            fnv1a_basis(b"10.0.1.1:11211-1")
        );
        assert_eq!(point(Labels::Core, e, 0), fnv1a_basis(b"0-10.0.1.1:11211"));
    }
}
