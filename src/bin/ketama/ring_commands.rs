//! `find`, `dump` and `check`.

use std::io::{BufRead, BufWriter, Write};

use ketama::parser::{libketama, strict};
use ketama::ring::read_server_file;

use crate::Failure;
use crate::args::RingArgs;

/// `ketama find`: KEY<TAB>SERVER per key.
pub fn find(args: &[String]) -> Result<(), Failure> {
    let parsed = RingArgs::parse(args)?;
    if parsed.group_by_server {
        return find_grouped(&parsed);
    }
    let ring = parsed.ring()?;
    let down = parsed.down_servers(&ring)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let mut answer = |key: &[u8]| -> Result<(), Failure> {
        let at = ring.locate_live(key, |s| down[s]).ok_or_else(|| {
            Failure::failed(if !ring.can_place() {
                "the ring has no points: no server can take a key"
            } else if ring.is_continuum() {
                "every server owning points is marked down (--down)"
            } else {
                "no live server for the key: every server is down, or the flavour's rehashing gave up as its client does (--down)"
            })
        })?;
        let server = &ring.servers()[at.server_index];
        out.write_all(key)?;
        out.write_all(b"\t")?;
        out.write_all(server.address())?;
        out.write_all(b"\n")?;
        Ok(())
    };
    if parsed.rest.is_empty() {
        for line in std::io::stdin().lock().split(b'\n') {
            let line = line?;
            answer(line.strip_suffix(b"\r").unwrap_or(&line))?;
        }
    } else {
        for key in &parsed.rest {
            answer(key.as_bytes())?;
        }
    }
    out.flush()?;
    Ok(())
}

/// `ketama find --group-by-server`: the multi-GET plan, one line
/// `SERVER<TAB>KEY<TAB>KEY...` per server holding keys, servers in the
/// list's order and keys in input order.
fn find_grouped(parsed: &RingArgs) -> Result<(), Failure> {
    if parsed.down.is_some() {
        return Err(Failure::usage(
            "--group-by-server takes no --down (it plans reads of the ring as it is)",
        ));
    }
    let ring = parsed.ring()?;
    let keys: Vec<Vec<u8>> = if parsed.rest.is_empty() {
        let mut keys = Vec::new();
        for line in std::io::stdin().lock().split(b'\n') {
            let mut line = line?;
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            keys.push(line);
        }
        keys
    } else {
        parsed.rest.iter().map(|k| k.as_bytes().to_vec()).collect()
    };
    let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
    let plan = ring.group_keys(&refs)?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    for group in plan {
        out.write_all(ring.servers()[group.server_index].address())?;
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
pub fn dump(args: &[String]) -> Result<(), Failure> {
    let parsed = RingArgs::parse(args)?;
    if parsed.down.is_some() {
        return Err(Failure::usage("dump takes no --down (only find does)"));
    }
    if parsed.group_by_server {
        return Err(Failure::usage(
            "dump takes no --group-by-server (only find does)",
        ));
    }
    if !parsed.rest.is_empty() {
        return Err(Failure::usage(format!(
            "dump takes no keys (got '{}')",
            parsed.rest[0]
        )));
    }
    let ring = parsed.ring()?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let continuum = ring.require_continuum()?;
    for (&point, &owner) in continuum.points().iter().zip(continuum.owners()) {
        write!(out, "{point}\t")?;
        out.write_all(ring.servers()[owner as usize].address())?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// `ketama check FILE`: strict validation with line-precise errors.
pub fn check(args: &[String]) -> Result<(), Failure> {
    let [file] = args else {
        return Err(Failure::usage("check takes exactly one SERVERS_FILE"));
    };
    let path = std::path::Path::new(file);
    let content = read_server_file(path)?;
    let servers = strict::parse(&content, file)?;
    for server in &servers {
        if server.address.len() > libketama::MAX_ADDRESS_BYTES {
            eprintln!(
                "ketama: warning: address '{}' is longer than 23 bytes; the original libketama rejects it",
                String::from_utf8_lossy(&server.address)
            );
        }
    }
    let ring = ketama::Ring::new(servers, Default::default())?;
    println!(
        "{file}: OK, {} servers, {} points",
        ring.servers().len(),
        ring.continuum().len()
    );
    for server in ring.servers().iter().filter(|s| s.point_count() == 0) {
        eprintln!(
            "ketama: warning: server '{}' gets no points (its weight is too small) and will receive no keys",
            String::from_utf8_lossy(server.address())
        );
    }
    Ok(())
}
