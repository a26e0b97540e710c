//! A look-aside cache in front of a versioned store, moved between two
//! rings while client threads read and write it, with a history checker.
//!
//! Each key has a version in the store (the database). A write bumps it
//! and sets the value `v<version>` in the cache; a read that misses reads
//! the store and `add`s its value. Writes and fills of one key are
//! serialized (as a database row lock would), so the versions acknowledged
//! by the cache for a key only grow, and the checker is exact: a read is
//! **stale** when it returns a version older than the newest one whose
//! cache write was acknowledged before the read began.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use ketama_core::migration::{Migration, OpKind, Outcome, Reply, Step, now_ms};

use super::client::Connections;

/// Keys `key:0` … `key:<n-1>`, drawn with a Zipf law (exponent 0.99).
pub struct Keys {
    names: Vec<Vec<u8>>,
    cdf: Vec<f64>,
}

impl Keys {
    pub fn new(n: usize) -> Keys {
        let weights: Vec<f64> = (1..=n).map(|r| 1.0 / (r as f64).powf(0.99)).collect();
        let total: f64 = weights.iter().sum();
        let mut sum = 0.0;
        let cdf = weights
            .iter()
            .map(|w| {
                sum += w / total;
                sum
            })
            .collect();
        Keys {
            names: (0..n).map(|i| format!("key:{i}").into_bytes()).collect(),
            cdf,
        }
    }

    fn draw(&self, rng: &mut u64) -> usize {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 7;
        *rng ^= *rng << 17;
        let u = (*rng >> 11) as f64 / (1u64 << 53) as f64;
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

/// What a run counted.
#[derive(Debug, Default)]
pub struct Report {
    /// Per bucket of the run (`Run::bucket_ms`): (gets, hits).
    pub buckets: Vec<(u64, u64)>,
    pub reads: u64,
    pub stale: u64,
    pub writes_acknowledged: u64,
    pub copies: u64,
    pub failed: u64,
}

impl Report {
    /// The hit ratio over buckets `from..to`.
    pub fn hit_ratio(&self, from: usize, to: usize) -> f64 {
        let (gets, hits) = self.buckets[from.min(self.buckets.len())..to.min(self.buckets.len())]
            .iter()
            .fold((0, 0), |(g, h), s| (g + s.0, h + s.1));
        hits as f64 / gets.max(1) as f64
    }
}

/// The shared state of a run.
struct Store {
    keys: Keys,
    /// The store's version of each key; its lock serializes the key's writes.
    versions: Vec<Mutex<u64>>,
    /// The newest version of each key whose cache write was acknowledged.
    acknowledged: Vec<AtomicU64>,
    gets: Vec<AtomicU64>,
    hits: Vec<AtomicU64>,
    stale: AtomicU64,
    reads: AtomicU64,
    writes: AtomicU64,
    copies: AtomicU64,
    failed: AtomicU64,
}

/// How a run goes.
pub struct Run {
    /// Its length, and the width of the buckets hits are counted in.
    pub total_ms: u64,
    pub bucket_ms: u64,
    pub threads: usize,
    pub keys: usize,
    /// Share of operations that are writes (in tenths).
    pub writes_in_ten: u64,
}

fn value_of(version: u64) -> Vec<u8> {
    let mut value = format!("v{version:012}:").into_bytes();
    value.resize(64, b'.');
    value
}

fn version_of(value: &[u8]) -> u64 {
    std::str::from_utf8(&value[1..13])
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "not a value of this run: {:?}",
                String::from_utf8_lossy(value)
            )
        })
}

/// Drives one operation to its outcome; returns it and the value to hand
/// the caller (for hits).
fn drive(
    migration: &Migration,
    conns: &mut Connections,
    kind: OpKind,
    key: &[u8],
    value: &[u8],
    now: u64,
) -> (Outcome, Vec<u8>) {
    let mut op = migration
        .begin(kind, key, now)
        .expect("both rings place every key");
    let (mut from_new, mut from_old) = (Vec::new(), Vec::new());
    loop {
        let action = match op.step() {
            Step::Done(outcome) => {
                let value = match outcome {
                    Outcome::HitNew => from_new,
                    Outcome::HitOld => from_old,
                    _ => Vec::new(),
                };
                return (outcome, value);
            }
            Step::Do(action) => action,
        };
        use ketama_core::migration::{Command, ReplyKind, Side};
        let payload: Vec<u8> = match action.command {
            Command::AddLease => op.lease().to_vec(),
            Command::CasCopy => from_old.clone(),
            _ => value.to_vec(),
        };
        let answer = conns.run(migration, &action, key, &payload, 0);
        if answer.kind == ReplyKind::Hit {
            match action.side {
                Side::New => from_new = answer.value.clone(),
                Side::Old => from_old = answer.value.clone(),
            }
        }
        op.reply(Reply {
            kind: answer.kind,
            value: &answer.value,
            cas: answer.cas,
        })
        .expect("memcached answers what it was asked");
    }
}

/// Fills every key with version 0 on its old owner (the steady state),
/// from four threads.
pub fn fill(migration: &Migration, keys: usize) {
    const THREADS: usize = 4;
    std::thread::scope(|scope| {
        for t in 0..THREADS {
            scope.spawn(move || {
                let mut conns = Connections::default();
                for i in (t..keys).step_by(THREADS) {
                    let key = format!("key:{i}").into_bytes();
                    let (outcome, _) =
                        drive(migration, &mut conns, OpKind::Set, &key, &value_of(0), 0);
                    assert_eq!(
                        outcome,
                        Outcome::Stored,
                        "filling {}",
                        String::from_utf8_lossy(&key)
                    );
                }
            });
        }
    });
}

