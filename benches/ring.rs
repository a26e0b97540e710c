//! Lookup and roll at 10, 100, 1,000 and 10,000 servers, with MD5 of the same
//! keys alone as the floor. Keys are random (not one hot key), and there are
//! 65,536 of them per iteration so that, as in a real client, the points
//! they touch do not all stay in cache between iterations.

use std::ffi::{CString, c_char};
use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ketama::compat::{ketama_continuum, ketama_get_server, ketama_roll, ketama_smoke};
use ketama_core::hash::{md5_digest, md5_word};
use ketama_core::{Ring, RingConfig, ServerSpec};

const SIZES: [usize; 4] = [10, 100, 1_000, 10_000];
const KEYS: usize = 65_536;

fn servers(n: usize) -> Vec<ServerSpec> {
    (0..n)
        .map(|i| {
            ServerSpec::new(
                format!("10.{}.{}.{}:11211", i / 65536, (i / 256) % 256, i % 256),
                100,
            )
        })
        .collect()
}

fn keys() -> Vec<CString> {
    let mut state = 1u64;
    (0..KEYS)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            CString::new(format!("user:{}:profile", state >> 24)).unwrap()
        })
        .collect()
}

fn lookup(c: &mut Criterion) {
    let keys = keys();
    let mut group = c.benchmark_group("lookup");
    group.throughput(Throughput::Elements(KEYS as u64));
    group.bench_function("md5_floor", |b| {
        b.iter(|| {
            keys.iter()
                .map(|k| md5_word(&md5_digest(k.to_bytes()), 0))
                .fold(0u32, |a, h| a ^ h)
        })
    });
    let slices: Vec<&[u8]> = keys.iter().map(|k| k.to_bytes()).collect();
    group.bench_function("md5_many_floor", |b| {
        let mut digests = vec![[0u8; 16]; KEYS];
        b.iter(|| {
            ketama_core::hash::md5_lanes::md5_many(&slices, &mut digests);
            digests[KEYS - 1][0]
        })
    });
    let dir = std::env::temp_dir().join(format!("ketama-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for n in SIZES {
        let ring = Ring::new(servers(n), RingConfig::default()).unwrap();
        group.bench_with_input(BenchmarkId::new("ring_locate", n), &ring, |b, ring| {
            b.iter(|| {
                keys.iter()
                    .map(|k| ring.locate(k.to_bytes()).unwrap().point_index)
                    .fold(0, |a, i| a ^ i)
            })
        });
        group.bench_with_input(BenchmarkId::new("ring_batch", n), &ring, |b, ring| {
            let mut out = vec![0u32; KEYS];
            b.iter(|| {
                ring.find_server_indices(&slices, &mut out).unwrap();
                out[KEYS - 1]
            })
        });
        let path = dir.join(format!("servers{n}"));
        let content: String = servers(n)
            .iter()
            .map(|s| format!("{}\t100\n", String::from_utf8_lossy(&s.address)))
            .collect();
        std::fs::write(&path, content).unwrap();
        let name = CString::new(path.to_str().unwrap()).unwrap();
        let mut cont: ketama_continuum = std::ptr::null_mut();
        // SAFETY: valid out-pointer and file name.
        let rolled = unsafe { ketama_roll(&mut cont, name.as_ptr() as *mut c_char) };
        assert_eq!(rolled, 1);
        group.bench_with_input(
            BenchmarkId::new("ketama_get_server", n),
            &cont,
            |b, &cont| {
                b.iter(|| {
                    keys.iter()
                        .map(|k| {
                            // SAFETY: live continuum, NUL-terminated keys.
                            (unsafe { ketama_get_server(k.as_ptr() as *mut c_char, cont) }) as usize
                        })
                        .fold(0, |a, p| a ^ p)
                })
            },
        );
        // The floor of a cold single lookup: MD5 of the key plus one read
        // at the place its hash gives in an array as large as the ring's
        // points and owners (one cache miss per key once the ring outgrows
        // the caches; the keys are independent, as in the lookups above).
        // The same with an array as large as the compat ABI's `mcs`
        // records (28 bytes per point), which `ketama_get_server` returns
        // a pointer into.
        for (name, words_per_point) in [("md5_plus_one_read", 2), ("md5_plus_one_mcs_read", 7)] {
            let one_read = vec![1u32; words_per_point * ring.continuum().len()];
            group.bench_with_input(BenchmarkId::new(name, n), &one_read, |b, words| {
                b.iter(|| {
                    keys.iter()
                        .map(|k| {
                            let hash = md5_word(&md5_digest(k.to_bytes()), 0);
                            words[((u64::from(hash) * words.len() as u64) >> 32) as usize]
                        })
                        .fold(0u32, |a, x| a ^ x)
                })
            });
        }
        // Point search alone, on precomputed hashes.
        let hashes: Vec<u32> = keys.iter().map(|k| ring.hash_key(k.to_bytes())).collect();
        group.bench_with_input(
            BenchmarkId::new("search_only_index", n),
            &ring,
            |b, ring| {
                b.iter(|| {
                    hashes
                        .iter()
                        .map(|&h| ring.continuum().locate(h).unwrap())
                        .fold(0, |a, i| a ^ i)
                })
            },
        );
        group.bench_with_input(
            BenchmarkId::new("search_only_binary", n),
            &ring,
            |b, ring| {
                b.iter(|| {
                    hashes
                        .iter()
                        .map(|&h| ring.continuum().locate_by_binary_search(h).unwrap())
                        .fold(0, |a, i| a ^ i)
                })
            },
        );
        // SAFETY: rolled above.
        unsafe { ketama_smoke(cont) };
    }
    group.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

fn roll(c: &mut Criterion) {
    let mut group = c.benchmark_group("roll");
    group.sample_size(10);
    for n in SIZES {
        let list = servers(n);
        group.bench_with_input(BenchmarkId::new("ring_new", n), &list, |b, list| {
            b.iter(|| {
                black_box(
                    Ring::new(list.clone(), RingConfig::default())
                        .unwrap()
                        .continuum()
                        .len(),
                )
            })
        });
    }
    group.finish();
}

/// A 10,000-server ring whose continuum is mapped from a shared image
/// (`ketama_core::ring_cache::shared`) beside the same ring built here: a
/// lookup reads both the same way; and what a process pays for the ring
/// when another has published it (attach: map, check, count) against
/// rolling it, alone or with publishing the image.
fn shared(c: &mut Criterion) {
    use ketama_core::ring_cache::{DEFAULT_BOUNDS, RingCache, Sharing};
    let keys = keys();
    let dir = std::env::temp_dir().join(format!("ketama-bench-shared-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let sharing = || {
        let cache = RingCache::new(DEFAULT_BOUNDS);
        cache.set_sharing(Sharing::Dir(dir.clone()), 1 << 20);
        cache
    };
    let n = 10_000;
    let owned = Ring::new(servers(n), RingConfig::default()).unwrap();
    let mapped = sharing()
        .from_servers(servers(n), RingConfig::default())
        .unwrap();
    assert!(mapped.continuum().is_mapped() && !owned.continuum().is_mapped());
    let mut group = c.benchmark_group("shared");
    group.throughput(Throughput::Elements(KEYS as u64));
    for (name, ring) in [
        ("ring_locate_owned", &owned),
        ("ring_locate_mapped", &*mapped),
    ] {
        group.bench_with_input(BenchmarkId::new(name, n), ring, |b, ring| {
            b.iter(|| {
                keys.iter()
                    .map(|k| ring.locate(k.to_bytes()).unwrap().point_index)
                    .fold(0, |a, i| a ^ i)
            })
        });
    }
    group.throughput(Throughput::Elements(1));
    group.sample_size(10);
    group.bench_function(BenchmarkId::new("attach", n), |b| {
        b.iter(|| {
            let cache = sharing();
            let ring = cache
                .from_servers(servers(n), RingConfig::default())
                .unwrap();
            assert_eq!(cache.stats().attached, 1);
            black_box(ring.continuum().len())
        })
    });
    // Rolling with no image yet: the roll, the image written and renamed, mapped and checked.
    group.bench_function(BenchmarkId::new("roll_and_publish", n), |b| {
        b.iter(|| {
            for image in std::fs::read_dir(&dir).unwrap() {
                std::fs::remove_file(image.unwrap().path()).unwrap();
            }
            let cache = sharing();
            let ring = cache
                .from_servers(servers(n), RingConfig::default())
                .unwrap();
            assert!(cache.stats().rolled == 1 && ring.continuum().is_mapped());
            black_box(ring.continuum().len())
        })
    });
    group.bench_function(BenchmarkId::new("roll", n), |b| {
        b.iter(|| {
            black_box(
                Ring::new(servers(n), RingConfig::default())
                    .unwrap()
                    .continuum()
                    .len(),
            )
        })
    });
    group.finish();
    drop(mapped);
    let _ = std::fs::remove_dir_all(&dir);
}

/// mcrouter's and Envoy's placements: a single lookup through the ring
/// beside its key-hash floor, the hashing the placement cannot avoid
/// (mcrouter: furc_hash, with SpookyHash for WeightedCh3, or the CRC-32
/// modulo the server count; Envoy: xxHash64 plus one read in an array of
/// the ring's or the table's size, where the hash lands).
fn mcrouter_envoy(c: &mut Criterion) {
    use ketama_core::Flavour;
    use ketama_core::flavour::envoy::{Envoy, Policy, RingHashConfig};
    use ketama_core::hash::{crc, furc, spooky, xxhash64};
    let keys = keys();
    let mut group = c.benchmark_group("lookup_mcrouter_envoy");
    group.throughput(Throughput::Elements(KEYS as u64));
    for n in [10usize, 100, 1_000] {
        let list = servers(n);
        let ring = |flavour| Ring::new(list.clone(), RingConfig::flavour(flavour)).unwrap();
        let locate = |name: &str, ring: Ring, group: &mut criterion::BenchmarkGroup<_>| {
            group.bench_with_input(BenchmarkId::new(name, n), &ring, |b, ring| {
                b.iter(|| {
                    keys.iter()
                        .map(|k| ring.locate(k.to_bytes()).unwrap().server_index)
                        .fold(0, |a, i| a ^ i)
                })
            });
        };
        let floor =
            |name: &str, f: &dyn Fn(&[u8]) -> u64, group: &mut criterion::BenchmarkGroup<_>| {
                group.bench_function(BenchmarkId::new(name, n), |b| {
                    b.iter(|| keys.iter().map(|k| f(k.to_bytes())).fold(0, |a, x| a ^ x))
                });
            };
        let m = n as u32;
        locate("mcrouter_ch3", ring(Flavour::McrouterCh3), &mut group);
        floor(
            "furc_floor",
            &|k| u64::from(furc::furc_hash(k, m)),
            &mut group,
        );
        locate("mcrouter_wch3", ring(Flavour::McrouterWch3), &mut group);
        floor(
            "furc_spooky_floor",
            &|k| u64::from(furc::furc_hash(k, m)) ^ u64::from(spooky::hash32(k, 0xface_2014)),
            &mut group,
        );
        locate("mcrouter_crc32", ring(Flavour::McrouterCrc32), &mut group);
        let count = black_box(m);
        floor(
            "crc32_modulo_floor",
            &|k| u64::from((crc::crc32(k) & 0x7fff_ffff) % count),
            &mut group,
        );
        locate("envoy_ring_hash", ring(Flavour::EnvoyRingHash), &mut group);
        let size = Envoy::new(&list, Policy::RingHash(RingHashConfig::default()))
            .unwrap()
            .table()
            .len();
        let positions = vec![1u64; size];
        floor(
            "xxhash64_plus_one_ring_read",
            &|k| {
                let h = xxhash64::xxhash64(k, 0);
                positions[((u128::from(h) * size as u128) >> 64) as usize]
            },
            &mut group,
        );
        locate("envoy_maglev", ring(Flavour::EnvoyMaglev), &mut group);
        // The table size is a placement option: a division by a number the
        // compiler does not know, as in the lookup.
        let slots = vec![1u32; 65_537];
        let size = black_box(slots.len() as u64);
        floor(
            "xxhash64_plus_one_table_read",
            &|k| u64::from(slots[(xxhash64::xxhash64(k, 0) % size) as usize]),
            &mut group,
        );
    }
    group.finish();
}

criterion_group!(benches, lookup, roll, shared, mcrouter_envoy);
criterion_main!(benches);
