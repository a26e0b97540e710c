//! A pool moved under load, against real memcached servers on loopback:
//! 3 → 4 servers (libketama), and a change of placement on the same three
//! servers (pecl memcache's consistent hashing → php-memcached's
//! libmemcached), without the migration (switching rings at once) and in
//! each mode; once more with an old server killed during the move. Four
//! client threads, Zipf keys, 90 % gets; a history checker flags every read
//! older than the newest write acknowledged before it began.
//!
//! Asserted: no stale read in any run; warm-up keeps a higher hit ratio
//! during the move than switching at once. The hit ratio per half second is
//! printed (`--nocapture`); `scripts/bench_migration.sh` runs longer moves
//! and plots them (docs/migration.md). Knobs: `KETAMA_MIGRATION_SECONDS`
//! (the length of the warm-up, 2 s; a run is a quarter of it before the
//! move, the move (an interval of a quarter, the warm-up, an interval) and
//! a quarter after), `KETAMA_MIGRATION_KEYS` (20,000: the keys filled
//! before each run and drawn from), `KETAMA_MIGRATION_BUCKET_MS` (500) and
//! `KETAMA_MIGRATION_CSV` (a file to write every run's buckets into).

mod client;
mod workload;

use std::io::Write;
use std::sync::Arc;

use ketama_core::migration::{Migration, Mode, now_ms};
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use ketama_testkit::Memcached;
use workload::{Report, Run};

fn ring(servers: &[Memcached], flavour: Flavour) -> Arc<Ring> {
    let specs = servers
        .iter()
        .map(|s| ServerSpec::new(s.address(), 100))
        .collect();
    Arc::new(Ring::new(specs, RingConfig::flavour(flavour)).unwrap())
}

fn flush(servers: &mut [Memcached]) {
    use std::io::{BufRead, BufReader};
    for server in servers.iter() {
        let mut stream = std::net::TcpStream::connect(server.address()).expect("connect to flush");
        stream.write_all(b"flush_all\r\n").unwrap();
        let mut line = String::new();
        BufReader::new(stream).read_line(&mut line).unwrap();
        assert_eq!(line.trim_end(), "OK");
    }
}

fn knob(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(default)
}

/// A run's timeline in ms: (before the move, the move, the whole run).
fn timeline() -> (u64, u64, u64) {
    let warm = knob("KETAMA_MIGRATION_SECONDS", 2) * 1000;
    let (interval, before) = (warm / 4, warm / 4);
    let moving = interval + warm + interval;
    (before, moving, before + moving + before)
}

struct Case<'a> {
    name: String,
    old: Arc<Ring>,
    new: Arc<Ring>,
    /// `None`: switch rings at once (no migration).
    mode: Option<Mode>,
    kill: Option<&'a mut Memcached>,
}

