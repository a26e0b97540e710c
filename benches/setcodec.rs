//! Set codec benchmarks, each beside a plain `HashSet` implementation in
//! the same run: decode throughput (T1/B1 compacted, compacted plus an
//! appended tail, and unsorted with churn; 1,000 and 20,000 members),
//! compaction, and union/intersection/difference of 2 and 8 sets with equal
//! and 1:100 skewed sizes (plus galloping vs linear merge).
//!
//! Run: `cargo bench --bench setcodec` (add `-- --quick` for a short run).

use std::collections::HashSet;
use std::hint::black_box;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use ketama_core::setcodec::{DecodeOptions, Format, MemberSet, Op, compacted, decode, encode, ops};

fn member(i: usize) -> String {
    format!("user-{:08}", i.wrapping_mul(2_654_435_761) % 100_000_000)
}

fn members(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(member).collect()
}

/// The baseline decoder: split on whitespace, replay into a HashSet.
fn hashset_decode(value: &[u8]) -> (HashSet<&[u8]>, usize) {
    let mut set = HashSet::new();
    let mut removals = 0;
    for token in value
        .split(|b| b.is_ascii_whitespace())
        .filter(|t| !t.is_empty())
    {
        match token[0] {
            b'+' => {
                set.insert(&token[1..]);
            }
            b'-' => {
                set.remove(&token[1..]);
                removals += 1;
            }
            _ => {}
        }
    }
    (set, removals)
}

fn bench_decode(c: &mut Criterion) {
    let mut group = c.benchmark_group("decode");
    for size in [1_000usize, 20_000] {
        let list = members(0..size);
        let set = MemberSet::from_members(&list);
        // For each format: a compacted value (sorted); the same with 10% of
        // the members removed and re-added by appends; and the set written
        // in arrival order with the same churn (the worst case: a full sort).
        let churn: Vec<&String> = list.iter().step_by(10).collect();
        let values = |format: Format| {
            let canonical = compacted(&set, format, 250).unwrap();
            let removed = encode(Op::Remove, &churn, format, 250).unwrap();
            let readded = encode(Op::Add, &churn, format, 250).unwrap();
            let tail = [canonical.clone(), removed.clone(), readded.clone()].concat();
            let dirty = [
                encode(Op::Add, &list, format, 250).unwrap(),
                removed,
                readded,
            ]
            .concat();
            (canonical, tail, dirty)
        };
        let (canonical, tail, dirty) = values(Format::T1);
        let (b1, b1_tail, b1_dirty) = values(Format::B1);
        let options = DecodeOptions::default();
        for (name, value) in [
            ("t1-compacted", &canonical),
            ("t1-compacted+tail", &tail),
            ("t1-unsorted-dirty", &dirty),
            ("b1-compacted", &b1),
            ("b1-compacted+tail", &b1_tail),
            ("b1-unsorted-dirty", &b1_dirty),
        ] {
            group.throughput(Throughput::Bytes(value.len() as u64));
            group.bench_with_input(
                BenchmarkId::new(format!("ketama/{name}"), size),
                value,
                |b, v| b.iter(|| decode(black_box(v), &options).unwrap()),
            );
            if name.starts_with("t1") {
                group.bench_with_input(
                    BenchmarkId::new(format!("hashset/{name}"), size),
                    value,
                    |b, v| b.iter(|| hashset_decode(black_box(v))),
                );
            }
        }
    }
    group.finish();
}

fn bench_compaction(c: &mut Criterion) {
    let mut group = c.benchmark_group("compact");
    let list = members(0..20_000);
    let dirty = [
        encode(Op::Add, &list, Format::T1, 250).unwrap(),
        encode(Op::Remove, &list[..2_000], Format::T1, 250).unwrap(),
    ]
    .concat();
    group.throughput(Throughput::Bytes(dirty.len() as u64));
    group.bench_function("ketama/decode+compact/20000", |b| {
        b.iter(|| {
            let set = decode(black_box(&dirty), &DecodeOptions::default()).unwrap();
            compacted(&set.members, Format::T1, 250).unwrap()
        })
    });
    group.bench_function("hashset/decode+sort+encode/20000", |b| {
        b.iter(|| {
            let (set, _) = hashset_decode(black_box(&dirty));
            let mut sorted: Vec<&[u8]> = set.into_iter().collect();
            sorted.sort_unstable();
            let mut out = Vec::with_capacity(dirty.len());
            for m in sorted {
                out.push(b'+');
                out.extend_from_slice(m);
                out.push(b' ');
            }
            out
        })
    });
    group.finish();
}

