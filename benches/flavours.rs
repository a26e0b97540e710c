//! Every flavour's single lookup beside its own key-hash floor: the same
//! 65,536 random keys hashed with the flavour's default key hash alone, then
//! placed one by one (`Ring::server_index`) on 100 servers. The flavours come
//! from the registry (`Flavour::ALL`), so a flavour added there is measured
//! here without an edit. `scripts/bench_flavours.sh` prints the table with the
//! ratios (docs/benchmarks-flavours.md).

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

const SERVERS: usize = 100;
const KEYS: usize = 65_536;

fn servers() -> Vec<ServerSpec> {
    (0..SERVERS)
        .map(|i| ServerSpec::new(format!("10.0.{}.{}:11211", i / 256, i % 256), 1))
        .collect()
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

fn flavours(c: &mut Criterion) {
    let keys = keys();
    let mut group = c.benchmark_group("flavour");
    group.throughput(Throughput::Elements(KEYS as u64));
    group.sample_size(20);
    group.warm_up_time(std::time::Duration::from_millis(500));
    group.measurement_time(std::time::Duration::from_secs(2));
    for &flavour in Flavour::ALL {
        let ring = Ring::new(servers(), RingConfig::flavour(flavour))
            .unwrap_or_else(|e| panic!("{}: {e}", flavour.name()));
        let hash = flavour.default_hash();
        group.bench_function(BenchmarkId::new("hash_floor", flavour.name()), |b| {
            b.iter(|| keys.iter().fold(0u32, |a, k| a ^ hash.hash(black_box(k))))
        });
        group.bench_function(BenchmarkId::new("lookup", flavour.name()), |b| {
            b.iter(|| {
                keys.iter().fold(0u32, |a, k| {
                    a ^ ring.server_index(black_box(k)).unwrap_or(u32::MAX)
                })
            })
        });
    }
    group.finish();
}

criterion_group!(benches, flavours);
criterion_main!(benches);
