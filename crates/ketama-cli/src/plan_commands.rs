//! Capacity and migration planning: `dist` (how evenly a ring spreads keys)
//! and `diff` (how many keys move between two server lists, two flavours or
//! two key hashes).

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io::{IsTerminal, Write};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ketama_core::Ring;
use ketama_core::analysis::{
    DEFAULT_SAMPLE_KEYS, Measure, Movement, distribution, keyspace_shares_measured, plan_migration,
};
use ketama_core::escape::json_text;
use ketama_core::key_file::KeyLines;
use serde::Serialize;

use crate::Failure;
use crate::args::{RingArgs, TwoRings};
use crate::cli::DistArgs;
use ketama_cli::cli_ring::ChangeArgs;

const BAR_WIDTH: f64 = 40.0;

/// Bytes of a key file read between two progress updates.
const PROGRESS_BYTES: u64 = 64 * 1024;

/// Continuum points (old and new together), or sampled keys, from which
/// `diff` shows a spinner while it compares.
const LARGE_DIFF: usize = 1_000_000;

/// `dist --json`.
#[derive(Serialize)]
struct DistJson<'a> {
    /// "keyspace" (exact), "generated" (the default key sample) or "keys"
    /// (the keys of `keys_file`).
    source: &'static str,
    keys_file: Option<Cow<'a, str>>,
    keys: Option<usize>,
    points: Option<usize>,
    servers: Vec<ServerShareJson<'a>>,
    max_ratio: f64,
    min_ratio: f64,
    stddev: f64,
}

#[derive(Serialize)]
struct ServerShareJson<'a> {
    server: Cow<'a, str>,
    weight: Option<u64>,
    points: Option<u32>,
    share: f64,
    expected: f64,
    ratio: f64,
}

/// `diff --json`.
#[derive(Serialize)]
struct DiffJson<'a> {
    old: SideJson<'a>,
    new: SideJson<'a>,
    /// "exact" or "sampled".
    measure: &'static str,
    keys: Option<usize>,
    keys_file: Option<Cow<'a, str>>,
    moved: f64,
    ideal: f64,
    flows: Vec<FlowJson<'a>>,
}

#[derive(Serialize)]
struct SideJson<'a> {
    source: Cow<'a, str>,
    flavour: &'static str,
    hash: &'static str,
    points: Option<usize>,
}

#[derive(Serialize)]
struct FlowJson<'a> {
    from: Cow<'a, str>,
    to: Cow<'a, str>,
    share: f64,
}

fn write_json(value: &impl Serialize) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, value).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// A progress display on standard error, drawn only when standard error is
/// a terminal (hidden otherwise: nothing is written).
fn progress() -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
}

/// Where `dist`'s shares come from.
enum Source {
    /// Exactly, over the whole keyspace.
    Keyspace,
    /// On this many keys of the default sample (a per-key placement).
    Generated(usize),
    /// On this many keys of the `--keys` file.
    Keys(usize),
}

