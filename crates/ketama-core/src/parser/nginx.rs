//! nginx `upstream` blocks as their users write them, for the `nginx`
//! flavour: every `server ADDRESS [weight=N] [PARAMETER...];` directive is a
//! server (ADDRESS kept as written: nginx hashes that text); other
//! directives (`upstream NAME {`, `hash $key consistent;`, `keepalive 8;`,
//! `}`) are skipped, `#` starts a comment. `weight=` must be a positive
//! integer as nginx requires; `down` and `backup` servers are refused (nginx
//! skips a down server at lookup time, and the hash method has no backups).

use crate::{Error, ServerSpec};

/// Parses the `server` directives of an nginx upstream block.
pub fn parse(text: &[u8], source: &str) -> Result<Vec<ServerSpec>, Error> {
    let mut servers = Vec::new();
    let mut statement: Vec<u8> = Vec::new();
    let mut line = 1;
    let mut start_line = 1;
    let mut comment = false;
    for &b in text.iter().chain(std::iter::once(&b';')) {
        if b == b'\n' {
            line += 1;
            comment = false;
        }
        if comment {
            continue;
        }
        match b {
            b'#' => comment = true,
            b';' | b'{' | b'}' => {
                directive(&statement, source, start_line, &mut servers)?;
                statement.clear();
            }
            _ => {
                if statement.iter().all(u8::is_ascii_whitespace) {
                    start_line = line;
                }
                statement.push(b);
            }
        }
    }
    if servers.is_empty() {
        return Err(Error::NoServers(format!("file {source}")));
    }
    Ok(servers)
}

/// Adds the server of one directive, if it is a `server` directive.
fn directive(
    statement: &[u8],
    source: &str,
    line: usize,
    servers: &mut Vec<ServerSpec>,
) -> Result<(), Error> {
    let mut words = statement
        .split(u8::is_ascii_whitespace)
        .filter(|w| !w.is_empty());
    if words.next() != Some(b"server".as_slice()) {
        return Ok(());
    }
    let fail = |reason: String| Error::Parse {
        file: source.to_string(),
        line,
        reason,
    };
    let address = words
        .next()
        .ok_or_else(|| fail("server directive without an address".into()))?;
    let mut weight = None;
    for word in words {
        let shown = String::from_utf8_lossy(word);
        if let Some(value) = word.strip_prefix(b"weight=") {
            let parsed = std::str::from_utf8(value)
                .ok()
                .filter(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|v| v.parse::<u64>().ok())
                .filter(|&w| w > 0);
            weight = Some(parsed.ok_or_else(|| {
                fail(format!(
                    "invalid parameter \"{shown}\" (weight must be a positive integer)"
                ))
            })?);
        } else if word == b"down" || word == b"backup" {
            return Err(fail(format!(
                "server '{}' is marked {shown}: nginx skips it at lookup time; leave it out of the list",
                String::from_utf8_lossy(address)
            )));
        }
    }
    servers.push(ServerSpec {
        address: address.to_vec(),
        weight,
        name: None,
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upstream_block_as_written() {
        let block = b"upstream cache {\n    hash $request_uri consistent;  # by URI\n    server 10.0.0.1:8080 weight=3 max_fails=2;\n    server 10.0.0.2;\n    server unix:/run/app.sock fail_timeout=5s;\n}\n";
        let servers = parse(block, "t").unwrap();
        assert_eq!(
            servers,
            vec![
                ServerSpec::new("10.0.0.1:8080", 3),
                ServerSpec::unweighted("10.0.0.2"),
                ServerSpec::unweighted("unix:/run/app.sock"),
            ]
        );
        assert_eq!(parse(b"server a:1", "t").unwrap().len(), 1);
    }

    #[test]
    fn errors_name_the_line() {
        for (text, expected) in [
            (
                "upstream u {\n server a:1;\n server b:2 weight=0;\n}",
                "(line 3 in t)",
            ),
            ("server a:1 weight=x;", "invalid parameter \"weight=x\""),
            (
                "server a:1;\nserver b:1 down;",
                "marked down: nginx skips it at lookup time; leave it out of the list (line 2 in t)",
            ),
            ("server ;", "without an address"),
            ("upstream u { }", "No valid server definitions"),
        ] {
            let err = parse(text.as_bytes(), "t").unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
        }
    }
}
