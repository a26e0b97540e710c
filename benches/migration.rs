//! What a migration adds to a lookup: `Migration::route` (the key's owner in
//! both rings) and `Migration::begin` (route, phase and the first step of a
//! get in the warm phase) beside the plain lookup of the new ring, for a
//! pool of n servers growing to n + 1 (libketama), and for a change of
//! flavour on the same servers (pecl-memcache → libmemcached: two hashes).
//! 65,536 random keys per iteration, as in benches/ring.rs.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ketama_core::migration::{Migration, Mode, OpKind, Schedule};
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

const SIZES: [usize; 4] = [10, 100, 1_000, 10_000];
const KEYS: usize = 65_536;

/// n servers of weight 1 (pecl memcache places 160 points per unit of
/// weight, so 10,000 servers of weight 100 would pass the point budget).
fn ring(n: usize, flavour: Flavour) -> Arc<Ring> {
    let servers = (0..n)
        .map(|i| {
            ServerSpec::new(
                format!("10.{}.{}.{}:11211", i / 65536, (i / 256) % 256, i % 256),
                1,
            )
        })
        .collect();
    Arc::new(Ring::new(servers, RingConfig::flavour(flavour)).unwrap())
}

fn keys() -> Vec<Vec<u8>> {
    let mut state = 1u64;
    (0..KEYS)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            format!("user:{}:profile", state >> 24).into_bytes()
        })
        .collect()
}

fn migration(c: &mut Criterion) {
    let keys = keys();
    let mut group = c.benchmark_group("migration");
    group.throughput(Throughput::Elements(KEYS as u64));
    // In the warm phase from the start: every moved key's get begins with its lease.
    let schedule = Schedule {
        mode: Mode::Warmup,
        start_ms: 0,
        interval_ms: 0,
        warmup_ms: u64::MAX / 2,
    };
    for n in SIZES {
        for (what, old, new) in [
            (
                "grow",
                ring(n, Flavour::Libketama),
                ring(n + 1, Flavour::Libketama),
            ),
            (
                "flavour",
                ring(n, Flavour::PeclMemcache),
                ring(n, Flavour::Libmemcached),
            ),
        ] {
            let m = Migration::new(old, new.clone(), schedule).unwrap();
            group.bench_with_input(
                BenchmarkId::new(format!("{what}_plain_locate"), n),
                &new,
                |b, ring| {
                    b.iter(|| {
                        keys.iter()
                            .map(|k| ring.locate(k).unwrap().server_index)
                            .fold(0, |a, i| a ^ i)
                    })
                },
            );
            group.bench_with_input(BenchmarkId::new(format!("{what}_route"), n), &m, |b, m| {
                b.iter(|| {
                    keys.iter()
                        .map(|k| m.route(k).unwrap().new)
                        .fold(0, |a, i| a ^ i)
                })
            });
            group.bench_with_input(
                BenchmarkId::new(format!("{what}_begin_get"), n),
                &m,
                |b, m| {
                    b.iter(|| {
                        keys.iter()
                            .map(|k| black_box(m.begin(OpKind::Get, k, 1).unwrap()).route().new)
                            .fold(0, |a, i| a ^ i)
                    })
                },
            );
        }
    }
    group.finish();
}

criterion_group!(benches, migration);
criterion_main!(benches);
