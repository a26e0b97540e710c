//! `ketama migrate`: `find` (each key's new and old server), `plan` (what
//! moves, the warm-up's reads, the servers to flush) and `at-risk` (the keys
//! of a metadump listing a server would serve stale), answered by the
//! core's migration (`ketama_core::migration`).

use std::borrow::Cow;
use std::ffi::OsString;
use std::io::{BufWriter, Read, Write};
use std::sync::Arc;

use ketama_core::analysis::Measure;
use ketama_core::escape::json_text;
use ketama_core::migration::plan::{Plan, metadump_keys};
use ketama_core::migration::{Migration, Mode, Schedule};
use serde::Serialize;

use crate::Failure;
use crate::args::{TwoRings, for_each_key_argument};
use crate::plan_commands::{read_keys, write_moved};
use ketama_cli::cli::ServerListArgs;
use ketama_cli::cli_migrate::{MigrateAtRiskArgs, MigrateFindArgs};
use ketama_cli::cli_ring::ChangeArgs;

/// The migration between the two rings (its schedule matters to no
/// command here: routes, plans and risks are the rings').
fn migration(rings: TwoRings) -> Result<Migration, Failure> {
    Ok(Migration::new(
        Arc::new(rings.old),
        Arc::new(rings.new),
        Schedule::new(Mode::Warmup, 0),
    )?)
}

/// One `migrate find --json` line.
#[derive(Serialize)]
struct RouteJson<'a> {
    key: Cow<'a, str>,
    new: Cow<'a, str>,
    old: Option<Cow<'a, str>>,
}

/// `ketama migrate find`: KEY<TAB>NEW_SERVER<TAB>OLD_SERVER per key.
pub fn find(args: MigrateFindArgs) -> Result<(), Failure> {
    let by_list = args.list.servers.is_some() || args.list.servers_file.is_some();
    let mut arguments = args.arguments.into_iter();
    let files: Vec<OsString> = if by_list {
        Vec::new()
    } else {
        arguments.by_ref().take(2).collect()
    };
    if !by_list && files.len() < 2 {
        return Err(Failure::usage(
            "migrate find takes the two server files OLD NEW (or --servers), then the keys",
        ));
    }
    let rings = TwoRings::from_args(
        &args.placement,
        &args.list,
        &args.sides,
        files,
        "migrate find",
    )?;
    let m = migration(rings)?;
    let keys: Vec<OsString> = arguments.collect();
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut answer = |key: &[u8]| -> Result<(), Failure> {
        let route = m.route(key)?;
        let new = m.new_ring().servers()[route.new].address();
        let old = route.moved.then(|| m.old().servers()[route.old].address());
        if args.json {
            let line = RouteJson {
                key: json_text(key),
                new: json_text(new),
                old: old.map(json_text),
            };
            serde_json::to_writer(&mut out, &line).map_err(std::io::Error::from)?;
            out.write_all(b"\n")?;
            return Ok(());
        }
        out.write_all(key)?;
        out.write_all(b"\t")?;
        out.write_all(new)?;
        out.write_all(b"\t")?;
        out.write_all(old.unwrap_or(b"-"))?;
        out.write_all(b"\n")?;
        Ok(())
    };
    for_each_key_argument(&keys, &mut answer)?;
    out.flush()?;
    Ok(())
}

/// `migrate plan --json`.
#[derive(Serialize)]
struct PlanJson<'a> {
    /// "exact" or "sampled".
    measure: &'static str,
    keys: Option<usize>,
    moved: f64,
    ideal: f64,
    flows: Vec<FlowJson<'a>>,
    old_servers: Vec<OldServerJson<'a>>,
    gaining: Vec<GainingJson<'a>>,
    must_flush: Vec<Cow<'a, str>>,
}

#[derive(Serialize)]
struct FlowJson<'a> {
    from: Cow<'a, str>,
    to: Cow<'a, str>,
    share: f64,
}

#[derive(Serialize)]
struct OldServerJson<'a> {
    server: Cow<'a, str>,
    share: f64,
    moving_away: f64,
    warmup_reads: f64,
    warmup_load: f64,
}

#[derive(Serialize)]
struct GainingJson<'a> {
    server: Cow<'a, str>,
    gained: f64,
    returning: bool,
}

