//! Exact shares and movements checked against arcs counted by hand, and
//! against key samples.

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
fn nearest_and_no_wrap_shares_follow_their_rules() {
    use crate::Flavour as F;
    for flavour in [F::Haproxy, F::VarnishShard] {
        let r = flavoured_weighted(flavour);
        let (points, owners) = (r.continuum().points(), r.continuum().owners());
        let n = points.len();
        let mut expected = [0u64; 3];
        for i in 0..n {
            let (a, b) = (u64::from(points[i]), u64::from(points[(i + 1) % n]));
            let gap = if i + 1 < n { b - a } else { b + (1 << 32) - a };
            let (at_a, at_b) = (owners[i] as usize, owners[(i + 1) % n] as usize);
            match flavour {
                // HAProxy: [a, a + gap/2] is a's, the rest up to b is b's.
                F::Haproxy => {
                    expected[at_a] += gap / 2 + 1;
                    expected[at_b] += gap - gap / 2 - 1;
                }
                // Varnish: (a, b] is b's; past the last point, the last's.
                _ if i + 1 < n => expected[at_b] += gap,
                _ => {
                    expected[at_a] += (1 << 32) - 1 - a;
                    expected[at_b] += b + 1;
                }
            }
        }
        let shares = keyspace_shares(&r);
        for (share, arc) in shares.iter().zip(expected) {
            assert_eq!(
                *share,
                arc as f64 / CIRCLE,
                "{flavour:?}: {shares:?} vs {expected:?}"
            );
        }
    }
}

fn flavoured_weighted(flavour: crate::Flavour) -> Ring {
    let specs = (1..=3)
        .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), i))
        .collect();
    Ring::new(specs, RingConfig::flavour(flavour)).unwrap()
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

/// A Redis Cluster ring of `masters` with their slots, as `CLUSTER NODES`
/// would give them (the name column holds each master's slots).
fn cluster(masters: &[(&str, &str)]) -> Ring {
    let specs = masters
        .iter()
        .map(|(address, slots)| ServerSpec {
            name: Some(slots.as_bytes().to_vec()),
            ..ServerSpec::unweighted(*address)
        })
        .collect();
    Ring::new(specs, RingConfig::flavour(crate::Flavour::RedisCluster)).unwrap()
}

#[test]
fn slot_maps_are_compared_slot_by_slot() {
    let old = cluster(&[
        ("10.0.0.1:6379", "0-5460"),
        ("10.0.0.2:6379", "5461-10922"),
        ("10.0.0.3:6379", "10923-16383"),
    ]);
    // 4096 slots handed to a fourth master: 1365, 1366 and 1365 of them.
    let new = cluster(&[
        ("10.0.0.1:6379", "0-4095"),
        ("10.0.0.2:6379", "5461-9556"),
        ("10.0.0.3:6379", "10923-15018"),
        ("10.0.0.4:6379", "4096-5460 9557-10922 15019-16383"),
    ]);
    assert!(exactly_comparable(&old, &new));
    let m = movement(&old, &new);
    assert_eq!(m.measure, Measure::Exact);
    assert_eq!(m.moved, 4096.0 / 16384.0);
    let flows: Vec<(&[u8], f64)> = m.flows.iter().map(|f| (&f.0[..], f.2)).collect();
    assert_eq!(
        flows,
        [
            (&b"10.0.0.2:6379"[..], 1366.0 / 16384.0),
            (&b"10.0.0.1:6379"[..], 1365.0 / 16384.0),
            (&b"10.0.0.3:6379"[..], 1365.0 / 16384.0),
        ]
    );
    let (shares, measure) = keyspace_shares_measured(&new);
    assert_eq!(measure, Measure::Exact);
    assert_eq!(shares[3], 4096.0 / 16384.0);
    // Keys agree with the slot count to sampling accuracy.
    let sampled = sampled_movement(&old, &new, default_sample());
    assert!((sampled.moved - m.moved).abs() < 0.01, "{}", sampled.moved);
    // Another flavour on the same addresses is sampled, not compared by slot.
    let predis = flavoured(crate::Flavour::Predis, 3);
    assert!(!exactly_comparable(&old, &predis));
}
