//! The set recipe under faults of a real memcached on 127.0.0.1, 8 writers
//! and 2 compacting readers per run:
//!
//! * the server killed with SIGKILL mid-run and restarted, empty, on the
//!   same port (60 runs);
//! * a memory limit so small that filler traffic evicts the set's key
//!   (50 runs).
//!
//! What must hold: while the key survives, no acknowledged write is lost;
//! after a loss the cache semantics hold exactly: a remove of a missing set
//! does nothing and the next add recreates the set with its own members.
//!
//! The check, per member (each member is written by one writer only): its
//! last write decides it. The set's final life began with the last ADD that
//! created it (every loss is followed by one, seen by its writer as
//! `Created`). A last write sent after that creation was acknowledged must
//! be in the value exactly; one acknowledged before the creation was sent
//! must be gone; a remove leaves the member absent either way. Only a last
//! add that overlaps the creation in time, or whose reply was lost with the
//! server, can go either way: those are counted, not guessed.

mod connection;

use ketama_testkit as common;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::Memcached;
use common::random::XorShift;
use connection::Connection;
use ketama_core::setcodec::recipe::{self, Reply, WriteAction, WriteOutcome, Writer};
use ketama_core::setcodec::{CompactionPolicy, DecodeOptions, Format, Op, decode, encode};

const WRITERS: usize = 8;
const OPS_PER_WRITER: usize = 30;
const MEMBERS_PER_WRITER: u64 = 12;
/// How long a client keeps trying to reach a server that is restarting (a
/// killed server took 10 s to be reaped on a loaded 2-core machine).
const RECONNECT_LIMIT: Duration = Duration::from_secs(60);

/// One write of a batch of members, as its writer saw it.
#[derive(Clone, Debug)]
struct WriteRecord {
    op: Op,
    /// `None`: no reply (the server died, or refused to store): unknown.
    outcome: Option<WriteOutcome>,
    /// When the write's last action was sent, and when its reply came.
    last_sent: Instant,
    acknowledged: Instant,
}

/// Runs the recipe for one payload over `connection`.
fn write_once(connection: &mut Connection, key: &[u8], op: Op, payload: &[u8]) -> WriteRecord {
    let mut writer = Writer::new(op, recipe::DEFAULT_MAX_RETRIES);
    let mut action = writer.first();
    let mut last_sent = Instant::now();
    let mut acknowledged = last_sent;
    for _step in 0..32 {
        if let WriteAction::Done(outcome) = action {
            return WriteRecord {
                op,
                outcome: Some(outcome),
                last_sent,
                acknowledged,
            };
        }
        last_sent = Instant::now();
        let reply = match action {
            WriteAction::Done(_) => unreachable!("returned above"),
            WriteAction::Append => connection.store("append", key, payload, None),
            WriteAction::Add => connection.store("add", key, payload, None),
            WriteAction::Probe => connection.gets(key).map(|hit| match hit {
                Some(_) => Reply::Exists,
                None => Reply::NotFound,
            }),
        };
        let Ok(reply) = reply else {
            break;
        };
        acknowledged = Instant::now();
        action = writer
            .on_reply(reply)
            .expect("the recipe finishes within its retries");
    }
    WriteRecord {
        op,
        outcome: None,
        last_sent,
        acknowledged: Instant::now(),
    }
}

/// A writer: `OPS_PER_WRITER` batches of adds and removes of its own
/// members; returns each member's writes in order.
fn run_writer(
    address: String,
    key: Arc<String>,
    writer: usize,
    seed: u64,
    acknowledged: Arc<AtomicUsize>,
    pause: Duration,
    quiet: Arc<AtomicBool>,
) -> BTreeMap<String, Vec<WriteRecord>> {
    let mut rng = XorShift(seed | 1);
    let mut next = move || rng.next();
    let mut history: BTreeMap<String, Vec<WriteRecord>> = BTreeMap::new();
    let mut connection = Connection::open_retrying(&address);
    for _ in 0..OPS_PER_WRITER {
        wait_while(&quiet);
        let op = if next() % 3 == 0 { Op::Remove } else { Op::Add };
        let batch: BTreeSet<String> = (0..1 + next() % 3)
            .map(|_| format!("w{writer}-m{}", next() % MEMBERS_PER_WRITER))
            .collect();
        let payload = encode(op, &batch.iter().collect::<Vec<_>>(), Format::T1, 250).unwrap();
        let record = write_once(&mut connection, key.as_bytes(), op, &payload);
        if record.outcome.is_some() {
            acknowledged.fetch_add(1, Ordering::SeqCst);
        } else {
            // The server went away (or refused to store): a new connection.
            connection = Connection::open_retrying(&address);
        }
        for member in batch {
            history.entry(member).or_default().push(record.clone());
        }
        std::thread::sleep(pause);
    }
    history
}