fn run_case(case: Case<'_>, servers: &mut [Memcached], csv: &mut Option<std::fs::File>) -> Report {
    let (before, moving, total) = timeline();
    let interval = before;
    let warm = moving - 2 * interval;
    flush(servers);
    // Every key on its old owner first (a migration that starts in a day
    // places them with the old ring), then the run's own schedule.
    let keys = knob("KETAMA_MIGRATION_KEYS", 20_000) as usize;
    let filling = Migration::from_options(
        case.old.clone(),
        case.new.clone(),
        Mode::Warmup,
        Some(now_ms() + 86_400_000),
        None,
    )
    .unwrap();
    workload::fill(&filling, keys);
    let start = now_ms() + 1000;
    let options = match case.mode {
        None => "interval=0ms".to_string(),
        Some(_) => format!("interval={interval}ms,warmup={warm}ms"),
    };
    let mode = case.mode.unwrap_or(Mode::Phased);
    let migration = Arc::new(
        Migration::from_options(
            case.old.clone(),
            case.new.clone(),
            mode,
            Some(start + before),
            Some(&options),
        )
        .unwrap(),
    );
    let bucket_ms = knob("KETAMA_MIGRATION_BUCKET_MS", 500);
    let run = Run {
        total_ms: total,
        bucket_ms,
        threads: 4,
        keys,
        writes_in_ten: 1,
    };
    while now_ms() < start {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let mut killer = case.kill.map(|server| move || server.kill9());
    let mut hooks: Vec<(u64, &mut dyn FnMut())> = Vec::new();
    if let Some(kill) = killer.as_mut() {
        hooks.push((before + interval + warm / 4, kill));
    }
    let report = workload::run(migration.clone(), &run, start, &mut hooks);
    let (b, m) = (
        (before / bucket_ms) as usize,
        ((before + moving) / bucket_ms) as usize,
    );
    println!(
        "{}: hit ratio {:.4} before, {:.4} during, {:.4} after the move; {} reads checked, {} stale, \
         {} writes acknowledged, {} copies, {} failed operations",
        case.name,
        report.hit_ratio(0, b),
        report.hit_ratio(b, m),
        report.hit_ratio(m, usize::MAX),
        report.reads,
        report.stale,
        report.writes_acknowledged,
        report.copies,
        report.failed
    );
    let ratios: Vec<String> = report
        .buckets
        .iter()
        .map(|(g, h)| format!("{:.3}", *h as f64 / (*g).max(1) as f64))
        .collect();
    println!("  per {bucket_ms} ms: {}", ratios.join(" "));
    if let Some(file) = csv {
        for (bucket, (gets, hits)) in report.buckets.iter().enumerate() {
            let at = bucket as u64 * bucket_ms;
            writeln!(file, "{},{at},{gets},{hits},{before},{moving}", case.name).unwrap();
        }
    }
    report
}

#[test]
fn moves_under_load_serve_nothing_stale_and_warm_up_keeps_the_hits() {
    let mut servers: Vec<Memcached> = (0..4).map(|_| Memcached::start_with(256, &[])).collect();
    let mut csv = std::env::var_os("KETAMA_MIGRATION_CSV")
        .map(|path| std::fs::File::create(path).expect("the CSV file"));
    let three_old = ring(&servers[..3], Flavour::Libketama);
    let four_new = ring(&servers[..4], Flavour::Libketama);
    let pecl = ring(&servers[..3], Flavour::PeclMemcache);
    let libmemcached = ring(&servers[..3], Flavour::Libmemcached);
    let mut reports = Vec::new();
    for (what, old, new) in [
        ("3 -> 4 servers", &three_old, &four_new),
        ("pecl-memcache -> libmemcached", &pecl, &libmemcached),
    ] {
        for mode in [
            None,
            Some(Mode::Warmup),
            Some(Mode::Phased),
            Some(Mode::Gradual),
        ] {
            let name = format!("{what}, {}", mode.map_or("at once", |m| m.name()));
            let case = Case {
                name,
                old: old.clone(),
                new: new.clone(),
                mode,
                kill: None,
            };
            let report = run_case(case, &mut servers, &mut csv);
            assert_eq!(report.stale, 0, "stale reads");
            assert!(report.reads > 1000 && report.writes_acknowledged > 100);
            reports.push((what, mode, report));
        }
    }
    // An old server killed during the warm-up (it is in the new ring too).
    let (first, rest) = servers.split_at_mut(1);
    let case = Case {
        name: "3 -> 4 servers, warmup, a server killed".into(),
        old: three_old.clone(),
        new: four_new.clone(),
        mode: Some(Mode::Warmup),
        kill: Some(&mut first[0]),
    };
    let killed = run_case(case, rest, &mut csv);
    first[0].restart();
    assert_eq!(killed.stale, 0, "stale reads with a server killed");
    assert!(killed.failed > 0, "the kill was seen");
    // Warm-up keeps the hits that switching at once loses.
    let (before, moving, _) = timeline();
    let bucket_ms = knob("KETAMA_MIGRATION_BUCKET_MS", 500);
    let (b, m) = (
        (before / bucket_ms) as usize,
        ((before + moving) / bucket_ms) as usize,
    );
    for what in ["3 -> 4 servers", "pecl-memcache -> libmemcached"] {
        let ratio = |mode: Option<Mode>| {
            reports
                .iter()
                .find(|r| r.0 == what && r.1 == mode)
                .unwrap()
                .2
                .hit_ratio(b, m)
        };
        let (at_once, warm_up) = (ratio(None), ratio(Some(Mode::Warmup)));
        assert!(
            warm_up > at_once,
            "{what}: warm-up {warm_up:.4} against {at_once:.4} at once"
        );
        let copies = reports
            .iter()
            .find(|r| r.0 == what && r.1 == Some(Mode::Warmup))
            .unwrap()
            .2
            .copies;
        assert!(copies > 0, "{what}: warm-up copied nothing");
    }
}
