//! PyPI `hashring` 1.5.1 (`hashring.HashRing`) and the Python 2 package it
//! continues, `hash_ring` 1.3.1 (`hash_ring.HashRing`, the same ring):
//!
//! * nodes are named by `str(node)`: the name column, else the address as
//!   written; `weights` is a `{node: weight}` dictionary, 1 for a node not
//!   in it; two servers of one name would be one node and are refused;
//! * node `i` gets `floor(40 · n · wᵢ / Σw)` MD5 digests of `"<node>-<j>"`,
//!   j counting from 0, and takes **three** little-endian points of each
//!   (bytes 0–3, 4–7, 8–11; libketama takes four);
//! * a key's position is the first four bytes of the MD5 of its UTF-8 text
//!   (little-endian); it goes to the first point strictly greater
//!   (`bisect`), wrapping to the first point;
//! * the points are keys of a dictionary: of equal points the node
//!   generated later keeps it.
//!
//! `hashring` computes the digest count as `math.floor` of a float
//! division, `hash_ring` with Python 2's integer division: the same number
//! for every weight sum below 2^53. Keys are text to both (Python 3
//! encodes the `str` as UTF-8); the library hashes the key's bytes.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget;
use crate::placement::points::Md5Points;
use crate::placement::servers::{name_or_address, refuse_duplicates, weights};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// Digests per node of average weight.
const DIGESTS: u64 = 40;

/// Points taken from each digest.
const POINTS_PER_DIGEST: usize = 3;

/// `HashRing(nodes, weights)`.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Md5], |servers, _, _| generate(servers));

/// `floor(40 · n · w / total)` as Python 3 computes it: the true quotient
/// of the two integers, then its floor.
fn digests(weight: u64, total: u64, nodes: usize) -> u64 {
    let numerator = DIGESTS as f64 * nodes as f64 * weight as f64;
    (numerator / total as f64).floor() as u64
}

/// The ring: three points per digest, in generation order.
fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let names: Vec<&[u8]> = servers.iter().map(name_or_address).collect();
    refuse_duplicates(&names, "hashring")?;
    let (weights, total) = weights(servers)?;
    let counts: Vec<u64> = weights
        .iter()
        .map(|&w| digests(w, total, servers.len()))
        .collect();
    let digests_in_all = counts.iter().sum::<u64>();
    let all = budget::check("hashring", digests_in_all.saturating_mul(3))?;
    let mut four = Vec::with_capacity(all / 3 * 4);
    let mut batch = Md5Points::new(&mut four);
    for (index, (name, &count)) in names.iter().zip(&counts).enumerate() {
        // Within the budget checked above, so within `u32`.
        batch.push_server(name, count as u32, index as u32);
    }
    batch.finish();
    // Md5Points appends the four words of each digest in turn: keep three.
    let points = four
        .chunks_exact(4)
        .flat_map(|digest| digest[..POINTS_PER_DIGEST].iter().copied())
        .collect();
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::After,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_follow_the_float_floor() {
        assert_eq!(digests(1, 3, 3), 40);
        assert_eq!(digests(1, 6, 3), 20);
        assert_eq!(digests(3, 6, 3), 60);
        // 40 · 3 · 1 / 7 = 17.14…
        assert_eq!(digests(1, 7, 3), 17);
    }

    #[test]
    fn three_points_per_digest_of_the_node_labels() {
        let servers = [ServerSpec::new("10.0.0.1:11211", 1)];
        let ring = generate(&servers).unwrap();
        assert_eq!(ring.points.len(), 40 * 3);
        let digest = crate::hash::md5_digest(b"10.0.0.1:11211-0");
        let word = |i: usize| u32::from_le_bytes(digest[4 * i..4 * i + 4].try_into().unwrap());
        assert_eq!(ring.points[..3], [(word(0), 0), (word(1), 0), (word(2), 0)]);
        let digest = crate::hash::md5_digest(b"10.0.0.1:11211-1");
        assert_eq!(
            ring.points[3].0,
            u32::from_le_bytes(digest[..4].try_into().unwrap())
        );
    }
}
