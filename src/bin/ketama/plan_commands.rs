//! Capacity planning: `dist` (how evenly a ring spreads keys) and `diff`
//! (how many keys move between two server lists).

use std::io::{BufRead, Write};

use ketama::Ring;
use ketama::analysis::{keyspace_shares, movement};

use crate::Failure;
use crate::args::RingArgs;

/// Keys per progress report when sampling a key file.
const PROGRESS_EVERY: usize = 1_000_000;
const BAR_WIDTH: f64 = 40.0;

/// `ketama dist …ring inputs… [--keys FILE]`.
pub fn dist(args: &[String]) -> Result<(), Failure> {
    let (keys_file, rest) = take_option(args, "--keys")?;
    let parsed = RingArgs::parse(&rest)?;
    if parsed.group_by_server {
        return Err(Failure::usage(
            "dist takes no --group-by-server (only find does)",
        ));
    }
    if !parsed.rest.is_empty() {
        return Err(Failure::usage(format!(
            "dist takes no keys (got '{}'); use --keys FILE",
            parsed.rest[0]
        )));
    }
    let ring = parsed.ring()?;
    let (shares, source) = match keys_file {
        None => (
            keyspace_shares(&ring),
            "exact share of the keyspace".to_string(),
        ),
        Some(path) => sample_shares(&ring, &path)?,
    };
    let total_weight: f64 = ring
        .servers()
        .iter()
        .map(|s| s.weight().unwrap_or(1) as f64)
        .sum();
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
    for (server, &share) in ring.servers().iter().zip(&shares) {
        let expected = server.weight().unwrap_or(1) as f64 / total_weight;
        let bar = "#".repeat((share / max_share * BAR_WIDTH).round() as usize);
        writeln!(
            out,
            "{:<widest$}  {:>8}  {:>7}  {:>7.3}%  {:>7.3}%  {:>6.3}  {bar}",
            String::from_utf8_lossy(server.address()),
            server.weight().map_or("-".to_string(), |w| w.to_string()),
            server.point_count(),
            share * 100.0,
            expected * 100.0,
            if expected > 0.0 {
                share / expected
            } else {
                0.0
            },
        )?;
    }
    // Balance relative to the weights: 1.0 everywhere is a perfect spread.
    let ratios: Vec<f64> = ring
        .servers()
        .iter()
        .zip(&shares)
        .map(|(server, share)| share / (server.weight().unwrap_or(1) as f64 / total_weight))
        .collect();
    let mean_ratio = ratios.iter().sum::<f64>() / ratios.len() as f64;
    let deviation =
        (ratios.iter().map(|r| (r - mean_ratio).powi(2)).sum::<f64>() / ratios.len() as f64).sqrt();
    writeln!(
        out,
        "# share/expected: max {:.3}  min {:.3}  stddev {:.2}%",
        ratios.iter().copied().fold(0.0, f64::max),
        ratios.iter().copied().fold(f64::INFINITY, f64::min),
        deviation * 100.0
    )?;
    Ok(())
}

/// Shares measured on a sample of real keys (one per line).
fn sample_shares(ring: &Ring, path: &str) -> Result<(Vec<f64>, String), Failure> {
    let file = std::fs::File::open(path).map_err(|e| Failure::failed(format!("{path}: {e}")))?;
    let mut counts = vec![0u64; ring.servers().len()];
    let mut total = 0usize;
    for line in std::io::BufReader::new(file).split(b'\n') {
        let line = line?;
        let key = line.strip_suffix(b"\r").unwrap_or(&line);
        let server = ring
            .locate(key)
            .ok_or_else(|| Failure::failed("the ring has no points"))?
            .server_index;
        counts[server] += 1;
        total += 1;
        if total % PROGRESS_EVERY == 0 {
            eprintln!("ketama: {total} keys read from {path}");
        }
    }
    if total == 0 {
        return Err(Failure::failed(format!("{path}: no keys")));
    }
    let shares = counts.iter().map(|&c| c as f64 / total as f64).collect();
    Ok((shares, format!("share of {total} keys from {path}")))
}

/// `ketama diff [ring options] OLD NEW`.
pub fn diff(args: &[String]) -> Result<(), Failure> {
    let parsed = RingArgs::parse(args)?;
    if parsed.group_by_server {
        return Err(Failure::usage(
            "diff takes no --group-by-server (only find does)",
        ));
    }
    let (Some(old_file), [new_file]) = (&parsed.file, parsed.rest.as_slice()) else {
        return Err(Failure::usage("diff takes two server files: OLD NEW"));
    };
    let old = parsed.ring()?;
    let new = RingArgs {
        file: Some(new_file.into()),
        rest: vec![],
        ..parsed.clone_options()
    }
    .ring()?;
    eprintln!(
        "ketama: comparing {} ({} points) with {new_file} ({} points)",
        old_file.display(),
        old.continuum().len(),
        new.continuum().len()
    );
    let m = movement(&old, &new);
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

/// Removes `--name VALUE` from `args`.
fn take_option(args: &[String], name: &str) -> Result<(Option<String>, Vec<String>), Failure> {
    let mut value = None;
    let mut rest = Vec::new();
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        if arg == name {
            value = Some(
                iter.next()
                    .cloned()
                    .ok_or_else(|| Failure::usage(format!("{name} needs a value")))?,
            );
        } else {
            rest.push(arg.clone());
        }
    }
    Ok((value, rest))
}
