//! Contention benchmark: many writers appending at full rate to one set on
//! a real memcached (started here on 127.0.0.1), compacted either with CAS
//! on the one list (the plain recipe) or by flipping two lists (the `^`
//! seal and the copy header). It samples the value size, compaction
//! attempts and successes, and SetFull replies over time, checks that the
//! set holds exactly the acknowledged writes at the end, and writes a CSV
//! and an SVG plot.
//!
//! ```text
//! cargo run --release --example contention -- [--seconds 60] [--writers 16]
//!     [--compactors 4] [--out docs]
//! ```
//! (`scripts/contention.sh` runs it.) Bounded: every thread stops at the
//! deadline, and memcached is stopped on exit.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ketama_core::setcodec::flip::{self, ListId};
use ketama_core::setcodec::{CompactionPolicy, Format, Op, SetErrorKind};
use ketama_testkit::set_clients::SetClient;
use ketama_testkit::set_clients::flip_client::{Compaction, FlipClient};

/// The two ways of compacting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    CasOnly,
    Flip,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::CasOnly => "cas-only",
            Mode::Flip => "flip",
        }
    }
}

struct Options {
    seconds: u64,
    writers: usize,
    compactors: usize,
    out: std::path::PathBuf,
}

fn parse_options() -> Options {
    let mut options = Options {
        seconds: 60,
        writers: 16,
        compactors: 4,
        out: "docs".into(),
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut i = 0;
    while i < args.len() {
        let value = args.get(i + 1).cloned().unwrap_or_default();
        let number = || {
            value.parse::<u64>().unwrap_or_else(|_| {
                eprintln!("contention: {} needs a positive number", args[i]);
                std::process::exit(2)
            })
        };
        match args[i].as_str() {
            "--seconds" => options.seconds = number().clamp(1, 600),
            "--writers" => options.writers = number().clamp(1, 64) as usize,
            "--compactors" => options.compactors = number().clamp(1, 16) as usize,
            "--out" => options.out = value.clone().into(),
            other => {
                eprintln!("contention: unknown option {other}");
                std::process::exit(2)
            }
        }
        i += 2;
    }
    options
}

/// memcached on a free loopback port, stopped on drop.
struct Memcached {
    child: Child,
    address: String,
}

impl Memcached {
    fn start() -> Memcached {
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map(|a| a.port())
            .expect("a free port");
        let mut command = Command::new("memcached");
        command.args([
            "-l",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-U",
            "0",
            "-m",
            "256",
        ]);
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } == 0 {
            command.args(["-u", "root"]);
        }
        let child = command
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("memcached is installed (scripts/deps.sh)");
        let address = format!("127.0.0.1:{port}");
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(&address).is_err() {
            assert!(Instant::now() < deadline, "memcached did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        Memcached { child, address }
    }
}

impl Drop for Memcached {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Counters shared by the threads.
#[derive(Default)]
struct Counters {
    writes: AtomicU64,
    set_full: AtomicU64,
    attempts: AtomicU64,
    successes: AtomicU64,
}

/// One sample of the run.
struct Sample {
    at: f64,
    bytes: usize,
    writes: u64,
    attempts: u64,
    successes: u64,
    set_full: u64,
}

struct Run {
    mode: Mode,
    samples: Vec<Sample>,
    members: usize,
}

/// Records redundancy quickly: each writer adds a member and removes the
/// one before, so the live set stays small while the log keeps growing
/// until compaction rewrites it.
fn run(mode: Mode, options: &Options, server: &Memcached) -> Run {
    let base = format!("contended-{}", mode.name()).into_bytes();
    let deadline = Instant::now() + Duration::from_secs(options.seconds);
    let stop = Arc::new(AtomicBool::new(false));
    let counters = Arc::new(Counters::default());
    let policy = CompactionPolicy::default();
    let writers: Vec<_> = (0..options.writers)
        .map(|w| {
            let (address, base, counters) =
                (server.address.clone(), base.clone(), counters.clone());
            std::thread::spawn(move || {
                let mut kept = BTreeSet::new();
                let plain = SetClient::connect(&address);
                let flipped = FlipClient::connect(&address, &base);
                let mut target = ListId::A;
                let mut i = 0u64;
                while Instant::now() < deadline {
                    let member = format!("w{w}-{i}");
                    let op = if i % 2 == 0 { Op::Add } else { Op::Remove };
                    let subject = if op == Op::Add {
                        member
                    } else {
                        format!("w{w}-{}", i - 1)
                    };
                    let result = match mode {
                        Mode::CasOnly => plain
                            .write(&base, op, &[subject.as_bytes()], Format::T1, 0)
                            .map(|_| ()),
                        Mode::Flip => {
                            // Writers refresh their view of the active list every 16 writes.
                            if i % 16 == 0 {
                                target = flip::write_target(&flipped.read());
                            }
                            flipped
                                .write(op, &[subject.as_bytes()], Some(target))
                                .map(|_| ())
                        }
                    };
                    match result {
                        Ok(()) => {
                            counters.writes.fetch_add(1, Ordering::Relaxed);
                            if op == Op::Add {
                                kept.insert(subject);
                            } else {
                                kept.remove(&subject);
                            }
                        }
                        Err(e) if e.kind == SetErrorKind::SetFull => {
                            counters.set_full.fetch_add(1, Ordering::Relaxed);
                            // Not acknowledged: the member's fate is unknown.
                            kept.remove(&subject);
                            std::thread::sleep(Duration::from_millis(1));
                        }
                        Err(e) => panic!("write failed: {e}"),
                    }
                    i += 1;
                }
                kept
            })
        })
        .collect();
    let compactors: Vec<_> = (0..options.compactors)
        .map(|_| {
            let (address, base, counters, stop) = (
                server.address.clone(),
                base.clone(),
                counters.clone(),
                stop.clone(),
            );
            std::thread::spawn(move || {
                let plain = SetClient::connect(&address);
                let flipped = FlipClient::connect(&address, &base);
                while !stop.load(Ordering::Relaxed) {
                    match mode {
                        Mode::CasOnly => match plain.read(&base, &policy, false) {
                            Ok(result) => {
                                if let Some(won) = result.compacted {
                                    counters.attempts.fetch_add(1, Ordering::Relaxed);
                                    if won {
                                        counters.successes.fetch_add(1, Ordering::Relaxed);
                                    }
                                }
                            }
                            Err(e) => panic!("read failed: {e}"),
                        },
                        Mode::Flip => match flipped.compact(policy.threshold, false) {
                            Compaction::Nothing | Compaction::Sealed => {}
                            Compaction::Flipped => {
                                counters.attempts.fetch_add(1, Ordering::Relaxed);
                                counters.successes.fetch_add(1, Ordering::Relaxed);
                            }
                            Compaction::Lost => {
                                counters.attempts.fetch_add(1, Ordering::Relaxed);
                            }
                        },
                    }
                    std::thread::sleep(Duration::from_millis(5));
                }
            })
        })
        .collect();
    let started = Instant::now();
    let probe_plain = SetClient::connect(&server.address);
    let probe_flip = FlipClient::connect(&server.address, &base);
    let mut samples = Vec::new();
    while Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(250));
        let bytes = match mode {
            Mode::CasOnly => probe_plain.fetch(&base).map_or(0, |(v, _, _)| v.len()),
            Mode::Flip => probe_flip.sizes().iter().sum(),
        };
        samples.push(Sample {
            at: started.elapsed().as_secs_f64(),
            bytes,
            writes: counters.writes.load(Ordering::Relaxed),
            attempts: counters.attempts.load(Ordering::Relaxed),
            successes: counters.successes.load(Ordering::Relaxed),
            set_full: counters.set_full.load(Ordering::Relaxed),
        });
    }
    let mut expected = BTreeSet::new();
    let mut uncertain = 0;
    for writer in writers {
        let kept = writer.join().expect("writer");
        expected.extend(kept);
    }
    stop.store(true, Ordering::Relaxed);
    for compactor in compactors {
        compactor.join().expect("compactor");
    }
    // Every acknowledged write is there: members kept by their writer are
    // present; others may be present only if a SetFull hid their fate.
    let members: BTreeSet<String> = match mode {
        Mode::CasOnly => probe_plain
            .read(&base, &policy, false)
            .expect("final read")
            .set
            .members
            .iter()
            .map(|m| String::from_utf8_lossy(m).into_owned())
            .collect(),
        Mode::Flip => probe_flip
            .read()
            .members
            .iter()
            .map(|m| String::from_utf8_lossy(m).into_owned())
            .collect(),
    };
    let missing: Vec<_> = expected.difference(&members).collect();
    assert!(
        missing.is_empty(),
        "{}: acknowledged members missing: {missing:?}",
        mode.name()
    );
    uncertain += members.difference(&expected).count();
    if uncertain > 0 && samples.last().is_some_and(|s| s.set_full == 0) {
        panic!(
            "{}: {uncertain} members present that were removed",
            mode.name()
        );
    }
    Run {
        mode,
        samples,
        members: members.len(),
    }
}

fn csv(runs: &[Run]) -> String {
    let mut out = String::from(
        "mode,seconds,value_bytes,writes,compaction_attempts,compaction_successes,set_full\n",
    );
    for run in runs {
        for s in &run.samples {
            let _ = writeln!(
                out,
                "{},{:.2},{},{},{},{},{}",
                run.mode.name(),
                s.at,
                s.bytes,
                s.writes,
                s.attempts,
                s.successes,
                s.set_full
            );
        }
    }
    out
}

/// A line chart of value size over time, one line per mode.
fn svg(runs: &[Run], options: &Options) -> String {
    let (w, h, left, right, top, bottom) = (760.0, 360.0, 80.0, 20.0, 40.0, 50.0);
    let max_t = options.seconds as f64;
    let max_b = runs
        .iter()
        .flat_map(|r| r.samples.iter().map(|s| s.bytes))
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let x = |t: f64| left + (w - left - right) * t / max_t;
    let y = |b: f64| h - bottom - (h - top - bottom) * b / max_b;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{left}\" y=\"20\" font-size=\"14\">Set value size under contention: {} writers, {} compactors, {} s (memcached on 127.0.0.1)</text>\n",
        options.writers, options.compactors, options.seconds
    );
    let _ = writeln!(
        out,
        "<line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/>\n<line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\" stroke=\"black\"/>",
        h - bottom,
        w - right,
        h - bottom,
        h - bottom
    );
    for i in 0..=4 {
        let b = max_b * i as f64 / 4.0;
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{:.0} KiB</text>",
            left - 6.0,
            y(b) + 4.0,
            b / 1024.0
        );
        let t = max_t * i as f64 / 4.0;
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{:.0} s</text>",
            x(t),
            h - bottom + 18.0,
            t
        );
    }
    for (run, colour) in runs.iter().zip(["#c0392b", "#2471a3"]) {
        let points: Vec<String> = run
            .samples
            .iter()
            .map(|s| format!("{:.1},{:.1}", x(s.at), y(s.bytes as f64)))
            .collect();
        let _ = writeln!(
            out,
            "<polyline fill=\"none\" stroke=\"{colour}\" stroke-width=\"1.5\" points=\"{}\"/>",
            points.join(" ")
        );
    }
    for (i, (run, colour)) in runs.iter().zip(["#c0392b", "#2471a3"]).enumerate() {
        let last = run.samples.last();
        let _ = writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" fill=\"{colour}\">{}: last {} bytes, {} of {} compactions won, {} SetFull, {} writes</text>",
            left + 10.0,
            top + 16.0 + 16.0 * i as f64,
            run.mode.name(),
            last.map_or(0, |s| s.bytes),
            last.map_or(0, |s| s.successes),
            last.map_or(0, |s| s.attempts),
            last.map_or(0, |s| s.set_full),
            last.map_or(0, |s| s.writes)
        );
    }
    out.push_str("</svg>\n");
    out
}

fn main() {
    let options = parse_options();
    let server = Memcached::start();
    let runs: Vec<Run> = [Mode::CasOnly, Mode::Flip]
        .into_iter()
        .map(|mode| {
            eprintln!("contention: {} for {} s ...", mode.name(), options.seconds);
            run(mode, &options, &server)
        })
        .collect();
    std::fs::create_dir_all(&options.out).expect("output directory");
    std::fs::write(options.out.join("contention.csv"), csv(&runs)).expect("write csv");
    std::fs::write(options.out.join("contention.svg"), svg(&runs, &options)).expect("write svg");
    for run in &runs {
        let last = run.samples.last().expect("samples");
        let peak = run.samples.iter().map(|s| s.bytes).max().unwrap_or(0);
        println!(
            "{}: {} writes, value {} bytes at the end (peak {}), compactions {} won of {} tried, \
             {} SetFull, {} members at the end, nothing acknowledged lost",
            run.mode.name(),
            last.writes,
            last.bytes,
            peak,
            last.successes,
            last.attempts,
            last.set_full,
            run.members
        );
    }
}