/// `ketama migrate plan`.
pub fn plan(args: ChangeArgs) -> Result<(), Failure> {
    let rings = TwoRings::from_args(
        &args.placement,
        &args.list,
        &args.sides,
        args.files,
        "migrate plan",
    )?;
    let m = migration(rings)?;
    let keys = match &args.keys {
        Some(path) => Some(read_keys(path)?),
        None => None,
    };
    let plan = m.plan(keys);
    if args.json {
        return plan_json(&plan);
    }
    let mut out = std::io::stdout().lock();
    let percent = |share: f64| format!("{:.3}%", share * 100.0);
    write_moved(&mut out, &plan.movement, args.keys.as_deref())?;
    if !plan.movement.flows.is_empty() {
        writeln!(out, "\nFROM\tTO\tSHARE")?;
        for (from, to, share) in &plan.movement.flows {
            writeln!(out, "{}\t{}\t{}", lossy(from), lossy(to), percent(*share))?;
        }
    }
    writeln!(
        out,
        "\nwarm-up: each moved key's first read misses on its new server and reads its old one\n\
         OLD SERVER\tSHARE\tMOVING AWAY\tWARM-UP READS\tEXTRA LOAD"
    )?;
    for server in &plan.old_servers {
        writeln!(
            out,
            "{}\t{}\t{}\t{} of all reads\t+{:.1}%",
            lossy(&server.address),
            percent(server.share),
            percent(server.moving_away),
            percent(server.warmup_reads),
            server.warmup_load * 100.0
        )?;
    }
    if !plan.gaining.is_empty() {
        writeln!(out, "\nGAINING SERVER\tGAINED\tBEFORE THE MOVE")?;
        for server in &plan.gaining {
            let before = if server.returning {
                "not in the old ring: flush it (flush_all) first"
            } else {
                "check its keys: ketama migrate at-risk"
            };
            writeln!(
                out,
                "{}\t{}\t{before}",
                lossy(&server.address),
                percent(server.gained)
            )?;
        }
    }
    Ok(())
}

fn plan_json(plan: &Plan) -> Result<(), Failure> {
    let (measure, keys) = match plan.measure() {
        Measure::Exact => ("exact", None),
        Measure::Sampled(n) => ("sampled", Some(n)),
    };
    let document = PlanJson {
        measure,
        keys,
        moved: plan.movement.moved,
        ideal: plan.movement.ideal,
        flows: plan
            .movement
            .flows
            .iter()
            .map(|(from, to, share)| FlowJson {
                from: json_text(from),
                to: json_text(to),
                share: *share,
            })
            .collect(),
        old_servers: plan
            .old_servers
            .iter()
            .map(|s| OldServerJson {
                server: json_text(&s.address),
                share: s.share,
                moving_away: s.moving_away,
                warmup_reads: s.warmup_reads,
                warmup_load: s.warmup_load,
            })
            .collect(),
        gaining: plan
            .gaining
            .iter()
            .map(|g| GainingJson {
                server: json_text(&g.address),
                gained: g.gained,
                returning: g.returning,
            })
            .collect(),
        must_flush: plan.must_flush().map(json_text).collect(),
    };
    let mut out = std::io::stdout().lock();
    serde_json::to_writer(&mut out, &document).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// `ketama migrate at-risk`.
pub fn at_risk(args: MigrateAtRiskArgs) -> Result<(), Failure> {
    let mut files = args.files.into_iter();
    let both: Vec<OsString> = files.by_ref().take(2).collect();
    let no_list = ServerListArgs {
        servers: None,
        servers_file: None,
        weights: None,
    };
    let rings = TwoRings::from_args(
        &args.placement,
        &no_list,
        &args.sides,
        both,
        "migrate at-risk",
    )?;
    let m = migration(rings)?;
    let server = args.server.as_bytes();
    if !m.new_ring().servers().iter().any(|s| s.address() == server) {
        return Err(Failure::usage(format!(
            "--server {}: not a server of the new ring",
            args.server
        )));
    }
    let listing = match files.next() {
        Some(path) => std::fs::read(&path)
            .map_err(|e| Failure::failed(format!("{}: {e}", path.to_string_lossy())))?,
        None => {
            let mut listing = Vec::new();
            std::io::stdin().lock().read_to_end(&mut listing)?;
            listing
        }
    };
    let keys = metadump_keys(&listing)?;
    let mut out = BufWriter::new(std::io::stdout().lock());
    for key in m.at_risk(server, keys.iter().map(Vec::as_slice)) {
        out.write_all(key)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(bytes)
}
