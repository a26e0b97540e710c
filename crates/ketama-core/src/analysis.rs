//! Capacity planning: how a ring spreads the keyspace over its servers, and
//! how much of the keyspace moves between two rings (migration planning,
//! also between two flavours).
//!
//! Shares are exact when every ring involved is a continuum and they all
//! hash keys the same way: the key-hash circle is cut at every point, and
//! each arc is credited to the server the ring's own lookup returns for it.
//! They are exact too for tables looked up by the key hash (slot maps,
//! [`PerKeyPlacement::hash_table`](crate::placement::per_key::PerKeyPlacement::hash_table))
//! of one flavour, key hash, options and length: entry by entry.
//! Otherwise (a per-key placement, or two different key hashes or key
//! preparations, so that one position on the circle is not one set of keys)
//! shares are measured on a sample of keys: the caller's, or
//! [`default_sample`].

use crate::Ring;
use crate::search::Keyspace;

/// Keys in the default sample (see [`default_sample`]).
pub const DEFAULT_SAMPLE_KEYS: usize = 100_000;

/// The default key sample: `key:0`, `key:1`, …, `key:99999`
/// ([`DEFAULT_SAMPLE_KEYS`] keys).
pub fn default_sample() -> impl Iterator<Item = Vec<u8>> {
    (0..DEFAULT_SAMPLE_KEYS).map(|i| format!("key:{i}").into_bytes())
}

/// How a share or a movement was measured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Measure {
    /// Exactly, over the whole key-hash circle.
    Exact,
    /// On a sample of this many keys.
    Sampled(usize),
}

/// True when comparing `old` and `new` is exact: two tables of one length
/// looked up alike (slot maps), or two continuums that hash the same
/// prepared key to the same position (the same key hash and the same
/// [`Preparation`](crate::placement::prepare::Preparation)), and whose
/// searches divide the circle alike.
pub fn exactly_comparable(old: &Ring, new: &Ring) -> bool {
    if tables_comparable(old, new).is_some() {
        return true;
    }
    match (old.search(), new.search()) {
        (Some(a), Some(b)) => {
            old.key_hash() == new.key_hash()
                && old.preparation() == new.preparation()
                && a.overlays(b)
        }
        _ => false,
    }
}

/// The table a ring looks keys up in by their hash (a slot map), when it
/// is one; `None` for continuums and other placements.
fn hash_table(ring: &Ring) -> Option<&[u32]> {
    ring.per_key()?
        .hash_table()
        .filter(|table| table.len().is_power_of_two())
}

/// True when `old` and `new` are tables of one length looked up by the same
/// prepared key hash (one flavour, key hash and options): compared entry by
/// entry, exactly.
fn tables_comparable<'r>(old: &'r Ring, new: &'r Ring) -> Option<(&'r [u32], &'r [u32])> {
    let (a, b) = (hash_table(old)?, hash_table(new)?);
    let (was, is) = (old.config(), new.config());
    (a.len() == b.len()
        && was.flavour == is.flavour
        && old.key_hash() == new.key_hash()
        && was.options == is.options)
        .then_some((a, b))
}

/// Each server's share (input order) of the keys in `keys`, and how many
/// keys were placed.
pub fn sampled_shares<K: AsRef<[u8]>>(
    ring: &Ring,
    keys: impl IntoIterator<Item = K>,
) -> (Vec<f64>, usize) {
    let mut counts = vec![0u64; ring.servers().len()];
    let mut total = 0usize;
    for key in keys {
        if let Some(at) = ring.locate(key.as_ref()) {
            counts[at.server_index] += 1;
            total += 1;
        }
    }
    let shares = counts
        .iter()
        .map(|&c| c as f64 / total.max(1) as f64)
        .collect();
    (shares, total)
}

/// Size of the key-hash circle.
const CIRCLE: f64 = 4_294_967_296.0;

/// The fraction of the keyspace each server receives (input order): exact
/// for a continuum, on [`default_sample`] for a per-key placement.
pub fn keyspace_shares(ring: &Ring) -> Vec<f64> {
    keyspace_shares_measured(ring).0
}

