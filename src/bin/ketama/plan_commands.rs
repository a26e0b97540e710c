//! Capacity planning: `dist` (how evenly a ring spreads keys) and `diff`
//! (how many keys move between two server lists).

use std::io::{BufRead, Write};

use ketama::analysis::{DEFAULT_SAMPLE_KEYS, Measure, keyspace_shares_measured, plan_migration};
use ketama::{Flavour, Ring};

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
        None => match keyspace_shares_measured(&ring) {
            (shares, Measure::Exact) => (shares, "exact share of the keyspace".to_string()),
            (shares, Measure::Sampled(n)) => (
                shares,
                format!(
                    "share of {n} generated keys key:0..key:{} (flavour {} is not a continuum; --keys FILE samples real keys)",
                    n - 1,
                    ring.config().flavour.name()
                ),
            ),
        },
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
    let mut counts = vec![0u64; ring.servers().len()];
    let mut total = 0usize;
    for_each_key(path, |key| {
        let server = ring
            .locate(key)
            .ok_or_else(|| Failure::failed("the ring has no points"))?
            .server_index;
        counts[server] += 1;
        total += 1;
        if total % PROGRESS_EVERY == 0 {
            eprintln!("ketama: {total} keys read from {path}");
        }
        Ok(())
    })?;
    if total == 0 {
        return Err(Failure::failed(format!("{path}: no keys")));
    }
    let shares = counts.iter().map(|&c| c as f64 / total as f64).collect();
    Ok((shares, format!("share of {total} keys from {path}")))
}

