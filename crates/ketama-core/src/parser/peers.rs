//! Server lists as the peers' users write them: `HOST:PORT`,
//! `HOST:PORT:WEIGHT`, `[IPV6]:PORT[:WEIGHT]`, and an optional NAME column
//! after blanks (twemproxy's `- 10.0.0.1:11211:1 cache-a`, whose leading
//! `- ` is accepted so its `servers:` block can be pasted).
//!
//! Entries are separated by newlines or commas; `#` starts a comment that
//! runs to the end of the line; empty entries are skipped. An entry without a
//! port is kept as an opaque address (libketama hashes it as written); the
//! flavours that need a port reject it when the ring is built.

use super::{ParseMode, Piece, ServerList, parse_server_file};
use crate::{Error, ServerSpec};

/// Longest line read (4 MiB): room for a comma-separated list of tens of
/// thousands of servers, and a bound on what one line may buffer.
pub(crate) const MAX_LINE_BYTES: usize = 4 << 20;

/// Parses a peer-style server list. `source` names it in errors (a file
/// name, or `--servers`).
pub fn parse(text: &[u8], source: &str) -> Result<Vec<ServerSpec>, Error> {
    parse_server_file(text, source, ParseMode::Peers)
}

/// Reads one line of a peer-style list: its comma-separated entries, up to
/// a `#` comment.
pub(crate) fn read_line(list: &mut ServerList, line: usize, piece: Piece) -> Result<(), Error> {
    let raw_line = match piece {
        Piece::Line(bytes) => &bytes[..bytes.len() - 1],
        Piece::Last(bytes) => bytes,
        Piece::Cut(_) => {
            return Err(list.error(line, format!("line longer than {} bytes", MAX_LINE_BYTES)));
        }
    };
    let text = raw_line.split(|&b| b == b'#').next().unwrap_or_default();
    for entry in text.split(|&b| b == b',') {
        let entry = entry.trim_ascii();
        if entry.is_empty() {
            continue;
        }
        let server = parse_entry(entry).map_err(|reason| {
            list.error(
                line,
                format!(
                    "server entry '{}': {reason}",
                    String::from_utf8_lossy(entry)
                ),
            )
        })?;
        list.push(server);
    }
    Ok(())
}

fn parse_entry(entry: &[u8]) -> Result<ServerSpec, String> {
    let entry = match entry.strip_prefix(b"-") {
        Some(rest) if rest.first().is_some_and(u8::is_ascii_whitespace) => rest.trim_ascii_start(),
        _ => entry,
    };
    let mut columns = entry
        .split(u8::is_ascii_whitespace)
        .filter(|c| !c.is_empty());
    let spec = columns.next().ok_or("empty entry")?;
    let name = columns.next().map(<[u8]>::to_vec);
    if let Some(extra) = columns.next() {
        return Err(format!(
            "unexpected column '{}' after the name",
            String::from_utf8_lossy(extra)
        ));
    }
    if let Some(bad) = spec.iter().find(|&&b| b < 0x20 || b == 0x7f) {
        return Err(format!("control byte 0x{bad:02x}"));
    }
    // Colons outside an IPv6 bracket separate host, port and weight.
    let host_end = if spec.starts_with(b"[") {
        1 + spec
            .iter()
            .position(|&b| b == b']')
            .ok_or("missing ']' after the IPv6 address")?
    } else {
        0
    };
    let colons: Vec<usize> = spec
        .iter()
        .enumerate()
        .skip(host_end)
        .filter(|&(_, &b)| b == b':')
        .map(|(i, _)| i)
        .collect();
    let (address, weight) = match colons.as_slice() {
        [] | [_] => (spec, None),
        [_, last] => (&spec[..*last], Some(&spec[last + 1..])),
        _ => return Err("too many ':' (write an IPv6 address in brackets: [::1]:11211)".into()),
    };
    if let Some(port) = colons
        .first()
        .map(|&c| &spec[c + 1..colons.get(1).copied().unwrap_or(spec.len())])
    {
        if port.is_empty()
            || !port.iter().all(u8::is_ascii_digit)
            || std::str::from_utf8(port).unwrap().parse::<u16>().is_err()
        {
            return Err(format!(
                "port '{}' is not a number from 0 to 65535",
                String::from_utf8_lossy(port)
            ));
        }
    }
    let weight = weight
        .map(|w| {
            std::str::from_utf8(w)
                .ok()
                .filter(|w| w.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|w| w.parse::<u64>().ok())
                .filter(|&w| w > 0)
                .ok_or_else(|| {
                    format!(
                        "weight '{}' is not a positive integer",
                        String::from_utf8_lossy(w)
                    )
                })
        })
        .transpose()?;
    Ok(ServerSpec {
        address: address.to_vec(),
        weight,
        name,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> ServerSpec {
        let mut servers = parse(text.as_bytes(), "t").unwrap();
        assert_eq!(servers.len(), 1, "{text}");
        servers.remove(0)
    }

    #[test]
    fn the_forms_users_write() {
        assert_eq!(
            one("10.0.0.1:11211"),
            ServerSpec::unweighted("10.0.0.1:11211")
        );
        assert_eq!(
            one("10.0.0.1:11211:3"),
            ServerSpec::new("10.0.0.1:11211", 3)
        );
        assert_eq!(one("[::1]:11211:2"), ServerSpec::new("[::1]:11211", 2));
        assert_eq!(
            one("[2001:db8::1]:11300"),
            ServerSpec::unweighted("[2001:db8::1]:11300")
        );
        let named = one("  - 127.0.0.1:11211:1 cache-a   # twemproxy");
        assert_eq!(named.address, b"127.0.0.1:11211");
        assert_eq!(named.name.as_deref(), Some(&b"cache-a"[..]));
        assert_eq!(one("cache1").address, b"cache1");
        let list = parse(b"a:1:2, b:2\n# comment\n\nc:3", "t").unwrap();
        assert_eq!(
            list.iter().map(|s| s.weight).collect::<Vec<_>>(),
            vec![Some(2), None, None]
        );
    }

    #[test]
    fn errors_name_the_entry_and_line() {
        let cases = [
            (
                "a:1\nb:2:x",
                "server entry 'b:2:x': weight 'x' is not a positive integer (line 2 in t)",
            ),
            ("a:1:0", "weight '0' is not a positive integer"),
            ("::1:11211", "too many ':'"),
            ("[::1:11211", "missing ']'"),
            ("a:99999", "port '99999' is not a number"),
            ("a:1 n extra", "unexpected column 'extra'"),
            ("a:\u{1}1", "control byte 0x01"),
        ];
        for (text, expected) in cases {
            let err = parse(text.as_bytes(), "t").unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
        assert_eq!(
            parse(b" , \n", "t").unwrap_err().to_string(),
            "No valid server definitions in file t"
        );
    }
}