/// [`keyspace_shares`], saying how the shares were measured.
pub fn keyspace_shares_measured(ring: &Ring) -> (Vec<f64>, Measure) {
    if let Some(table) = hash_table(ring) {
        let mut shares = vec![0.0; ring.servers().len()];
        for &owner in table {
            if let Some(share) = shares.get_mut(owner as usize) {
                *share += 1.0 / table.len() as f64;
            }
        }
        return (shares, Measure::Exact);
    }
    if !ring.is_continuum() {
        let (shares, placed) = sampled_shares(ring, default_sample());
        return (shares, Measure::Sampled(placed));
    }
    let mut shares = vec![0.0; ring.servers().len()];
    for_each_arc(&[ring], |length, owners| {
        if let Some(share) = shares.get_mut(owners[0]) {
            *share += length as f64 / CIRCLE
        }
    });
    (shares, Measure::Exact)
}

/// One server's line in a [`Distribution`].
#[derive(Debug, Clone, PartialEq)]
pub struct ServerShare {
    /// The fraction of the keys (or keyspace) the server receives.
    pub share: f64,
    /// Its weight's fraction of the total weight (weights not given count as 1).
    pub expected: f64,
    /// `share / expected` (0 when nothing is expected).
    pub ratio: f64,
}

/// How evenly a ring spreads keys relative to the servers' weights.
#[derive(Debug, Clone, PartialEq)]
pub struct Distribution {
    /// Each server's share, in input order.
    pub servers: Vec<ServerShare>,
    /// The largest `share / expected`.
    pub max_ratio: f64,
    /// The smallest `share / expected`.
    pub min_ratio: f64,
    /// Standard deviation of `share / expected` over the servers (1.0 on
    /// every server is a perfect spread, deviation 0).
    pub stddev: f64,
}

/// Sets the `shares` of the ring's servers (input order, from
/// [`keyspace_shares`] or counted keys) against their weights.
pub fn distribution(ring: &Ring, shares: &[f64]) -> Distribution {
    let weight = |server: &crate::Server| server.weight().unwrap_or(1) as f64;
    let total_weight: f64 = ring.servers().iter().map(weight).sum();
    let servers = ring
        .servers()
        .iter()
        .zip(shares)
        .map(|(server, &share)| {
            let expected = weight(server) / total_weight;
            ServerShare {
                share,
                expected,
                ratio: if expected > 0.0 {
                    share / expected
                } else {
                    0.0
                },
            }
        })
        .collect();
    let ratios: Vec<f64> = ring
        .servers()
        .iter()
        .zip(shares)
        .map(|(server, share)| share / (weight(server) / total_weight))
        .collect();
    let mean_ratio = ratios.iter().sum::<f64>() / ratios.len() as f64;
    let stddev =
        (ratios.iter().map(|r| (r - mean_ratio).powi(2)).sum::<f64>() / ratios.len() as f64).sqrt();
    Distribution {
        servers,
        max_ratio: ratios.iter().copied().fold(0.0, f64::max),
        min_ratio: ratios.iter().copied().fold(f64::INFINITY, f64::min),
        stddev,
    }
}

/// Walks the key-hash circle in parts that have one owner in each of
/// `rings` (their searches' keyspaces laid over each other); for each part
/// calls `visit(number of hashes, owner in each ring)`, the owner
/// `usize::MAX` where a ring has no point. Visits nothing when the
/// keyspaces do not lay over each other ([`exactly_comparable`] says
/// whether they do).
fn for_each_arc(rings: &[&Ring], mut visit: impl FnMut(u64, &[usize])) {
    let spaces = rings
        .iter()
        .map(|r| match r.search() {
            Some(search) => search.keyspace(r.continuum().points()),
            None => Keyspace::Arcs(Vec::new()),
        })
        .collect();
    let Some(space) = Keyspace::overlay(spaces) else {
        return;
    };
    let mut owners = vec![0usize; rings.len()];
    for (length, probe) in space.parts() {
        for (owner, ring) in owners.iter_mut().zip(rings) {
            *owner = ring
                .locate_hash(probe)
                .map_or(usize::MAX, |at| at.server_index);
        }
        visit(length, &owners);
    }
}

/// How keys move from one ring to another, with servers matched by address.
#[derive(Debug, Clone)]
pub struct Movement {
    /// Fraction of the keyspace whose server changes.
    pub moved: f64,
    /// The least any placement must move: the total variation distance
    /// between the two weight distributions.
    pub ideal: f64,
    /// `(from address, to address, fraction)` for every pair with movement,
    /// largest first.
    pub flows: Vec<(Vec<u8>, Vec<u8>, f64)>,
    /// Exact, or measured on a key sample.
    pub measure: Measure,
}

/// Compares two rings: exactly over the whole keyspace when
/// [`exactly_comparable`], otherwise on [`default_sample`].
pub fn movement(old: &Ring, new: &Ring) -> Movement {
    if exactly_comparable(old, new) {
        exact_movement(old, new)
    } else {
        sampled_movement(old, new, default_sample())
    }
}