/// `ketama dist …ring inputs… [--keys FILE]`.
pub fn dist(args: DistArgs) -> Result<(), Failure> {
    let (parsed, extra) = RingArgs::from_options(&args.placement, &args.list, args.file)?;
    if let Some(extra) = extra {
        return Err(Failure::usage(format!(
            "dist takes no keys (got '{}'); use --keys FILE",
            extra.to_string_lossy()
        )));
    }
    let ring = parsed.ring()?;
    let (shares, source) = match &args.keys {
        None => match keyspace_shares_measured(&ring) {
            (shares, Measure::Exact) => (shares, Source::Keyspace),
            (shares, Measure::Sampled(n)) => (shares, Source::Generated(n)),
        },
        Some(path) => {
            let (shares, total) = sample_shares(&ring, path)?;
            (shares, Source::Keys(total))
        }
    };
    let report = distribution(&ring, &shares);
    let continuum = ring.is_continuum();
    if args.json {
        let (name, keys) = match source {
            Source::Keyspace => ("keyspace", None),
            Source::Generated(n) => ("generated", Some(n)),
            Source::Keys(n) => ("keys", Some(n)),
        };
        return write_json(&DistJson {
            source: name,
            keys_file: args.keys.as_ref().map(|p| json_text(p.as_bytes())),
            keys,
            points: continuum.then(|| ring.continuum().len()),
            servers: ring
                .servers()
                .iter()
                .zip(&report.servers)
                .map(|(server, share)| ServerShareJson {
                    server: json_text(server.address()),
                    weight: server.weight(),
                    points: continuum.then(|| server.point_count()),
                    share: share.share,
                    expected: share.expected,
                    ratio: share.ratio,
                })
                .collect(),
            max_ratio: report.max_ratio,
            min_ratio: report.min_ratio,
            stddev: report.stddev,
        });
    }
    let source = match source {
        Source::Keyspace => "exact share of the keyspace".to_string(),
        Source::Generated(n) => format!(
            "share of {n} generated keys key:0..key:{} (flavour {} is not a continuum; --keys FILE samples real keys)",
            n.saturating_sub(1),
            ring.config().flavour.name()
        ),
        Source::Keys(total) => format!(
            "share of {total} keys from {}",
            args.keys.as_deref().unwrap_or_default().to_string_lossy()
        ),
    };
    let widest = ring
        .servers()
        .iter()
        .map(|s| s.address().len())
        .max()
        .unwrap_or(6)
        .max(6);
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "# {source}; {} servers, {} points",
        ring.servers().len(),
        ring.continuum().len()
    )?;
    writeln!(
        out,
        "{:<widest$}  {:>8}  {:>7}  {:>8}  {:>8}  {:>6}",
        "SERVER", "WEIGHT", "POINTS", "SHARE", "EXPECTED", "RATIO"
    )?;
    let max_share = shares.iter().copied().fold(0.0, f64::max);
    for (server, line) in ring.servers().iter().zip(&report.servers) {
        let bar = "#".repeat((line.share / max_share * BAR_WIDTH).round() as usize);
        writeln!(
            out,
            "{:<widest$}  {:>8}  {:>7}  {:>7.3}%  {:>7.3}%  {:>6.3}  {bar}",
            String::from_utf8_lossy(server.address()),
            server.weight().map_or("-".to_string(), |w| w.to_string()),
            server.point_count(),
            line.share * 100.0,
            line.expected * 100.0,
            line.ratio,
        )?;
    }
    writeln!(
        out,
        "# share/expected: max {:.3}  min {:.3}  stddev {:.2}%",
        report.max_ratio,
        report.min_ratio,
        report.stddev * 100.0
    )?;
    Ok(())
}

/// Shares measured on a sample of real keys (one per line), with how many
/// keys were read.
fn sample_shares(ring: &Ring, path: &OsStr) -> Result<(Vec<f64>, usize), Failure> {
    let mut counts = vec![0u64; ring.servers().len()];
    let mut total = 0usize;
    for_each_key(path, |key| {
        let server = ring
            .locate(key)
            .ok_or_else(|| Failure::failed("the ring has no points"))?
            .server_index;
        counts[server] += 1;
        total += 1;
        Ok(())
    })?;
    if total == 0 {
        return Err(Failure::failed(format!(
            "{}: no keys",
            path.to_string_lossy()
        )));
    }
    let shares = counts.iter().map(|&c| c as f64 / total as f64).collect();
    Ok((shares, total))
}

/// `ketama diff [ring options] [--from-flavor F] [--to-flavor F]
/// [--from-hash H] [--to-hash H] [--keys FILE] OLD [NEW]`: the same list on
/// both sides when only one is given (or with `--servers`/`--servers-file`).
pub fn diff(args: ChangeArgs) -> Result<(), Failure> {
    let TwoRings {
        old,
        new,
        old_name,
        new_name,
    } = TwoRings::from_args(&args.placement, &args.list, &args.sides, args.files, "diff")?;
    if std::io::stderr().is_terminal() {
        eprintln!(
            "ketama: comparing {old_name} ({}) with {new_name} ({})",
            describe(&old),
            describe(&new)
        );
    }
    let keys = args.keys.as_deref().map(read_keys).transpose()?;
    let work = keys
        .as_ref()
        .map_or(old.continuum().len() + new.continuum().len(), Vec::len);
    let spinner = if work >= LARGE_DIFF {
        progress()
    } else {
        ProgressBar::hidden()
    };
    spinner.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("a valid progress template"),
    );
    spinner.set_message("comparing the two sides");
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let m = plan_migration(&old, &new, keys);
    spinner.finish_and_clear();
    if args.json {
        let side_json = |ring: &Ring, name: &str| SideJson {
            source: Cow::Owned(name.to_string()),
            flavour: ring.config().flavour.name(),
            hash: ring.key_hash().name(),
            points: ring.is_continuum().then(|| ring.continuum().len()),
        };
        let (measure, sampled) = match m.measure {
            Measure::Exact => ("exact", None),
            Measure::Sampled(n) => ("sampled", Some(n)),
        };
        return write_json(&DiffJson {
            old: side_json(&old, &old_name),
            new: side_json(&new, &new_name),
            measure,
            keys: sampled,
            keys_file: args.keys.as_ref().map(|p| json_text(p.as_bytes())),
            moved: m.moved,
            ideal: m.ideal,
            flows: m
                .flows
                .iter()
                .map(|(from, to, share)| FlowJson {
                    from: json_text(from),
                    to: json_text(to),
                    share: *share,
                })
                .collect(),
        });
    }
    let mut out = std::io::stdout().lock();
    write_moved(&mut out, &m, args.keys.as_deref())?;
    if !m.flows.is_empty() {
        writeln!(out, "FROM\tTO\tSHARE")?;
        for (from, to, share) in &m.flows {
            writeln!(
                out,
                "{}\t{}\t{:.3}%",
                String::from_utf8_lossy(from),
                String::from_utf8_lossy(to),
                share * 100.0
            )?;
        }
    }
    Ok(())
}