/// `ketama diff [ring options] [--from-flavor F] [--to-flavor F]
/// [--from-hash H] [--to-hash H] [--keys FILE] OLD [NEW]`: the same list on
/// both sides when only one is given (or with `--servers`/`--servers-file`).
pub fn diff(args: &[String]) -> Result<(), Failure> {
    let (keys_file, args) = take_option(args, "--keys")?;
    let (flavour, args) = take_either(&args, "--flavor", "--flavour")?;
    let (from_flavour, args) = take_either(&args, "--from-flavor", "--from-flavour")?;
    let (to_flavour, args) = take_either(&args, "--to-flavor", "--to-flavour")?;
    let (hash, args) = take_option(&args, "--hash")?;
    let (from_hash, args) = take_option(&args, "--from-hash")?;
    let (to_hash, args) = take_option(&args, "--to-hash")?;
    let parsed = RingArgs::parse(&args)?;
    if parsed.group_by_server {
        return Err(Failure::usage(
            "diff takes no --group-by-server (only find does)",
        ));
    }
    if parsed.down.is_some() {
        return Err(Failure::usage("diff takes no --down (only find does)"));
    }
    let base = flavour.as_deref().map(flavour_named).transpose()?;
    let side = |chosen: Option<&str>, hash_name: Option<&str>, what: &str| {
        let flavour = match chosen {
            Some(name) => flavour_named(name)?,
            None => base.unwrap_or_default(),
        };
        let hash = hash_name
            .map(|name| {
                flavour.hash_from_name(name).ok_or_else(|| {
                    let offered: Vec<&str> = flavour.hashes().iter().map(|h| h.name()).collect();
                    Failure::usage(format!(
                        "unknown {what} hash '{name}' for flavour {} (it offers: {})",
                        flavour.name(),
                        offered.join(", ")
                    ))
                })
            })
            .transpose()?;
        Ok::<_, Failure>(ketama::RingConfig { flavour, hash })
    };
    let old_config = side(
        from_flavour.as_deref(),
        from_hash.as_deref().or(hash.as_deref()),
        "--from",
    )?;
    let new_config = side(
        to_flavour.as_deref(),
        to_hash.as_deref().or(hash.as_deref()),
        "--to",
    )?;
    let old_args = RingArgs {
        config: old_config,
        ..parsed.clone_source()
    };
    let (new_args, old_name, new_name) = match (&parsed.file, parsed.rest.as_slice()) {
        (Some(old_file), [new_file]) => (
            RingArgs {
                config: new_config,
                file: Some(new_file.into()),
                ..parsed.clone_options()
            },
            old_file.display().to_string(),
            new_file.clone(),
        ),
        (_, []) => {
            let shown = parsed.source_name();
            (
                RingArgs {
                    config: new_config,
                    ..parsed.clone_source()
                },
                shown.clone(),
                shown,
            )
        }
        _ => {
            return Err(Failure::usage(
                "diff takes two server files OLD NEW, or one list for both sides (with --from-flavor/--to-flavor)",
            ));
        }
    };
    let old = old_args.ring()?;
    let new = new_args.ring()?;
    eprintln!(
        "ketama: comparing {old_name} ({}) with {new_name} ({})",
        describe(&old),
        describe(&new)
    );
    let m = match &keys_file {
        Some(path) => plan_migration(&old, &new, Some(read_keys(path)?)),
        None => plan_migration(&old, &new, None::<Vec<Vec<u8>>>),
    };
    let mut out = std::io::stdout().lock();
    match (m.measure, &keys_file) {
        (Measure::Exact, _) => writeln!(out, "moved: {:.3}% of the keyspace", m.moved * 100.0)?,
        (Measure::Sampled(n), Some(path)) => writeln!(
            out,
            "moved: {:.3}% of {n} keys from {path}",
            m.moved * 100.0
        )?,
        (Measure::Sampled(n), None) => writeln!(
            out,
            "moved: {:.3}% of {n} generated keys key:0..key:{} (sampled: the two sides do not hash keys alike; --keys FILE samples real keys)",
            m.moved * 100.0,
            DEFAULT_SAMPLE_KEYS - 1
        )?,
    }
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

fn flavour_named(name: &str) -> Result<Flavour, Failure> {
    Flavour::from_name(name).ok_or_else(|| Failure::usage(format!("unknown flavour '{name}'")))
}

/// Every line of `path` as a key (see [`for_each_key`]).
fn read_keys(path: &str) -> Result<Vec<Vec<u8>>, Failure> {
    let mut keys = Vec::new();
    for_each_key(path, |key| {
        keys.push(key.to_vec());
        Ok(())
    })?;
    if keys.is_empty() {
        return Err(Failure::failed(format!("{path}: no keys")));
    }
    Ok(keys)
}

/// Longest key line read from a key file.
const MAX_KEY_LINE: usize = 1 << 20;
/// Most bytes read from a character device given as a key file.
const MAX_DEVICE_BYTES: u64 = 64 << 10;

/// Calls `visit` with each line of the key file `path` (a trailing CR
/// dropped), streaming. Bounded: a regular file is read to its end, a
/// character device up to 64 KiB; directories, FIFOs and sockets are
/// refused; a line longer than 1 MiB stops the read naming its line.
fn for_each_key(
    path: &str,
    mut visit: impl FnMut(&[u8]) -> Result<(), Failure>,
) -> Result<(), Failure> {
    use std::io::Read;
    use std::os::unix::fs::FileTypeExt;
    let failed = |e: std::io::Error| Failure::failed(format!("{path}: {e}"));
    let file = std::fs::File::open(path).map_err(failed)?;
    let kind = file.metadata().map_err(failed)?.file_type();
    let limit = if kind.is_file() {
        u64::MAX
    } else if kind.is_char_device() {
        MAX_DEVICE_BYTES
    } else {
        let what = if kind.is_dir() {
            "a directory"
        } else if kind.is_fifo() {
            "a FIFO"
        } else if kind.is_socket() {
            "a socket"
        } else {
            "not a regular file"
        };
        return Err(Failure::failed(format!(
            "{path}: is {what}; give a file of keys, one per line"
        )));
    };
    let mut reader = std::io::BufReader::new(file.take(limit));
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        let read = (&mut reader)
            .take(MAX_KEY_LINE as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(failed)?;
        if read == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        } else if line.len() > MAX_KEY_LINE {
            return Err(Failure::failed(format!(
                "{path}: line {number} is longer than {MAX_KEY_LINE} bytes"
            )));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        visit(&line)?;
    }
    Ok(())
}

/// Removes `--a VALUE` or `--b VALUE` from `args`.
fn take_either(
    args: &[String],
    a: &str,
    b: &str,
) -> Result<(Option<String>, Vec<String>), Failure> {
    let (first, rest) = take_option(args, a)?;
    let (second, rest) = take_option(&rest, b)?;
    Ok((first.or(second), rest))
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