fn hash_sets(sets: &[MemberSet]) -> Vec<HashSet<Vec<u8>>> {
    sets.iter()
        .map(|s| s.iter().map(<[u8]>::to_vec).collect())
        .collect()
}

fn bench_algebra(c: &mut Criterion) {
    let mut group = c.benchmark_group("algebra");
    // (name, sizes): equal-size neighbours overlap by half; a skewed small
    // set lies wholly inside the large sets.
    let cases: [(&str, Vec<usize>); 4] = [
        ("2-equal-20000", vec![20_000, 20_000]),
        ("2-skewed-1000:100000", vec![1_000, 100_000]),
        ("8-equal-5000", vec![5_000; 8]),
        (
            "8-skewed-1000:100000",
            vec![
                1_000, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000, 100_000,
            ],
        ),
    ];
    for (name, sizes) in cases {
        let largest = *sizes.iter().max().unwrap();
        let sets: Vec<MemberSet> = sizes
            .iter()
            .enumerate()
            .map(|(k, &n)| {
                if n < largest {
                    // A small set spread over the large sets' range: all of it matches.
                    MemberSet::from_members((0..n).map(|i| member(i * (largest / n))))
                } else if sizes.iter().all(|&s| s == n) {
                    // Equal sizes: each set overlaps the next by half.
                    MemberSet::from_members((0..n).map(|i| member(i + k * n / 2)))
                } else {
                    MemberSet::from_members((0..n).map(member))
                }
            })
            .collect();
        let refs: Vec<&MemberSet> = sets.iter().collect();
        let hashed = hash_sets(&sets);
        group.bench_function(BenchmarkId::new("ketama/union", name), |b| {
            b.iter(|| ops::union(black_box(&refs)))
        });
        group.bench_function(BenchmarkId::new("hashset/union", name), |b| {
            b.iter(|| {
                let mut out: HashSet<&Vec<u8>> = HashSet::new();
                for s in &hashed {
                    out.extend(s.iter());
                }
                out
            })
        });
        group.bench_function(BenchmarkId::new("ketama/inter", name), |b| {
            b.iter(|| ops::inter(black_box(&refs)).unwrap())
        });
        group.bench_function(BenchmarkId::new("hashset/inter", name), |b| {
            b.iter(|| {
                let mut order: Vec<&HashSet<Vec<u8>>> = hashed.iter().collect();
                order.sort_by_key(|s| s.len());
                order[0]
                    .iter()
                    .filter(|m| order[1..].iter().all(|s| s.contains(*m)))
                    .collect::<Vec<_>>()
            })
        });
        group.bench_function(BenchmarkId::new("ketama/diff", name), |b| {
            b.iter(|| ops::diff(black_box(&refs)).unwrap())
        });
        group.bench_function(BenchmarkId::new("hashset/diff", name), |b| {
            b.iter(|| {
                hashed[0]
                    .iter()
                    .filter(|m| !hashed[1..].iter().any(|s| s.contains(*m)))
                    .collect::<Vec<_>>()
            })
        });
        if sizes.len() == 2 && sizes[0] != sizes[1] {
            group.bench_function(BenchmarkId::new("ketama/inter-galloping", name), |b| {
                b.iter(|| ops::intersect_galloping(black_box(&sets[0]), &sets[1], usize::MAX))
            });
            group.bench_function(BenchmarkId::new("ketama/inter-linear-merge", name), |b| {
                b.iter(|| ops::intersect_linear(black_box(&sets[0]), &sets[1], usize::MAX))
            });
        }
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    targets = bench_decode, bench_compaction, bench_algebra
}
criterion_main!(benches);
