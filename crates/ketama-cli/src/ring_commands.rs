//! `find`, `dump` and `check`.

use std::ffi::OsString;
use std::io::{BufWriter, Write};
use std::os::unix::ffi::OsStrExt;

use ketama_core::escape::json_text;
use ketama_core::parser::{libketama, strict};
use ketama_core::ring::read_server_file;
use serde::Serialize;

use crate::Failure;
use crate::args::{RingArgs, for_each_key_argument, stdin_keys};
use crate::cli::{CheckArgs, DumpArgs, FindArgs};

/// One `find --json` line.
#[derive(Serialize)]
struct FoundJson<'a> {
    key: &'a str,
    server: &'a str,
    point: u32,
}

/// One `find --replicas N --json` line.
#[derive(Serialize)]
struct ReplicasJson<'a> {
    key: &'a str,
    servers: Vec<std::borrow::Cow<'a, str>>,
}

/// One `find --group-by-server --json` line.
#[derive(Serialize)]
struct GroupJson<'a> {
    server: &'a str,
    keys: Vec<std::borrow::Cow<'a, str>>,
}

/// One `dump --json` line.
#[derive(Serialize)]
struct PointJson<'a> {
    point: u32,
    server: &'a str,
}

/// `check --json`.
#[derive(Serialize)]
struct CheckJson<'a> {
    file: &'a str,
    servers: usize,
    points: usize,
    warnings: Vec<String>,
}

/// Writes `value` as one line of JSON.
fn write_json_line(out: &mut impl Write, value: &impl Serialize) -> Result<(), Failure> {
    serde_json::to_writer(&mut *out, value).map_err(std::io::Error::from)?;
    out.write_all(b"\n")?;
    Ok(())
}

/// `ketama find`: KEY<TAB>SERVER per key.
pub fn find(args: FindArgs) -> Result<(), Failure> {
    let (parsed, first_key) = RingArgs::from_options(&args.placement, &args.list, args.file)?;
    let keys: Vec<OsString> = first_key.into_iter().chain(args.keys).collect();
    let ring = parsed.ring()?;
    if args.group_by_server {
        return find_grouped(&ring, &keys, args.json);
    }
    if let Some(n) = args.replicas {
        return find_replicas(&ring, &keys, n, args.json);
    }
    let down = RingArgs::down_servers(&ring, args.down.as_deref())?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut answer = |key: &[u8]| -> Result<(), Failure> {
        let at = ring
            .locate_live(key, |s| down[s])
            .map_err(|why| Failure::failed(format!("{why} (--down)")))?;
        let server = ring.servers()[at.server_index].address();
        if args.json {
            let line = FoundJson {
                key: &json_text(key),
                server: &json_text(server),
                point: at.point,
            };
            return write_json_line(&mut out, &line);
        }
        out.write_all(key)?;
        out.write_all(b"\t")?;
        out.write_all(server)?;
        out.write_all(b"\n")?;
        Ok(())
    };
    for_each_key_argument(&keys, &mut answer)?;
    out.flush()?;
    Ok(())
}

/// `ketama find --replicas N`: KEY<TAB>SERVER<TAB>SERVER... per key, the
/// `N` distinct servers [`ketama_core::Ring::replicas`] lists.
fn find_replicas(
    ring: &ketama_core::Ring,
    keys: &[OsString],
    n: usize,
    json: bool,
) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut answer = |key: &[u8]| -> Result<(), Failure> {
        let list = ring.replicas(key, n)?;
        let servers = list.iter().map(|&s| ring.servers()[s].address());
        if json {
            let line = ReplicasJson {
                key: &json_text(key),
                servers: servers.map(json_text).collect(),
            };
            return write_json_line(&mut out, &line);
        }
        out.write_all(key)?;
        for server in servers {
            out.write_all(b"\t")?;
            out.write_all(server)?;
        }
        out.write_all(b"\n")?;
        Ok(())
    };
    for_each_key_argument(keys, &mut answer)?;
    out.flush()?;
    Ok(())
}

/// `ketama find --group-by-server`: the multi-GET plan, one line
/// `SERVER<TAB>KEY<TAB>KEY...` per server holding keys, servers in the
/// list's order and keys in input order.
fn find_grouped(
    ring: &ketama_core::Ring,
    arguments: &[OsString],
    json: bool,
) -> Result<(), Failure> {
    let keys: Vec<Vec<u8>> = if arguments.is_empty() {
        let mut keys = Vec::new();
        let mut lines = stdin_keys();
        while let Some(key) = lines.next_key()? {
            keys.push(key.to_vec());
        }
        keys
    } else {
        arguments.iter().map(|k| k.as_bytes().to_vec()).collect()
    };
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let plan = ring.group_keys(&refs)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for group in plan {
        let server = ring.servers()[group.server_index].address();
        if json {
            let line = GroupJson {
                server: &json_text(server),
                keys: group
                    .key_indices
                    .iter()
                    .map(|&i| json_text(&keys[i]))
                    .collect(),
            };
            write_json_line(&mut out, &line)?;
            continue;
        }
        out.write_all(server)?;
        for index in group.key_indices {
            out.write_all(b"\t")?;
            out.write_all(&keys[index])?;
        }
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// `ketama dump`: POINT<TAB>SERVER for every point in continuum order.
pub fn dump(args: DumpArgs) -> Result<(), Failure> {
    let (parsed, extra) = RingArgs::from_options(&args.placement, &args.list, args.file)?;
    if let Some(extra) = extra {
        return Err(Failure::usage(format!(
            "dump takes no keys (got '{}')",
            extra.to_string_lossy()
        )));
    }
    let ring = parsed.ring()?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let continuum = ring.require_continuum()?;
    for (&point, &owner) in continuum.points().iter().zip(continuum.owners()) {
        let server = ring.servers()[owner as usize].address();
        if args.json {
            let server = &json_text(server);
            write_json_line(&mut out, &PointJson { point, server })?;
            continue;
        }
        write!(out, "{point}\t")?;
        out.write_all(server)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// `ketama check FILE`: strict validation with line-precise errors.
pub fn check(args: CheckArgs) -> Result<(), Failure> {
    let file = args.file.to_string_lossy();
    let path = std::path::Path::new(&args.file);
    let content = read_server_file(path)?;
    let servers = strict::parse(&content, &file)?;
    // Warnings go to standard error as they are found, around the OK line.
    let mut warnings = Vec::new();
    let mut warn = |warning: String| {
        eprintln!("ketama: warning: {warning}");
        warnings.push(warning);
    };
    for server in &servers {
        if server.address.len() > libketama::MAX_ADDRESS_BYTES {
            warn(format!(
                "address '{}' is longer than 23 bytes; the original libketama rejects it",
                String::from_utf8_lossy(&server.address)
            ));
        }
    }
    let ring = ketama_core::Ring::new(servers, Default::default())?;
    if !args.json {
        println!(
            "{file}: OK, {} servers, {} points",
            ring.servers().len(),
            ring.continuum().len()
        );
    }
    for server in ring.servers().iter().filter(|s| s.point_count() == 0) {
        warn(format!(
            "server '{}' gets no points (its weight is too small) and will receive no keys",
            String::from_utf8_lossy(server.address())
        ));
    }
    if args.json {
        let report = CheckJson {
            file: &json_text(args.file.as_bytes()),
            servers: ring.servers().len(),
            points: ring.continuum().len(),
            warnings,
        };
        write_json_line(&mut std::io::stdout().lock(), &report)?;
    }
    Ok(())
}
