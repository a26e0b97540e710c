//! Capacity planning: `dist` (how evenly a ring spreads keys) and `diff`
//! (how many keys move between two server lists).

use std::ffi::OsStr;
use std::io::{BufRead, IsTerminal, Write};
use std::os::unix::ffi::OsStrExt;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use ketama::Ring;
use ketama::analysis::{distribution, keyspace_shares, movement};
use ketama::escape::json_text;
use serde::Serialize;

use crate::Failure;
use crate::args::RingArgs;
use crate::cli::{DiffArgs, DistArgs};

const BAR_WIDTH: f64 = 40.0;

/// Bytes of the key file read between two progress updates.
const PROGRESS_BYTES: u64 = 64 * 1024;

/// Continuum points (old and new together) from which `diff` shows a
/// spinner while it compares.
const LARGE_DIFF_POINTS: usize = 1_000_000;

/// `dist --json`.
#[derive(Serialize)]
struct DistJson<'a> {
    /// "keyspace" (exact) or "keys" (a sample from `keys_file`).
    source: &'static str,
    keys_file: Option<&'a str>,
    keys: Option<u64>,
    points: usize,
    servers: Vec<ServerShareJson<'a>>,
    max_ratio: f64,
    min_ratio: f64,
    stddev: f64,
}

#[derive(Serialize)]
struct ServerShareJson<'a> {
    server: &'a str,
    weight: Option<u64>,
    points: u32,
    share: f64,
    expected: f64,
    ratio: f64,
}

/// `diff --json`.
#[derive(Serialize)]
struct DiffJson<'a> {
    old: RingJson<'a>,
    new: RingJson<'a>,
    moved: f64,
    ideal: f64,
    flows: Vec<FlowJson<'a>>,
}

#[derive(Serialize)]
struct RingJson<'a> {
    file: &'a str,
    points: usize,
}

#[derive(Serialize)]
struct FlowJson<'a> {
    from: &'a str,
    to: &'a str,
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
fn progress(length: Option<u64>) -> ProgressBar {
    if !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    ProgressBar::with_draw_target(length, ProgressDrawTarget::stderr())
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
    let (shares, sampled) = match &args.keys {
        None => (keyspace_shares(&ring), None),
        Some(path) => {
            let (shares, total) = sample_shares(&ring, path)?;
            (shares, Some(total))
        }
    };
    let report = distribution(&ring, &shares);
    if args.json {
        let names: Vec<_> = ring
            .servers()
            .iter()
            .map(|s| json_text(s.address()))
            .collect();
        let keys_file = args.keys.as_ref().map(|p| json_text(p.as_bytes()));
        return write_json(&DistJson {
            source: if sampled.is_some() {
                "keys"
            } else {
                "keyspace"
            },
            keys_file: keys_file.as_deref(),
            keys: sampled,
            points: ring.continuum().len(),
            servers: ring
                .servers()
                .iter()
                .zip(&report.servers)
                .zip(&names)
                .map(|((server, share), name)| ServerShareJson {
                    server: name,
                    weight: server.weight(),
                    points: server.point_count(),
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
    let source = match (sampled, &args.keys) {
        (Some(total), Some(path)) => {
            format!("share of {total} keys from {}", path.to_string_lossy())
        }
        _ => "exact share of the keyspace".to_string(),
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

/// Shares measured on a sample of real keys (one per line), with a progress
/// bar over the file's bytes when standard error is a terminal.
fn sample_shares(ring: &Ring, path: &OsStr) -> Result<(Vec<f64>, u64), Failure> {
    let shown = path.to_string_lossy();
    let file = std::fs::File::open(path).map_err(|e| Failure::failed(format!("{shown}: {e}")))?;
    let length = file
        .metadata()
        .ok()
        .filter(|m| m.is_file())
        .map(|m| m.len());
    let bar = progress(length);
    if length.is_some() {
        bar.set_style(
            ProgressStyle::with_template("{msg} [{bar:30}] {bytes}/{total_bytes} ({eta} left)")
                .expect("a valid progress template")
                .progress_chars("=> "),
        );
    } else {
        bar.set_style(
            ProgressStyle::with_template("{spinner} {msg} {bytes}")
                .expect("a valid progress template"),
        );
    }
    bar.set_message(format!("reading keys from {shown}"));
    let mut counts = vec![0u64; ring.servers().len()];
    let mut total = 0u64;
    let mut unreported = 0u64;
    for line in std::io::BufReader::new(file).split(b'\n') {
        let line = line?;
        unreported += line.len() as u64 + 1;
        if unreported >= PROGRESS_BYTES {
            bar.inc(unreported);
            unreported = 0;
        }
        let key = line.strip_suffix(b"\r").unwrap_or(&line);
        let server = ring
            .locate(key)
            .ok_or_else(|| Failure::failed("the ring has no points"))?
            .server_index;
        counts[server] += 1;
        total += 1;
    }
    bar.finish_and_clear();
    if total == 0 {
        return Err(Failure::failed(format!("{shown}: no keys")));
    }
    let shares = counts.iter().map(|&c| c as f64 / total as f64).collect();
    Ok((shares, total))
}

/// `ketama diff [ring options] OLD NEW`.
pub fn diff(args: DiffArgs) -> Result<(), Failure> {
    let old = RingArgs::from_file(&args.placement, args.old.clone().into())?.ring()?;
    let new = RingArgs::from_file(&args.placement, args.new.clone().into())?.ring()?;
    let (old_file, new_file) = (args.old.to_string_lossy(), args.new.to_string_lossy());
    let points = old.continuum().len() + new.continuum().len();
    let on_terminal = std::io::stderr().is_terminal();
    if on_terminal {
        eprintln!(
            "ketama: comparing {old_file} ({} points) with {new_file} ({} points)",
            old.continuum().len(),
            new.continuum().len()
        );
    }
    let spinner = if points >= LARGE_DIFF_POINTS {
        progress(None)
    } else {
        ProgressBar::hidden()
    };
    spinner.set_style(
        ProgressStyle::with_template("{spinner} {msg} ({elapsed})")
            .expect("a valid progress template"),
    );
    spinner.set_message(format!("comparing {points} points"));
    spinner.enable_steady_tick(std::time::Duration::from_millis(120));
    let m = movement(&old, &new);
    spinner.finish_and_clear();
    if args.json {
        let names: Vec<_> = m
            .flows
            .iter()
            .map(|(from, to, _)| (json_text(from), json_text(to)))
            .collect();
        let (old_name, new_name) = (
            json_text(args.old.as_bytes()),
            json_text(args.new.as_bytes()),
        );
        return write_json(&DiffJson {
            old: RingJson {
                file: &old_name,
                points: old.continuum().len(),
            },
            new: RingJson {
                file: &new_name,
                points: new.continuum().len(),
            },
            moved: m.moved,
            ideal: m.ideal,
            flows: m
                .flows
                .iter()
                .zip(&names)
                .map(|((_, _, share), (from, to))| FlowJson {
                    from,
                    to,
                    share: *share,
                })
                .collect(),
        });
    }
    let mut out = std::io::stdout().lock();
    writeln!(out, "moved: {:.3}% of the keyspace", m.moved * 100.0)?;
    writeln!(
        out,
        "ideal: {:.3}% (the least any placement must move for this change)",
        m.ideal * 100.0
    )?;
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
