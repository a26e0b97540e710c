//! What the Redis-client and Go flavours share about their servers: most
//! of these clients hash a node *name* (a host string, a node id, a URL)
//! rather than an address, and most have no weights.

use std::io::Write;

use super::points::HostPort;
use crate::{Error, ServerSpec};

/// Most points any of these rings may hold (2^24).
pub const MAX_POINTS: u64 = 1 << 24;

/// The server's name column when given, else its address as written.
pub fn name_or_address(server: &ServerSpec) -> &[u8] {
    server.name.as_deref().unwrap_or(&server.address)
}

/// Fails, naming the server, when a weight other than 1 is given to a
/// `peer` that has no weights.
pub fn refuse_weights(servers: &[ServerSpec], peer: &str) -> Result<(), Error> {
    match servers.iter().find(|s| s.weight.is_some_and(|w| w != 1)) {
        None => Ok(()),
        Some(server) => Err(Error::InvalidArgument(format!(
            "{peer} has no weights, but server '{}' has weight {} (give each server weight 1 or none)",
            String::from_utf8_lossy(&server.address),
            server.weight.unwrap_or(1)
        ))),
    }
}

/// Fails, naming it, when two servers have the same name (`peer` keeps one
/// node per name).
pub fn refuse_duplicates(names: &[&[u8]], peer: &str) -> Result<(), Error> {
    let mut seen = std::collections::HashSet::new();
    match names.iter().find(|name| !seen.insert(**name)) {
        None => Ok(()),
        Some(name) => Err(Error::InvalidArgument(format!(
            "{peer}: two servers are named '{}' ({peer} keeps one node per name)",
            String::from_utf8_lossy(name)
        ))),
    }
}

/// Fails when a ring would hold more than [`MAX_POINTS`] points.
pub fn check_point_count(total: u64, peer: &str) -> Result<(), Error> {
    if total > MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "{peer}: the servers would place {total} points (at most {MAX_POINTS})"
        )));
    }
    Ok(())
}

/// Appends `count` points `crc32("<prefix><i>")`, i = 0..count, owned by
/// `server` (Predis's `node:i`, redis-rb's `id:i`: `prefix` ends in `:`).
pub fn push_crc32_points(prefix: &[u8], count: u64, server: u32, points: &mut Vec<(u32, u32)>) {
    let mut hashed = crc32fast::Hasher::new();
    hashed.update(prefix);
    let mut digits = Vec::with_capacity(20);
    for i in 0..count {
        digits.clear();
        write!(digits, "{i}").expect("writing to a Vec cannot fail");
        let mut label = hashed.clone();
        label.update(&digits);
        points.push((label.finalize(), server));
    }
}

/// `HOST:PORT` as a client that defaults to `default_port` writes a server
/// given as `HOST`, `HOST:PORT`, `[IPV6]` or `[IPV6]:PORT`: the port always
/// present, IPv6 brackets removed, the port read as a number.
pub fn host_and_port(address: &[u8], default_port: u16) -> Result<Vec<u8>, Error> {
    let bracketed = address.starts_with(b"[");
    let has_port = if bracketed {
        !address.ends_with(b"]")
    } else {
        address.contains(&b':')
    };
    if has_port {
        return Ok(HostPort::parse(address)?.with_port());
    }
    let host = if bracketed {
        &address[1..address.len() - 1]
    } else {
        address
    };
    if host.is_empty() {
        return Err(Error::InvalidArgument(format!(
            "server address '{}': empty host",
            String::from_utf8_lossy(address)
        )));
    }
    let mut out = host.to_vec();
    out.extend_from_slice(format!(":{default_port}").as_bytes());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_get_the_default_port() {
        let hp = |a: &str| String::from_utf8(host_and_port(a.as_bytes(), 6379).unwrap()).unwrap();
        assert_eq!(hp("10.0.0.1"), "10.0.0.1:6379");
        assert_eq!(hp("10.0.0.1:6380"), "10.0.0.1:6380");
        assert_eq!(hp("cache:06380"), "cache:6380");
        assert_eq!(hp("[::1]"), "::1:6379");
        assert_eq!(hp("[::1]:7000"), "::1:7000");
        assert!(host_and_port(b"[]", 6379).is_err());
        assert!(host_and_port(b"a:b", 6379).is_err());
    }

    #[test]
    fn weights_and_duplicates_are_named() {
        let servers = [ServerSpec::new("a:1", 1), ServerSpec::new("b:1", 3)];
        let err = refuse_weights(&servers, "peer").unwrap_err().to_string();
        assert!(err.contains("'b:1' has weight 3"), "{err}");
        assert!(err.starts_with("peer has no weights"), "{err}");
        let err = refuse_duplicates(&[b"x", b"y", b"x"], "peer")
            .unwrap_err()
            .to_string();
        assert!(err.contains("named 'x'"), "{err}");
        assert!(check_point_count(MAX_POINTS + 1, "peer").is_err());
    }
}