/// The `moved:` and `ideal:` lines of `diff` and `migrate plan`: the share
/// that moves, how it was measured (`keys`: the key file sampled, if any),
/// and the least any placement must move.
pub fn write_moved(
    out: &mut impl Write,
    m: &Movement,
    keys: Option<&OsStr>,
) -> Result<(), Failure> {
    let moved = m.moved * 100.0;
    match (m.measure, keys) {
        (Measure::Exact, _) => writeln!(out, "moved: {moved:.3}% of the keyspace")?,
        (Measure::Sampled(n), Some(path)) => writeln!(
            out,
            "moved: {moved:.3}% of {n} keys from {}",
            path.to_string_lossy()
        )?,
        (Measure::Sampled(n), None) => writeln!(
            out,
            "moved: {moved:.3}% of {n} generated keys key:0..key:{} (sampled: the two sides do not hash keys alike; --keys FILE samples real keys)",
            DEFAULT_SAMPLE_KEYS - 1
        )?,
    }
    writeln!(
        out,
        "ideal: {:.3}% (the least any placement must move for this change)",
        m.ideal * 100.0
    )?;
    Ok(())
}

/// "flavour F, hash H, N points" for the comparison line.
fn describe(ring: &Ring) -> String {
    let placement = if ring.is_continuum() {
        format!("{} points", ring.continuum().len())
    } else {
        "per-key placement".to_string()
    };
    format!(
        "flavour {}, hash {}, {placement}",
        ring.config().flavour.name(),
        ring.key_hash().name()
    )
}

/// Every line of `path` as a key (see [`for_each_key`]).
pub fn read_keys(path: &OsStr) -> Result<Vec<Vec<u8>>, Failure> {
    let mut keys = Vec::new();
    for_each_key(path, |key| {
        keys.push(key.to_vec());
        Ok(())
    })?;
    if keys.is_empty() {
        return Err(Failure::failed(format!(
            "{}: no keys",
            path.to_string_lossy()
        )));
    }
    Ok(keys)
}

/// Calls `visit` with each key of the key file `path`, streaming, as the
/// core reads key files ([`KeyLines::open`]: bounded lines, regular files
/// and character devices). When standard error is a terminal a progress
/// bar follows the bytes read.
fn for_each_key(
    path: &OsStr,
    mut visit: impl FnMut(&[u8]) -> Result<(), Failure>,
) -> Result<(), Failure> {
    let shown = path.to_string_lossy();
    let (mut keys, size) = KeyLines::open(Path::new(path))?;
    let bar = progress();
    match size {
        Some(size) => {
            bar.set_length(size);
            bar.set_style(
                ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({eta} left)")
                    .expect("a valid progress template")
                    .progress_chars("=> "),
            );
        }
        None => bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} {bytes}")
                .expect("a valid progress template"),
        ),
    }
    bar.set_message(format!("reading keys from {shown}"));
    let mut reported = 0u64;
    while let Some(key) = keys.next_key()? {
        visit(key)?;
        if keys.bytes_read() - reported >= PROGRESS_BYTES {
            bar.inc(keys.bytes_read() - reported);
            reported = keys.bytes_read();
        }
    }
    bar.finish_and_clear();
    Ok(())
}
