//! The Varnish shard director (`directors.shard()`, Varnish 7.1,
//! `vmod/vmod_directors_shard_cfg.c` and `_shard_dir.c`):
//!
//! * each backend is known by its ident: `add_backend(be, ident="...")`,
//!   else the backend's VCL name. Here the ident is the server list's name
//!   column, else the address as written (as if `ident="HOST:PORT"`). A
//!   backend added again under an ident already present is skipped, as
//!   Varnish skips it (it takes no key);
//! * `replicas × weight` points per backend (`reconfigure(replicas=67)`;
//!   `--points`; a weight below 1 counts as 1; at most
//!   `(2^32 - 2) / backends` each): point `j` is the last four bytes,
//!   little-endian, of SHA-256(ident followed by `j` in decimal);
//! * sorted with glibc's `qsort` (a stable merge sort in Debian 12's
//!   glibc 2.36), equal points kept in backend order;
//! * the key is `shard.key(STRING)` (also `by=URL`): the same SHA-256 cut
//!   of the string (`--hash key`, the default); `by=HASH` in a backend
//!   fetch reads the first four bytes, big-endian, of the request's digest,
//!   the SHA-256 of what `vcl_hash` fed `hash_data()`, each call followed
//!   by a NUL byte (`--hash hash`: the library adds the last NUL; for
//!   several calls give their strings joined by NUL bytes);
//! * the first point ≥ the key, and **no wrap**: a key past the last point
//!   goes to the last point ([`Search::NoWrap`]);
//!   a key equal to several points takes the one Varnish's bisection
//!   (`shard_lookup`) meets first ([`crate::search::no_wrap::bisect`]). A
//!   backend that is down passes the key to the next point's backend,
//!   walking on and wrapping around.

use std::collections::HashSet;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm as H;
use crate::hash::sha256::sha256;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget::{self, MAX_POINTS};
use crate::placement::options::PointsOption;
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `shard.key()` / `by=URL` first, `by=HASH` second.
const HASHES: &[H] = &[H::Sha256Last4Le, H::VarnishDigest];

/// The shard director's `by=` values as its users write them.
const SPELLINGS: &[(&str, H)] = &[
    ("key", H::Sha256Last4Le),
    ("url", H::Sha256Last4Le),
    ("hash", H::VarnishDigest),
];

/// The shard director, `replicas` 67 unless set.
pub static PLACEMENT: Placement = Placement::continuum(HASHES, |servers, _, options| {
    generate(servers, REPLICAS.value(options))
})
.with_spellings(SPELLINGS)
.with_points(REPLICAS);

/// `reconfigure(replicas)`: 67 unless set.
pub const REPLICAS: PointsOption = PointsOption {
    peer_name: "replicas",
    default: 67,
    max: MAX_POINTS as u32,
};

/// Each server's ident: the name column, else the address as written.
pub fn ident(server: &ServerSpec) -> &[u8] {
    server.name.as_deref().unwrap_or(&server.address)
}

/// Generates the shard director's hash circle with `replicas` points per
/// unit of weight.
pub fn generate(servers: &[ServerSpec], replicas: u32) -> Result<GeneratedPoints, Error> {
    let mut seen = HashSet::new();
    let kept: Vec<bool> = servers.iter().map(|s| seen.insert(ident(s))).collect();
    let backends = seen.len() as u64;
    let rmax = (u64::from(u32::MAX) - 1) / backends.max(1);
    let counts: Vec<u64> = servers
        .iter()
        .zip(&kept)
        .map(|(server, &kept)| match kept {
            false => 0,
            true => {
                let weight = server.weight.unwrap_or(1).max(1);
                (u64::from(replicas).saturating_mul(weight))
                    .min(u64::from(u32::MAX))
                    .min(rmax)
            }
        })
        .collect();
    let total = counts.iter().fold(0u64, |a, &c| a.saturating_add(c));
    let peer = format!("varnish-shard ({replicas} replicas per unit of weight)");
    let mut points = crate::prefault::vec_with_capacity(budget::check(&peer, total)?);
    let mut label = Vec::new();
    for (index, (server, &count)) in servers.iter().zip(&counts).enumerate() {
        let ident = ident(server);
        for j in 0..count {
            label.clear();
            label.extend_from_slice(j.to_string().as_bytes());
            let digest = sha256(&[ident, &label]);
            let point = u32::from_le_bytes([digest[28], digest[29], digest[30], digest[31]]);
            points.push((point, index as u32));
        }
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::NoWrap,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn points_are_sha256_of_ident_and_replica() {
        let mut named = ServerSpec::new("127.0.0.1:8080", 2);
        named.name = Some(b"be_a".to_vec());
        let plain = ServerSpec::unweighted("127.0.0.1:8081");
        let again = named.clone();
        let generated = generate(&[named, plain, again], 3).unwrap();
        assert_eq!(
            generated.points.len(),
            6 + 3,
            "the repeated ident is skipped"
        );
        assert_eq!(
            generated.points[4].0,
            crate::hash::sha256::last4_le(b"be_a4")
        );
        assert_eq!(
            generated.points[6],
            (crate::hash::sha256::last4_le(b"127.0.0.1:80810"), 1)
        );
    }
}
