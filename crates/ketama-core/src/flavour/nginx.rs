//! nginx's `hash $key consistent` (ngx_http_upstream_hash_module), as read
//! from `ngx_http_upstream_update_chash` and `find_chash_point`:
//!
//! * each server's text as written in its `server` directive is split into
//!   host and port at the last `:` followed only by digits (`unix:PATH` is
//!   the path, no port);
//! * `160 × weight` points (not relative to the total): point `j` is the
//!   CRC-32 of `host \0 port` followed by the four little-endian bytes of
//!   point `j-1` (0 for the first);
//! * sorted (glibc's stable sort), equal points deduplicated keeping the
//!   first; keys are hashed with the full CRC-32; the first point ≥ the
//!   hash, wrapping to the first.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::parser::ParseMode;
use crate::placement::Placement;
use crate::placement::points::push_crc32_chain;
use crate::placement::servers::weights;
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `hash $key consistent`: CRC-32 keys, servers from `upstream` blocks.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, _| generate(servers))
        .with_syntax(ParseMode::Strict, ParseMode::Nginx);

/// Points per unit of weight.
const POINTS_PER_WEIGHT: u64 = 160;

/// The host and port nginx hashes for a server's text.
pub fn host_and_port(server: &[u8]) -> (&[u8], &[u8]) {
    if server.len() >= 5 && server[..5].eq_ignore_ascii_case(b"unix:") {
        return (&server[5..], b"");
    }
    for (j, &c) in server.iter().rev().enumerate() {
        if c == b':' {
            let colon = server.len() - j - 1;
            return (&server[..colon], &server[colon + 1..]);
        }
        if !c.is_ascii_digit() {
            break;
        }
    }
    (server, b"")
}

/// Generates nginx's consistent-hash points.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let all = total.saturating_mul(POINTS_PER_WEIGHT);
    let mut points = crate::prefault::vec_with_capacity(budget::check(
        "nginx (160 points per unit of weight)",
        all,
    )?);
    for (index, (server, &weight)) in servers.iter().zip(&weights).enumerate() {
        let (host, port) = host_and_port(&server.address);
        push_crc32_chain(
            host,
            port,
            weight * POINTS_PER_WEIGHT,
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
    fn host_and_port_as_nginx_splits_them() {
        for (server, host, port) in [
            ("127.0.0.1:8081", "127.0.0.1", "8081"),
            ("127.0.0.1", "127.0.0.1", ""),
            ("[::1]:11211", "[::1]", "11211"),
            ("backend.example:", "backend.example", ""),
            ("UNIX:/run/app.sock", "/run/app.sock", ""),
            ("cache", "cache", ""),
        ] {
            assert_eq!(
                host_and_port(server.as_bytes()),
                (host.as_bytes(), port.as_bytes()),
                "{server}"
            );
        }
    }

    #[test]
    fn points_chain_through_the_previous_hash() {
        let generated = generate(&[ServerSpec::new("10.0.0.1:80", 1)]).unwrap();
        assert_eq!(generated.points.len(), 160);
        let first = crc32fast::hash(b"10.0.0.1\x0080\x00\x00\x00\x00");
        assert_eq!(generated.points[0].0, first);
        let mut second = b"10.0.0.1\x0080".to_vec();
        second.extend_from_slice(&first.to_le_bytes());
        assert_eq!(generated.points[1].0, crc32fast::hash(&second));
    }
}
