//! Netflix EVCache's `EVCacheNodeLocator` with its
//! `EVCacheKetamaNodeLocatorConfiguration` (`evcache-core`, `pool/`), as
//! every EVCache connection factory builds it (always `KETAMA_HASH`):
//!
//! * node key: `getHostName() + "/" + getHostAddress() + ":11211"`, the
//!   port of the node never in it: a server written `name/ip:port` has the
//!   key `name/ip:11211`; an IP literal written `ip:port` the key
//!   `ip/ip:11211` (what EVCache shows for VPC instances, whose host name is
//!   their IP); IPv6 in Java's full form (`0:0:0:0:0:0:0:1`). A bare host
//!   name without its IP is refused: EVCache takes both from the resolved
//!   address, and the library never resolves;
//! * `bucket.size` repetitions (default 160, spymemcached's): labels
//!   `"<node key>-<i>"` for i < bucket.size / 4, each MD5 digest four
//!   points (spymemcached's layout); no weights;
//! * keys: MD5 of the key (the key the locator is given, after EVCache's
//!   own prefixing or hashing of it), the first point at or after it,
//!   wrapping to the first; of equal points the later node's (`TreeMap.put`).

use std::net::{IpAddr, Ipv6Addr};

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::options::PointsOption;
use crate::placement::points::Md5Points;
use crate::placement::servers::{HostPort, refuse_weights};
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// The port EVCache writes into every node key.
pub const KEY_PORT: u16 = 11211;

/// `<app>.bucket.size`: repetitions per node, spymemcached's 160 unless set.
pub const BUCKET_SIZE: PointsOption = PointsOption {
    peer_name: "bucket.size",
    default: 160,
    max: 1 << 20,
};

/// `EVCacheNodeLocator` with `KetamaMd5HashRingAlgorithm`.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Md5], |servers, _, options| {
        generate(servers, options.points.unwrap_or(BUCKET_SIZE.default))
    })
    .with_points(BUCKET_SIZE);

/// Java's `Inet6Address.getHostAddress()`: eight groups in hex, no `::`.
fn java_v6(ip: &Ipv6Addr) -> String {
    let groups: Vec<String> = ip.segments().iter().map(|s| format!("{s:x}")).collect();
    groups.join(":")
}

/// The node key of a server (the label prefix before `-<i>`).
pub fn node_key(server: &ServerSpec) -> Result<Vec<u8>, Error> {
    let hp = HostPort::parse(&server.address)?;
    let host = String::from_utf8_lossy(hp.host);
    let (name, ip) = match host.rsplit_once('/') {
        Some((name, ip)) => (Some(name), ip),
        None => (None, host.as_ref()),
    };
    let address = match ip.parse::<IpAddr>() {
        Ok(IpAddr::V4(v4)) => v4.to_string(),
        Ok(IpAddr::V6(v6)) => java_v6(&v6),
        Err(_) => {
            return Err(Error::InvalidArgument(format!(
                "evcache: server '{}' gives no IP address; write it NAME/IP:PORT or IP:PORT \
                 (EVCache's node key is the host name and the IP of the resolved address)",
                String::from_utf8_lossy(&server.address)
            )));
        }
    };
    let name = match name {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => address.clone(),
    };
    Ok(format!("{name}/{address}:{KEY_PORT}").into_bytes())
}

/// Generates EVCache's continuum with `bucket_size` repetitions per node.
pub fn generate(servers: &[ServerSpec], bucket_size: u32) -> Result<GeneratedPoints, Error> {
    refuse_weights(servers, "evcache")?;
    let digests = bucket_size / 4;
    let count = servers.len() as u64 * u64::from(digests) * 4;
    let mut points = crate::prefault::vec_with_capacity(budget::check("evcache", count)?);
    let keys = servers
        .iter()
        .map(node_key)
        .collect::<Result<Vec<_>, _>>()?;
    let mut batch = Md5Points::new(&mut points);
    for (index, key) in keys.iter().enumerate() {
        batch.push_server(key, digests, index as u32);
    }
    batch.finish();
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
    fn node_keys_carry_name_ip_and_11211() {
        let key = |a: &str| String::from_utf8(node_key(&ServerSpec::unweighted(a)).unwrap());
        assert_eq!(
            key("ec2-1.example/10.1.2.3:11311").unwrap(),
            "ec2-1.example/10.1.2.3:11211"
        );
        assert_eq!(key("10.1.2.3:22122").unwrap(), "10.1.2.3/10.1.2.3:11211");
        assert_eq!(
            key("[::1]:11211").unwrap(),
            "0:0:0:0:0:0:0:1/0:0:0:0:0:0:0:1:11211"
        );
        assert!(node_key(&ServerSpec::unweighted("cache-a:11211")).is_err());
    }

    #[test]
    fn bucket_size_is_cut_to_whole_digests() {
        let servers = [ServerSpec::unweighted("10.0.0.1:11211")];
        assert_eq!(generate(&servers, 160).unwrap().points.len(), 160);
        assert_eq!(generate(&servers, 102).unwrap().points.len(), 100);
        assert_eq!(generate(&servers, 3).unwrap().points.len(), 0);
    }
}