/// Runs the workload against `migration` (its schedule's start is the
/// moment the move begins) for `run.total_ms`, calling `at(ms)` hooks
/// (a server killed) from the main thread.
pub fn run(
    migration: Arc<Migration>,
    run: &Run,
    started_ms: u64,
    hooks: &mut [(u64, &mut dyn FnMut())],
) -> Report {
    let buckets = (run.total_ms / run.bucket_ms) as usize;
    let store = Arc::new(Store {
        keys: Keys::new(run.keys),
        versions: (0..run.keys).map(|_| Mutex::new(0)).collect(),
        acknowledged: (0..run.keys).map(|_| AtomicU64::new(0)).collect(),
        gets: (0..buckets).map(|_| AtomicU64::new(0)).collect(),
        hits: (0..buckets).map(|_| AtomicU64::new(0)).collect(),
        stale: AtomicU64::new(0),
        reads: AtomicU64::new(0),
        writes: AtomicU64::new(0),
        copies: AtomicU64::new(0),
        failed: AtomicU64::new(0),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let end = started_ms + run.total_ms;
    let bucket_ms = run.bucket_ms;
    let workers: Vec<_> = (0..run.threads)
        .map(|t| {
            let (store, migration, stop) = (store.clone(), migration.clone(), stop.clone());
            let writes_in_ten = run.writes_in_ten;
            std::thread::spawn(move || {
                let mut conns = Connections::default();
                let mut rng = 0x9e37_79b9_7f4a_7c15u64 ^ ((t as u64 + 1) * 0x2545_f491_4f6c_dd1d);
                while !stop.load(Relaxed) {
                    let now = now_ms();
                    if now >= end {
                        break;
                    }
                    let i = store.keys.draw(&mut rng);
                    if rng % 10 < writes_in_ten {
                        write(&store, &migration, &mut conns, i, now);
                    } else {
                        let bucket = ((now - started_ms) / bucket_ms) as usize;
                        read(&store, &migration, &mut conns, i, now, bucket);
                    }
                }
            })
        })
        .collect();
    hooks.sort_by_key(|h| h.0);
    for (at, hook) in hooks.iter_mut() {
        let when = started_ms + *at;
        while now_ms() < when {
            std::thread::sleep(Duration::from_millis(5));
        }
        hook();
    }
    for worker in workers {
        worker.join().expect("a client thread panicked");
    }
    stop.store(true, Relaxed);
    Report {
        buckets: (0..buckets)
            .map(|b| (store.gets[b].load(Relaxed), store.hits[b].load(Relaxed)))
            .collect(),
        reads: store.reads.load(Relaxed),
        stale: store.stale.load(Relaxed),
        writes_acknowledged: store.writes.load(Relaxed),
        copies: store.copies.load(Relaxed),
        failed: store.failed.load(Relaxed),
    }
}

fn read(
    store: &Store,
    migration: &Migration,
    conns: &mut Connections,
    i: usize,
    now: u64,
    bucket: usize,
) {
    let Some(gets) = store.gets.get(bucket) else {
        return; // past the last whole bucket
    };
    let key = &store.keys.names[i];
    let newest_acknowledged = store.acknowledged[i].load(Relaxed);
    let (outcome, value) = drive(migration, conns, OpKind::Get, key, b"", now);
    gets.fetch_add(1, Relaxed);
    match outcome {
        Outcome::HitNew | Outcome::HitOld => {
            store.hits[bucket].fetch_add(1, Relaxed);
            store.reads.fetch_add(1, Relaxed);
            let warm = migration.phase(key, now) == ketama_core::migration::Phase::Warm;
            if outcome == Outcome::HitOld && warm {
                store.copies.fetch_add(1, Relaxed);
            }
            if version_of(&value) < newest_acknowledged {
                store.stale.fetch_add(1, Relaxed);
            }
        }
        Outcome::Failed => {
            store.failed.fetch_add(1, Relaxed);
        }
        _ => fill_one(store, migration, conns, i),
    }
}

/// A miss: read the store, `add` its value to the cache.
fn fill_one(store: &Store, migration: &Migration, conns: &mut Connections, i: usize) {
    let version = store.versions[i].lock().unwrap();
    let (outcome, _) = drive(
        migration,
        conns,
        OpKind::Add,
        &store.keys.names[i],
        &value_of(*version),
        now_ms(),
    );
    acknowledge(store, i, *version, outcome);
}

fn write(store: &Store, migration: &Migration, conns: &mut Connections, i: usize, now: u64) {
    let mut version = store.versions[i].lock().unwrap();
    *version += 1;
    let (outcome, _) = drive(
        migration,
        conns,
        OpKind::Set,
        &store.keys.names[i],
        &value_of(*version),
        now,
    );
    acknowledge(store, i, *version, outcome);
}

fn acknowledge(store: &Store, i: usize, version: u64, outcome: Outcome) {
    match outcome {
        Outcome::Stored => {
            store.acknowledged[i].fetch_max(version, Relaxed);
            store.writes.fetch_add(1, Relaxed);
        }
        Outcome::Failed => {
            store.failed.fetch_add(1, Relaxed);
        }
        _ => {}
    }
}
