//! Capacity planning: how a ring spreads the keyspace over its servers, and
//! how much of the keyspace moves between two rings (migration planning,
//! also between two flavours).
//!
//! Shares are exact when every ring involved is a continuum and they all
//! hash keys the same way: the key-hash circle is cut at every point, and
//! each arc is credited to the server the ring's own lookup returns for it.
//! Otherwise (a per-key placement, or two different key hashes or key
//! preparations, so that one position on the circle is not one set of keys)
//! shares are measured on a sample of keys: the caller's, or
//! [`default_sample`].

use crate::Ring;
use crate::flavour::KeyLookup;

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

/// How a ring's key preparation differs from another's (none, pecl's, dalli's).
fn preparation(lookup: KeyLookup) -> u8 {
    match lookup {
        KeyLookup::Direct | KeyLookup::PerKey | KeyLookup::After => 0,
        KeyLookup::PeclBuckets => 1,
        KeyLookup::Dalli => 2,
        KeyLookup::PredisHashRing | KeyLookup::PredisKetama => 3,
        KeyLookup::PhpRedis => 4,
        KeyLookup::RedisRb => 5,
    }
}

/// True when comparing `old` and `new` arc by arc is exact: both are
/// continuums and they hash the same prepared key to the same position.
pub fn exactly_comparable(old: &Ring, new: &Ring) -> bool {
    old.is_continuum()
        && new.is_continuum()
        && old.key_hash() == new.key_hash()
        && preparation(old.key_lookup()) == preparation(new.key_lookup())
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
    if !ring.is_continuum() {
        let (shares, placed) = sampled_shares(ring, default_sample());
        return (shares, Measure::Sampled(placed));
    }
    let mut shares = vec![0.0; ring.servers().len()];
    for_each_arc(&[ring], |length, owners| {
        shares[owners[0]] += length as f64 / CIRCLE
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

/// Walks the circle cut at the points of all `rings`; for each arc calls
/// `visit(length, owner in each ring)`.
fn for_each_arc(rings: &[&Ring], mut visit: impl FnMut(u64, &[usize])) {
    if rings
        .iter()
        .all(|r| r.key_lookup() == KeyLookup::PeclBuckets)
    {
        // pecl memcache: a key goes to bucket `hash % 1024`, and each of the
        // 1024 buckets takes exactly 2^32 / 1024 hash values.
        for bucket in 0..1024u32 {
            let owners: Vec<usize> = rings
                .iter()
                .map(|r| {
                    r.locate_hash(bucket)
                        .map_or(usize::MAX, |at| at.server_index)
                })
                .collect();
            visit(1 << 22, &owners);
        }
        return;
    }
    // An arc (previous cut, cut] must have one owner in every ring: a ring
    // that looks up the first point ≥ the hash changes owner after each
    // point; one that looks up the last point ≤ the hash (dalli) or the
    // first point > the hash (uhashring) just before each point.
    let mut cuts: Vec<u32> = rings
        .iter()
        .flat_map(|r| {
            let before = u32::from(r.key_lookup().owner_changes_before_points());
            r.continuum()
                .points()
                .iter()
                .map(move |p| p.wrapping_sub(before))
        })
        .collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut owners = vec![0usize; rings.len()];
    let mut previous: i64 = -1;
    for &cut in &cuts {
        for (owner, ring) in owners.iter_mut().zip(rings) {
            *owner = ring
                .locate_hash(cut)
                .map_or(usize::MAX, |at| at.server_index);
        }
        visit((i64::from(cut) - previous) as u64, &owners);
        previous = i64::from(cut);
    }
    // Past the last cut the lookup wraps around.
    let tail = (i64::from(u32::MAX) - previous) as u64;
    if tail > 0 {
        for (owner, ring) in owners.iter_mut().zip(rings) {
            *owner = ring
                .locate_hash(u32::MAX)
                .map_or(usize::MAX, |at| at.server_index);
        }
        visit(tail, &owners);
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
    for_each_arc(&[old, new], |length, owners| {
        let (from, to) = (owners[0], owners[1]);
        if old.servers()[from].address() != new.servers()[to].address() {
            moved += length;
            *flows.entry((from, to)).or_default() += length;
        }
    });
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
    flows.sort_by(|a, b| b.2.total_cmp(&a.2));
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
mod tests {
    use super::*;
    use crate::{RingConfig, ServerSpec};

    fn ring(servers: &[(&str, u64)]) -> Ring {
        Ring::new(
            servers
                .iter()
                .map(|&(a, w)| ServerSpec::new(a, w))
                .collect(),
            RingConfig::default(),
        )
        .unwrap()
    }

    #[test]
    fn shares_sum_to_one_and_match_key_sampling() {
        let r = ring(&[
            ("10.0.0.1:11211", 100),
            ("10.0.0.2:11211", 300),
            ("10.0.0.3:11211", 600),
        ]);
        let shares = keyspace_shares(&r);
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let mut counts = [0usize; 3];
        let samples = 200_000;
        for i in 0..samples {
            counts[r
                .locate_hash((i as u32).wrapping_mul(2_654_435_761))
                .unwrap()
                .server_index] += 1;
        }
        for (share, count) in shares.iter().zip(counts) {
            assert!(
                (share - count as f64 / samples as f64).abs() < 0.01,
                "{shares:?} vs {counts:?}"
            );
        }
    }

    #[test]
    fn pecl_bucket_shares_match_key_sampling() {
        let servers = ["10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"];
        let specs = servers.iter().map(|&a| ServerSpec::new(a, 1)).collect();
        let r = Ring::new(specs, RingConfig::flavour(crate::Flavour::PeclMemcache)).unwrap();
        let shares = keyspace_shares(&r);
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        let mut counts = [0usize; 3];
        for h in 0..1024u32 {
            counts[r.locate_hash(h * 7919).unwrap().server_index] += 1;
        }
        for (share, count) in shares.iter().zip(counts) {
            assert!(
                (share - count as f64 / 1024.0).abs() < 1e-12,
                "{shares:?} vs {counts:?}"
            );
        }
    }

    #[test]
    fn dalli_shares_credit_each_point_with_the_arc_after_it() {
        let specs = (1..=3)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), i))
            .collect();
        let r = Ring::new(specs, RingConfig::flavour(crate::Flavour::Dalli)).unwrap();
        // dalli: [p_i, p_{i+1}) belongs to p_i's server, and the wrap arc
        // [p_last, 2^32) + [0, p_0) to the last point's.
        let (points, owners) = (r.continuum().points(), r.continuum().owners());
        let mut expected = [0u64; 3];
        for i in 0..points.len() {
            let end = points.get(i + 1).map_or(1u64 << 32, |&p| u64::from(p));
            expected[owners[i] as usize] += end - u64::from(points[i]);
        }
        expected[*owners.last().unwrap() as usize] += u64::from(points[0]);
        let shares = keyspace_shares(&r);
        for (share, arc) in shares.iter().zip(expected) {
            assert_eq!(*share, arc as f64 / CIRCLE, "{shares:?} vs {expected:?}");
        }
    }

    #[test]
    fn after_shares_credit_each_point_with_the_arc_before_it() {
        let specs = (1..=3)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), i))
            .collect();
        let r = Ring::new(specs, RingConfig::flavour(crate::Flavour::UhashringKetama)).unwrap();
        // First point > the hash: [p_{i-1}, p_i) belongs to p_i's server,
        // and [p_last, 2^32) + [0, p_0) to the first point's.
        let (points, owners) = (r.continuum().points(), r.continuum().owners());
        let mut expected = [0u64; 3];
        for i in 1..points.len() {
            expected[owners[i] as usize] += u64::from(points[i] - points[i - 1]);
        }
        expected[owners[0] as usize] +=
            (1u64 << 32) - u64::from(points[points.len() - 1]) + u64::from(points[0]);
        let shares = keyspace_shares(&r);
        for (share, arc) in shares.iter().zip(expected) {
            assert_eq!(*share, arc as f64 / CIRCLE, "{shares:?} vs {expected:?}");
        }
        let libketama = flavoured(crate::Flavour::Libketama, 3);
        let exact = movement(&r, &libketama);
        assert_eq!(exact.measure, Measure::Exact);
        let sampled = sampled_movement(&r, &libketama, default_sample());
        assert!(
            (exact.moved - sampled.moved).abs() < 0.01,
            "{exact:?} {sampled:?}"
        );
    }

    #[test]
    fn adding_a_server_moves_keys_only_to_it() {
        let old = ring(&[("a:1", 1), ("b:1", 1), ("c:1", 1)]);
        let new = ring(&[("a:1", 1), ("b:1", 1), ("c:1", 1), ("d:1", 1)]);
        let m = movement(&old, &new);
        assert!((m.ideal - 0.25).abs() < 1e-12);
        assert!(
            m.flows.iter().all(|(_, to, _)| to == b"d:1"),
            "{:?}",
            m.flows
        );
        assert!((m.moved - keyspace_shares(&new)[3]).abs() < 1e-12);
        assert_eq!(movement(&old, &old).moved, 0.0);
    }

    fn flavoured(flavour: crate::Flavour, n: usize) -> Ring {
        let specs = (1..=n)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), 1))
            .collect();
        Ring::new(specs, RingConfig::flavour(flavour)).unwrap()
    }

    #[test]
    fn arcs_are_compared_only_when_both_sides_hash_keys_alike() {
        use crate::Flavour as F;
        let comparable = |a, b| exactly_comparable(&flavoured(a, 5), &flavoured(b, 5));
        assert!(comparable(F::Libketama, F::LibketamaJava));
        assert!(comparable(F::Nginx, F::MemcachedFast));
        assert!(!comparable(F::Dalli, F::Libketama), "crc32 vs md5");
        assert!(!comparable(F::Dalli, F::Nginx), "dalli prepares long keys");
        assert!(!comparable(F::PeclMemcache, F::Nginx), "pecl prepares keys");
        assert!(
            !comparable(F::PythonMemcached, F::PythonMemcached),
            "not a continuum"
        );
        let m = movement(&flavoured(F::Dalli, 5), &flavoured(F::Libketama, 5));
        assert_eq!(m.measure, Measure::Sampled(DEFAULT_SAMPLE_KEYS));
    }

    #[test]
    fn a_sampled_plan_counts_the_keys_that_change_server() {
        use crate::Flavour as F;
        let (old, new) = (
            flavoured(F::PythonMemcached, 4),
            flavoured(F::Pymemcache, 4),
        );
        let keys: Vec<String> = (0..5000).map(|i| format!("user:{i}")).collect();
        let m = plan_migration(&old, &new, Some(&keys));
        let moved = keys
            .iter()
            .filter(|k| {
                old.locate(k.as_bytes()).unwrap().server_index
                    != new.locate(k.as_bytes()).unwrap().server_index
            })
            .count();
        assert_eq!(m.measure, Measure::Sampled(5000));
        assert_eq!(m.moved, moved as f64 / 5000.0);
        let table: f64 = m.flows.iter().map(|f| f.2).sum();
        assert!((table - m.moved).abs() < 1e-12);
        assert_eq!(plan_migration(&old, &old, Some(&keys)).moved, 0.0);
        // Without keys: exact for comparable continuums, else the default sample.
        let exact = plan_migration(
            &flavoured(F::Libketama, 3),
            &flavoured(F::Libketama, 4),
            None::<Vec<&[u8]>>,
        );
        assert_eq!(exact.measure, Measure::Exact);
    }

    #[test]
    fn per_key_shares_are_sampled_and_follow_the_weights() {
        let specs = vec![ServerSpec::new("a:1", 1), ServerSpec::new("b:1", 3)];
        let r = Ring::new(specs, RingConfig::flavour(crate::Flavour::CacheMemcached)).unwrap();
        let (shares, measure) = keyspace_shares_measured(&r);
        assert_eq!(measure, Measure::Sampled(DEFAULT_SAMPLE_KEYS));
        assert!((shares.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        assert!((shares[1] - 0.75).abs() < 0.01, "{shares:?}");
    }
}