/// Plans a migration from `old` to `new` (two server lists, two flavours,
/// two key hashes, or any mix): on the caller's `keys` when given, else
/// exactly when [`exactly_comparable`], else on [`default_sample`].
pub fn plan_migration<K: AsRef<[u8]>>(
    old: &Ring,
    new: &Ring,
    keys: Option<impl IntoIterator<Item = K>>,
) -> Movement {
    match keys {
        Some(keys) => sampled_movement(old, new, keys),
        None => movement(old, new),
    }
}

/// Compares two rings on the keys in `keys` (each key placed by both);
/// fractions are of the keys placed by both rings.
pub fn sampled_movement<K: AsRef<[u8]>>(
    old: &Ring,
    new: &Ring,
    keys: impl IntoIterator<Item = K>,
) -> Movement {
    use std::collections::BTreeMap;
    let mut flows: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    let (mut moved, mut total) = (0u64, 0u64);
    for key in keys {
        let key = key.as_ref();
        let (Some(from), Some(to)) = (old.locate(key), new.locate(key)) else {
            continue;
        };
        total += 1;
        let (from, to) = (from.server_index, to.server_index);
        if old.servers()[from].address() != new.servers()[to].address() {
            moved += 1;
            *flows.entry((from, to)).or_default() += 1;
        }
    }
    let fraction = |count: u64| count as f64 / total.max(1) as f64;
    let mut flows: Vec<(Vec<u8>, Vec<u8>, f64)> = flows
        .into_iter()
        .map(|((from, to), count)| {
            (
                old.servers()[from].address().to_vec(),
                new.servers()[to].address().to_vec(),
                fraction(count),
            )
        })
        .collect();
    flows.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    Movement {
        moved: fraction(moved),
        ideal: ideal_movement(old, new),
        flows,
        measure: Measure::Sampled(total as usize),
    }
}

/// Compares two exactly comparable rings over the whole keyspace.
fn exact_movement(old: &Ring, new: &Ring) -> Movement {
    use std::collections::BTreeMap;
    let mut flows: BTreeMap<(usize, usize), u64> = BTreeMap::new();
    let mut moved = 0u64;
    let mut count = |length: u64, from: usize, to: usize| {
        let (Some(was), Some(is)) = (old.servers().get(from), new.servers().get(to)) else {
            return;
        };
        if was.address() != is.address() {
            moved += length;
            *flows.entry((from, to)).or_default() += length;
        }
    };
    match tables_comparable(old, new) {
        Some((was, is)) => {
            // Each entry is an equal share: 2^32 / len hashes of the circle.
            let length = (CIRCLE as u64) / was.len() as u64;
            for (&from, &to) in was.iter().zip(is) {
                count(length, from as usize, to as usize);
            }
        }
        None => for_each_arc(&[old, new], |length, owners| {
            count(length, owners[0], owners[1])
        }),
    }
    let mut flows: Vec<(Vec<u8>, Vec<u8>, f64)> = flows
        .into_iter()
        .map(|((from, to), length)| {
            (
                old.servers()[from].address().to_vec(),
                new.servers()[to].address().to_vec(),
                length as f64 / CIRCLE,
            )
        })
        .collect();
    flows.sort_by(|a, b| b.2.total_cmp(&a.2).then_with(|| a.0.cmp(&b.0)));
    Movement {
        moved: moved as f64 / CIRCLE,
        ideal: ideal_movement(old, new),
        flows,
        measure: Measure::Exact,
    }
}

/// Weight share of each address (weights not given count as 1).
fn weight_shares(ring: &Ring) -> std::collections::BTreeMap<Vec<u8>, f64> {
    let total: f64 = ring
        .servers()
        .iter()
        .map(|s| s.weight().unwrap_or(1) as f64)
        .sum();
    let mut shares = std::collections::BTreeMap::new();
    for server in ring.servers() {
        *shares.entry(server.address().to_vec()).or_insert(0.0) +=
            server.weight().unwrap_or(1) as f64 / total;
    }
    shares
}

fn ideal_movement(old: &Ring, new: &Ring) -> f64 {
    let (a, b) = (weight_shares(old), weight_shares(new));
    let gained: f64 = b
        .iter()
        .map(|(address, &share)| (share - a.get(address).copied().unwrap_or(0.0)).max(0.0))
        .sum();
    gained
}

#[cfg(test)]
mod tests;