/// A reader compacting eagerly until `stop`; returns its compactions.
fn run_reader(
    address: String,
    key: Arc<String>,
    stop: Arc<AtomicBool>,
    quiet: Arc<AtomicBool>,
) -> usize {
    let policy = CompactionPolicy {
        threshold: 8,
        ..CompactionPolicy::default()
    };
    let mut compactions = 0;
    let mut connection = Connection::open_retrying(&address);
    for _ in 0..100_000 {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        wait_while(&quiet);
        let read = connection.gets(key.as_bytes());
        let Ok(found) = read else {
            connection = Connection::open_retrying(&address);
            continue;
        };
        let Some((value, cas)) = found else {
            std::thread::sleep(Duration::from_micros(200));
            continue;
        };
        // The tests' sets never expire (-1, as `mg <key> t` reports it).
        let plan = recipe::plan_read(
            &value,
            cas,
            Some(-1),
            &DecodeOptions::default(),
            &policy,
            false,
        )
        .unwrap_or_else(|e| panic!("a value in memcached does not decode: {e}"));
        if let Some(write) = plan.compaction {
            match connection.store("cas", key.as_bytes(), &write.value, Some(write.cas)) {
                Ok(Reply::Stored) => compactions += 1,
                Ok(_) => {}
                Err(_) => connection = Connection::open_retrying(&address),
            }
        }
    }
    compactions
}

/// Waits (bounded) while `quiet` is set: the run's clients leave the set's
/// key alone so that filler traffic can evict it.
fn wait_while(quiet: &AtomicBool) {
    let deadline = Instant::now() + RECONNECT_LIMIT;
    while quiet.load(Ordering::SeqCst) && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// What one run's check found.
#[derive(Default, Debug)]
struct Tally {
    acknowledged: usize,
    recreations: usize,
    checked_members: usize,
    undecidable_members: usize,
    lost: Vec<String>,
    compactions: usize,
}

/// Compares the final value with what the writers' records decide.
fn check_run(
    histories: &[BTreeMap<String, Vec<WriteRecord>>],
    final_value: Option<Vec<u8>>,
    tally: &mut Tally,
) {
    let present: BTreeSet<Vec<u8>> = match &final_value {
        None => BTreeSet::new(),
        Some(value) => decode(value, &DecodeOptions::default())
            .expect("the final value decodes")
            .members
            .iter()
            .map(|m| m.to_vec())
            .collect(),
    };
    let creations: Vec<&WriteRecord> = histories
        .iter()
        .flat_map(|h| h.values().flatten())
        .filter(|r| r.outcome == Some(WriteOutcome::Created))
        .collect();
    // A record is listed once per member of its batch: count batches once.
    let distinct_creations: BTreeSet<Instant> = creations.iter().map(|r| r.last_sent).collect();
    tally.recreations += distinct_creations.len().saturating_sub(1);
    // The last creation to execute ran within [window_start, window_end].
    let window_start = creations.iter().map(|r| r.last_sent).max();
    let window_end = window_start.map(|start| {
        creations
            .iter()
            .filter(|r| r.acknowledged >= start)
            .map(|r| r.acknowledged)
            .max()
            .unwrap()
    });
    let mut everything_added = BTreeSet::new();
    for history in histories {
        for (member, writes) in history {
            if writes.iter().any(|w| w.op == Op::Add) {
                everything_added.insert(member.as_bytes().to_vec());
            }
            let last = writes.last().unwrap();
            let expected = match (&final_value, last.op, last.outcome, window_start) {
                (None, ..) => Some(false),
                (Some(_), Op::Remove, Some(_), _) => Some(false),
                (Some(_), Op::Add, Some(_), Some(start)) => {
                    if last.last_sent > window_end.unwrap() {
                        Some(true)
                    } else if last.acknowledged < start {
                        Some(false)
                    } else {
                        None
                    }
                }
                (Some(_), Op::Add, Some(_), None) => panic!("a value exists but nobody created it"),
                (Some(_), _, None, _) => None,
            };
            match expected {
                None => tally.undecidable_members += 1,
                Some(expected) => {
                    tally.checked_members += 1;
                    if present.contains(member.as_bytes()) != expected {
                        tally.lost.push(format!(
                            "{member}: expected {}, last write {last:?}",
                            if expected { "present" } else { "absent" }
                        ));
                    }
                }
            }
        }
    }
    for member in &present {
        assert!(
            everything_added.contains(member),
            "{:?} is in the set but nobody added it",
            String::from_utf8_lossy(member)
        );
    }
}

/// What a fault sees of its run.
struct RunState<'a> {
    server: &'a Arc<Mutex<Memcached>>,
    key: &'a str,
    /// Writes acknowledged so far.
    acknowledged: &'a AtomicUsize,
    /// While set, the run's writers and readers wait.
    quiet: &'a AtomicBool,
}

