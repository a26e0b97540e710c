//! Perl Cache::Memcached::Fast 0.28 with `ketama_points => 150` (the value
//! its documentation gives), as read from `src/dispatch_key.c` and
//! `Fast.xs`:
//!
//! * the address is split at its last `:` into host and port (no `:`: the
//!   whole address is the host, the port empty);
//! * `(int)(150 × weight + 0.5)` points per server, the CRC-32 chain nginx
//!   also uses ([`push_crc32_chain`]);
//! * a point equal to an earlier one goes after it, and the lookup takes the
//!   first point ≥ the key's CRC-32, wrapping to the first: the first wins.
//!
//! With `ketama_points => 160` the placement is the `nginx` flavour's (for
//! addresses whose port is numeric). A `namespace` is hashed in front of the
//! key: give the library the namespaced key.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget::{self, MAX_POINTS};
use crate::placement::options::PointsOption;
use crate::placement::points::push_crc32_chain;
use crate::placement::servers::weights;
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `ketama_points => 150` unless set (`--points`): CRC-32 keys.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, options| {
        generate(servers, u64::from(POINTS.value(options)))
    })
    .with_points(POINTS);

/// `ketama_points` per unit of weight: 150 unless set.
pub const POINTS: PointsOption = PointsOption {
    peer_name: "ketama_points",
    default: 150,
    max: MAX_POINTS as u32,
};

/// Host and port as `Fast.xs` splits an address (`strrchr(host, ':')`).
pub fn host_and_port(address: &[u8]) -> (&[u8], &[u8]) {
    match address.iter().rposition(|&b| b == b':') {
        Some(colon) => (&address[..colon], &address[colon + 1..]),
        None => (address, b""),
    }
}

/// Generates Cache::Memcached::Fast's ketama continuum with
/// `ketama_points` points per unit of weight.
pub fn generate(servers: &[ServerSpec], ketama_points: u64) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let all = total.saturating_mul(ketama_points);
    let peer = format!("memcached-fast ({ketama_points} points per unit of weight)");
    let mut points = crate::prefault::vec_with_capacity(budget::check(&peer, all)?);
    for (index, (server, &weight)) in servers.iter().zip(&weights).enumerate() {
        let (host, port) = host_and_port(&server.address);
        push_crc32_chain(
            host,
            port,
            weight * ketama_points,
            index as u32,
            &mut points,
        );
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

    #[test]
    fn split_at_the_last_colon() {
        assert_eq!(
            host_and_port(b"10.0.0.1:11211"),
            (&b"10.0.0.1"[..], &b"11211"[..])
        );
        assert_eq!(
            host_and_port(b"[::1]:11211"),
            (&b"[::1]"[..], &b"11211"[..])
        );
        assert_eq!(
            host_and_port(b"/run/memcached.sock"),
            (&b"/run/memcached.sock"[..], &b""[..])
        );
    }

    #[test]
    fn with_160_points_it_is_nginx() {
        let servers: Vec<ServerSpec> = (1..=4)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), i))
            .collect();
        let fast = generate(&servers, 150).unwrap();
        assert_eq!(fast.points.len(), 150 * 10);
        let nginx = super::super::nginx::generate(&servers).unwrap();
        // The chain is the same; nginx just runs it 160 times per unit.
        let first_of_fast: Vec<u32> = fast.points.iter().take(150).map(|p| p.0).collect();
        let first_of_nginx: Vec<u32> = nginx.points.iter().take(150).map(|p| p.0).collect();
        assert_eq!(first_of_fast, first_of_nginx);
    }
}
