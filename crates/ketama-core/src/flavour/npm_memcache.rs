//! npm `memcache`, 1.6 and later (1.10.0 read) and up to 1.5 (1.5.0 read):
//! `dist/index.cjs`, its `src/ketama.ts` `HashRing` and `KetamaHash`, the
//! client's default distribution. The two differ only in the hash:
//!
//! * a node's key is its `id`: `host:port`, `[v6]:port` for an IPv6 host,
//!   a unix socket's path (the name column here);
//! * a node of weight `w` (`addNode(uri, w)`, 1 by default) gets
//!   `Math.round(w · 50)` points, the hashes of `"<id>\0<i>"` for `i` from
//!   that count down to 1;
//! * the hash is FNV-1a as the client computes it in JavaScript
//!   ([`js_fnv1a`](crate::hash::javascript::js_fnv1a)) from 1.6, the first
//!   four bytes of SHA-1 read as a signed number
//!   ([`js_sha1`](crate::hash::javascript::js_sha1)) up to 1.5: signed, so
//!   the ring is in signed order (the library flips the sign bit);
//! * a key goes to the first point at or after its hash (a binary search for
//!   the first `>=`), wrapping to the first point; of equal points the one
//!   sorted first, the earlier node's (`Array.prototype.sort` is stable).
//!
//! The client refuses empty keys, keys over `maxKeySize` (250) characters
//! and keys with blanks, newlines or NUL before it picks a node; the
//! library places them anyway (an invalid UTF-8 sequence is U+FFFD, as
//! `Buffer.toString` reads it).

use std::io::Write;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget;
use crate::placement::servers::{HostPort, refuse_duplicates, weights};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// Points per unit of weight (`HashRing.baseWeight`).
const BASE_WEIGHT: u64 = 50;

/// `new Memcache({ nodes })` from 1.6: the ketama ring of `KetamaHash`.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::JsFnv1a], |servers, hash, _| {
        generate(servers, hash)
    });

/// `new Memcache({ nodes })` up to 1.5: the same ring hashed with SHA-1.
pub static SHA1: Placement = Placement::continuum(&[HashAlgorithm::JsSha1], |servers, hash, _| {
    generate(servers, hash)
});

/// A node's `id`: the name column, else `host:port` (`[host]:port` for a
/// host with a colon).
pub fn node_id(server: &ServerSpec) -> Result<Vec<u8>, Error> {
    if let Some(name) = &server.name {
        return Ok(name.clone());
    }
    let at = HostPort::parse(&server.address)?;
    let mut id = Vec::with_capacity(at.host.len() + 8);
    if at.host.contains(&b':') {
        id.push(b'[');
        id.extend_from_slice(at.host);
        id.push(b']');
    } else {
        id.extend_from_slice(at.host);
    }
    write!(id, ":{}", at.port).expect("writing to a Vec cannot fail");
    Ok(id)
}

fn generate(servers: &[ServerSpec], hash: HashAlgorithm) -> Result<GeneratedPoints, Error> {
    let ids = servers.iter().map(node_id).collect::<Result<Vec<_>, _>>()?;
    let names: Vec<&[u8]> = ids.iter().map(Vec::as_slice).collect();
    refuse_duplicates(&names, "npm memcache")?;
    let (weights, _) = weights(servers)?;
    let counts: Vec<u64> = weights
        .iter()
        .map(|w| w.saturating_mul(BASE_WEIGHT))
        .collect();
    let total = counts.iter().fold(0u64, |sum, c| sum.saturating_add(*c));
    let mut points = Vec::with_capacity(budget::check("npm memcache", total)?);
    let mut label = Vec::new();
    for (index, (id, &count)) in ids.iter().zip(&counts).enumerate() {
        for i in (1..=count).rev() {
            label.clear();
            label.extend_from_slice(id);
            write!(label, "\0{i}").expect("writing to a Vec cannot fail");
            points.push((hash.hash(&label), index as u32));
        }
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
    use crate::hash::javascript::js_fnv1a_ordered;

    #[test]
    fn ids_and_labels() {
        let id = |a: &str| String::from_utf8(node_id(&ServerSpec::unweighted(a)).unwrap()).unwrap();
        assert_eq!(id("10.0.0.1:11211"), "10.0.0.1:11211");
        assert_eq!(id("[::1]:11211"), "[::1]:11211");
        let ring = generate(&[ServerSpec::new("a:1", 2)], HashAlgorithm::JsFnv1a).unwrap();
        assert_eq!(ring.points.len(), 100);
        assert_eq!(ring.points[0], (js_fnv1a_ordered(b"a:1\x00100"), 0));
        assert_eq!(ring.points[99], (js_fnv1a_ordered(b"a:1\x001"), 0));
    }
}