/// One run: writers and readers on a fresh key of `server`, with `fault`
/// run alongside them.
fn run(
    server: &Arc<Mutex<Memcached>>,
    address: &str,
    run: usize,
    pause: Duration,
    fault: impl FnOnce(RunState),
    tally: &mut Tally,
) {
    let key = Arc::new(format!("faulty-set-{run}"));
    let acknowledged = Arc::new(AtomicUsize::new(0));
    let stop_readers = Arc::new(AtomicBool::new(false));
    let quiet = Arc::new(AtomicBool::new(false));
    let histories = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..WRITERS)
            .map(|w| {
                let (address, key, acknowledged, quiet) = (
                    address.to_string(),
                    key.clone(),
                    acknowledged.clone(),
                    quiet.clone(),
                );
                let seed = ((run * WRITERS + w) as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                scope.spawn(move || run_writer(address, key, w, seed, acknowledged, pause, quiet))
            })
            .collect();
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (address, key, stop, quiet) = (
                    address.to_string(),
                    key.clone(),
                    stop_readers.clone(),
                    quiet.clone(),
                );
                scope.spawn(move || run_reader(address, key, stop, quiet))
            })
            .collect();
        fault(RunState {
            server,
            key: &key,
            acknowledged: &acknowledged,
            quiet: &quiet,
        });
        quiet.store(false, Ordering::SeqCst);
        let histories: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
        stop_readers.store(true, Ordering::SeqCst);
        for reader in readers {
            tally.compactions += reader.join().unwrap();
        }
        histories
    });
    tally.acknowledged += acknowledged.load(Ordering::SeqCst);
    let final_value = Connection::open_retrying(address)
        .gets(key.as_bytes())
        .expect("final read")
        .map(|(value, _)| value);
    check_run(&histories, final_value, tally);
}

/// Waits (bounded) until `count` writes are acknowledged.
fn wait_for_writes(acknowledged: &AtomicUsize, count: usize) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while acknowledged.load(Ordering::SeqCst) < count {
        assert!(Instant::now() < deadline, "writers stalled");
        std::thread::sleep(Duration::from_micros(100));
    }
}

