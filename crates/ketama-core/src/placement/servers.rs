//! What the clients make of a server: its weight, its `HOST:PORT`, the
//! name it is hashed by (a name column, a host string, a node id), and the
//! lists a client refuses (weights it has none of, two servers of one
//! name).

use std::io::Write;

use crate::{Error, ServerSpec};

/// The default memcached port; libmemcached, twemproxy and spymemcached's
/// LIBMEMCACHED format leave it out of point labels.
pub(crate) const DEFAULT_PORT: u16 = 11211;

/// Each server's weight (1 when none is given) and their sum. Weights must be
/// positive and the sum must fit in 64 bits.
pub fn weights(servers: &[ServerSpec]) -> Result<(Vec<u64>, u64), Error> {
    let weights: Vec<u64> = servers.iter().map(|s| s.weight.unwrap_or(1)).collect();
    let mut total = 0u64;
    for &w in &weights {
        if w == 0 {
            return Err(Error::InvalidArgument(
                "server weight must be positive".into(),
            ));
        }
        total = total.checked_add(w).ok_or_else(|| {
            Error::InvalidArgument("sum of server weights overflows 64 bits".into())
        })?;
    }
    Ok((weights, total))
}

/// A server address split into host and port. For `[v6]:port` the host is
/// the text inside the brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostPort<'a> {
    /// The host exactly as written (brackets removed for IPv6).
    pub host: &'a [u8],
    /// The port.
    pub port: u16,
}

impl<'a> HostPort<'a> {
    /// Splits `HOST:PORT` or `[IPV6]:PORT`; the error names the address.
    pub fn parse(address: &'a [u8]) -> Result<HostPort<'a>, Error> {
        let fail = |why: &str| {
            Error::InvalidArgument(format!(
                "server address '{}': {why} (expected HOST:PORT or [IPV6]:PORT)",
                String::from_utf8_lossy(address)
            ))
        };
        let (host, port) = if let Some(inner) = address.strip_prefix(b"[") {
            let close = inner
                .iter()
                .position(|&b| b == b']')
                .ok_or_else(|| fail("missing ']'"))?;
            let port = inner[close + 1..]
                .strip_prefix(b":")
                .ok_or_else(|| fail("no port after ']'"))?;
            (&inner[..close], port)
        } else {
            let colon = address
                .iter()
                .rposition(|&b| b == b':')
                .ok_or_else(|| fail("no port"))?;
            let host = &address[..colon];
            if host.contains(&b':') {
                return Err(fail("an IPv6 address must be written in brackets"));
            }
            (host, &address[colon + 1..])
        };
        if host.is_empty() {
            return Err(fail("empty host"));
        }
        let port = std::str::from_utf8(port)
            .ok()
            .filter(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()))
            .and_then(|p| p.parse::<u16>().ok())
            .ok_or_else(|| fail("the port is not a number from 0 to 65535"))?;
        Ok(HostPort { host, port })
    }

    /// `host` when the port is 11211, else `host:port`: the label prefix of
    /// libmemcached, twemproxy and spymemcached's LIBMEMCACHED format.
    pub fn without_default_port(&self) -> Vec<u8> {
        let mut prefix = self.host.to_vec();
        if self.port != DEFAULT_PORT {
            write!(prefix, ":{}", self.port).expect("writing to a Vec cannot fail");
        }
        prefix
    }

    /// `host:port`, port always present.
    pub fn with_port(&self) -> Vec<u8> {
        let mut prefix = self.host.to_vec();
        write!(prefix, ":{}", self.port).expect("writing to a Vec cannot fail");
        prefix
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_splitting() {
        let hp = HostPort::parse(b"[::1]:11212").unwrap();
        assert_eq!((hp.host, hp.port), (&b"::1"[..], 11212));
        assert_eq!(
            HostPort::parse(b"cache:11211")
                .unwrap()
                .without_default_port(),
            b"cache"
        );
        assert_eq!(
            HostPort::parse(b"cache:11212")
                .unwrap()
                .without_default_port(),
            b"cache:11212"
        );
        for (bad, why) in [
            ("cache", "no port"),
            ("::1:11211", "brackets"),
            ("[::1]11211", "no port after"),
            ("a:99999", "not a number"),
            (":1", "empty host"),
        ] {
            let err = HostPort::parse(bad.as_bytes()).unwrap_err().to_string();
            assert!(err.contains(why) && err.contains(bad), "{bad}: {err}");
        }
    }

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
    }
}
