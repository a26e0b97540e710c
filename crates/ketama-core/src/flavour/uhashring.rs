//! Python uhashring 2.1 (Debian `python3-uhashring`), `HashRing(nodes)` in
//! its default mode and with `hash_fn='ketama'`:
//!
//! * nodes are named as given (the name column, else the address as
//!   written); a node's `weight` is an integer, 1 when none is given; two
//!   servers of one name would be one node to uhashring and are refused;
//! * default (`MetaRing`): `vnodes × weight` points per node (`vnodes` 160),
//!   each the whole 128-bit MD5 of `"<name>-<w>"` read as a big-endian
//!   integer; a key's position is the 128-bit MD5 of its text. Not a 32-bit
//!   continuum: a per-key placement on a [`WideRing`];
//! * ketama (`KetamaRing`): `(vnodes × n × weight) // total` MD5 digests per
//!   node (`vnodes` 40), four little-endian points each (libketama's), the
//!   key at the first four bytes of its MD5;
//! * both: a key goes to the first point *strictly greater* than its
//!   position (`bisect_right`), wrapping to the first point; points are keys
//!   of a dictionary, so of equal points the later node's is kept.
//!
//! Keys are text: the library hashes the key's bytes, uhashring `str(key)`
//! encoded as UTF-8 (the same bytes for UTF-8 keys).

use std::sync::Arc;

use crate::continuum::TiePolicy;
use crate::hash::{HashAlgorithm, md5_digest};
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget::{self, MAX_POINTS};
use crate::placement::options::PointsOption;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::placement::points::Md5Points;
use crate::placement::servers::{name_or_address, refuse_duplicates};
use crate::placement::wide_ring::{WideRing, WideSearch};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// The default ring's `vnodes`.
pub const VNODES: u32 = 160;

/// The ketama ring's `vnodes` (digests; four points each).
pub const KETAMA_VNODES: u32 = 40;

/// `HashRing(nodes)`: a 128-bit MD5 ring; `vnodes` set with `--points`.
pub static PLACEMENT: Placement = Placement::per_key(&[HashAlgorithm::Md5], |servers, options| {
    Ok(Arc::new(Uhashring::new(servers, DEFAULT_VNODES.value(options))?) as PerKey)
})
.with_points(DEFAULT_VNODES);

/// `HashRing(nodes, hash_fn='ketama')`; `vnodes` set with `--points`.
pub static KETAMA: Placement =
    Placement::continuum(&[HashAlgorithm::Md5], |servers, _, options| {
        ketama(servers, KETAMA_VNODES_OPTION.value(options))
    })
    .with_points(KETAMA_VNODES_OPTION);

/// The default ring's `vnodes` per unit of weight: 160 unless set.
pub const DEFAULT_VNODES: PointsOption = PointsOption {
    peer_name: "vnodes",
    default: VNODES,
    max: MAX_POINTS as u32,
};

/// The ketama ring's `vnodes` (MD5 digests of four points) per node of
/// average weight: 40 unless set.
pub const KETAMA_VNODES_OPTION: PointsOption = PointsOption {
    peer_name: "vnodes",
    default: KETAMA_VNODES,
    max: (MAX_POINTS / 4) as u32,
};

/// Each node's name and weight, checked.
fn nodes(servers: &[ServerSpec]) -> Result<Vec<(&[u8], u64)>, Error> {
    let names: Vec<&[u8]> = servers.iter().map(name_or_address).collect();
    refuse_duplicates(&names, "uhashring")?;
    let (weights, _) = crate::placement::servers::weights(servers)?;
    Ok(names.into_iter().zip(weights).collect())
}

/// The ketama-compatible ring with `vnodes` digests per node of average
/// weight.
pub fn ketama(servers: &[ServerSpec], vnodes: u32) -> Result<GeneratedPoints, Error> {
    let nodes = nodes(servers)?;
    let total = u128::from(nodes.iter().map(|(_, w)| w).sum::<u64>());
    let n = nodes.len() as u128;
    let digests: Vec<u128> = nodes
        .iter()
        .map(|(_, w)| u128::from(vnodes) * n * u128::from(*w) / total)
        .collect();
    let total_points = digests.iter().sum::<u128>().saturating_mul(4);
    let total_points = budget::check("uhashring", u64::try_from(total_points).unwrap_or(u64::MAX))?;
    let mut points = Vec::with_capacity(total_points);
    let mut batch = Md5Points::new(&mut points);
    for (index, ((name, _), count)) in nodes.iter().zip(digests).enumerate() {
        batch.push_server(name, count as u32, index as u32);
    }
    batch.finish();
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::After,
        prepare: None,
    })
}

/// uhashring's default ring: 128-bit MD5 points.
#[derive(Debug, Clone)]
pub struct Uhashring {
    ring: WideRing<16>,
}

impl Uhashring {
    /// The ring of `servers` with `vnodes` points per unit of weight.
    pub fn new(servers: &[ServerSpec], vnodes: u32) -> Result<Self, Error> {
        let nodes = nodes(servers)?;
        let total = nodes
            .iter()
            .try_fold(0u64, |sum, (_, w)| {
                sum.checked_add(w.checked_mul(u64::from(vnodes))?)
            })
            .unwrap_or(u64::MAX);
        let mut generated = Vec::with_capacity(budget::check("uhashring", total)?);
        let mut label = Vec::new();
        for (index, (name, weight)) in nodes.iter().enumerate() {
            for w in 0..u64::from(vnodes) * weight {
                label.clear();
                label.extend_from_slice(name);
                label.extend_from_slice(format!("-{w}").as_bytes());
                generated.push((md5_digest(&label), index as u32));
            }
        }
        Ok(Uhashring {
            ring: WideRing::new(generated, WideSearch::After),
        })
    }
}

impl PerKeyPlacement for Uhashring {
    fn describe(&self) -> &'static str {
        "a ring of 128-bit MD5 points"
    }

    fn heap_bytes(&self) -> usize {
        self.ring.heap_bytes()
    }

    fn locate(
        &self,
        key: &[u8],
        _hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        self.ring.locate(&md5_digest(key), is_down)
    }

    /// Straight to [`Self::locate`]: a 32-bit key hash places nothing here.
    fn locate_up(&self, key: &[u8], hash: HashAlgorithm) -> Option<Location> {
        self.locate(key, hash, &|_| false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ketama_digests_use_integer_division() {
        let servers = [
            ServerSpec::new("a", 1),
            ServerSpec::new("b", 2),
            ServerSpec::new("c", 4),
        ];
        let points = ketama(&servers, 40).unwrap().points;
        let count = |s: u32| points.iter().filter(|p| p.1 == s).count() / 4;
        // (40 × 3 × w) // 7
        assert_eq!((count(0), count(1), count(2)), (17, 34, 68));
    }

    #[test]
    fn names_must_differ() {
        let servers = [ServerSpec::unweighted("a:1"), ServerSpec::unweighted("a:1")];
        assert!(Uhashring::new(&servers, 160).is_err());
        assert!(ketama(&servers, 40).is_err());
    }
}