#[test]
fn a_server_killed_and_restarted_mid_run_loses_only_what_it_held() {
    const RUNS: usize = 60;
    let server = Arc::new(Mutex::new(Memcached::start()));
    let address = server.lock().unwrap().address();
    let mut tally = Tally::default();
    // Runs in which a write was acknowledged after the restart: each of
    // those must have recreated its set.
    let mut written_after_restart = 0;
    for n in 0..RUNS {
        // Kill when a quarter to three quarters of the writes are acknowledged.
        let at = WRITERS * OPS_PER_WRITER * (1 + n % 3) / 4;
        let pause = Duration::from_micros(200 + 100 * (n as u64 % 4));
        let acknowledged_before = tally.acknowledged;
        let mut at_restart = 0;
        run(
            &server,
            &address,
            n,
            pause,
            |state| {
                wait_for_writes(state.acknowledged, at);
                let mut server = state.server.lock().unwrap();
                server.kill9();
                std::thread::sleep(Duration::from_millis(n as u64 % 20));
                server.restart();
                at_restart = state.acknowledged.load(Ordering::SeqCst);
            },
            &mut tally,
        );
        if tally.acknowledged - acknowledged_before > at_restart {
            written_after_restart += 1;
        }
    }
    eprintln!(
        "kill -9: {RUNS} runs, {written_after_restart} written to after the restart, {tally:?}"
    );
    assert!(tally.lost.is_empty(), "{:#?}", tally.lost);
    assert!(
        tally.recreations >= written_after_restart && written_after_restart > RUNS / 4,
        "{written_after_restart} runs wrote after the restart: {tally:?}"
    );
    assert!(tally.compactions > 0, "readers never compacted: {tally:?}");
    assert!(
        tally.checked_members > 10 * tally.undecidable_members,
        "too few members decidable to mean anything: {tally:?}"
    );
}

#[test]
fn evicted_sets_are_recreated_by_adds_and_lose_nothing_while_they_live() {
    const RUNS: usize = 50;
    // The smallest cache memcached runs with, and no slab class keeping
    // pages for itself: filler traffic pushes the set's key out.
    let server = Arc::new(Mutex::new(Memcached::start_with(
        2,
        &["-o", "slab_reassign,slab_automove=2", "-I", "1m"],
    )));
    let address = server.lock().unwrap().address();
    let evictions_before = server.lock().unwrap().stat("evictions");
    let mut tally = Tally::default();
    let filler_done = AtomicBool::new(false);
    /// Stops the filler however the runs end (a failed check included).
    struct StopFiller<'a>(&'a AtomicBool);
    impl Drop for StopFiller<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }
    std::thread::scope(|scope| {
        let _stop_filler = StopFiller(&filler_done);
        let filler = scope.spawn(|| {
            let mut connection = Connection::open_retrying(&address);
            let mut n = 0u64;
            let deadline = Instant::now() + Duration::from_secs(600);
            while !filler_done.load(Ordering::SeqCst) && Instant::now() < deadline {
                n += 1;
                let value = vec![b'x'; 64 + (n as usize * 97) % 3000];
                let key = format!("filler-{n}");
                if connection
                    .store("set", key.as_bytes(), &value, None)
                    .is_err()
                {
                    connection = Connection::open_retrying(&address);
                }
            }
        });
        for n in 0..RUNS {
            let pause = Duration::from_micros(500 + 250 * (n as u64 % 4));
            let at = WRITERS * OPS_PER_WRITER * (1 + n % 3) / 4;
            run(
                &server,
                &address,
                n,
                pause,
                |state| {
                    // Leave the key alone until the filler evicts it (at most 3 s).
                    wait_for_writes(state.acknowledged, at);
                    state.quiet.store(true, Ordering::SeqCst);
                    let mut probe = Connection::open_retrying(&address);
                    let deadline = Instant::now() + Duration::from_secs(3);
                    while probe.exists_without_bumping(state.key.as_bytes()) {
                        if Instant::now() > deadline {
                            break;
                        }
                        std::thread::sleep(Duration::from_millis(10));
                    }
                },
                &mut tally,
            );
        }
        filler_done.store(true, Ordering::SeqCst);
        filler.join().unwrap();
    });
    let evictions = server.lock().unwrap().stat("evictions") - evictions_before;
    eprintln!("eviction: {RUNS} runs, {evictions} evictions, {tally:?}");
    assert!(tally.lost.is_empty(), "{:#?}", tally.lost);
    assert!(evictions > 0, "nothing was evicted: {tally:?}");
    assert!(
        tally.recreations > 0,
        "no set was evicted and recreated during a run: {tally:?}"
    );
    assert!(
        tally.checked_members > 10 * tally.undecidable_members,
        "too few members decidable to mean anything: {tally:?}"
    );
}
