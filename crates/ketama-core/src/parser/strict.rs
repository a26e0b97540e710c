//! The strict server-file reading used by the modern API and the CLI.
//!
//! A file is accepted only when every line reads unambiguously as
//! `ADDRESS<blanks>WEIGHT`, and then it yields exactly the servers and
//! weights the original libketama reads from it. Every line the original
//! would misread (drop a weight digit, read `12abc` as 12, take a comment as
//! a server) is rejected with its line number and the reason.
//!
//! Accepted: LF or CRLF line ends, `#` comments in column 1, empty lines,
//! blanks (SPACE/TAB) before the address and between the fields, weights of
//! plain decimal digits from 1 to 2^63−1. Addresses may be longer than the
//! original's 23 bytes (hostnames, IPv6); `ketama check` warns about those,
//! since the original rejects them.

use super::{ParseMode, Piece, ServerList, is_blank, parse_server_file};
use crate::{Error, ServerSpec};

/// Longest line (newline included) the original reads as one line.
const MAX_LINE_BYTES: usize = super::libketama::CHUNK_BYTES;

/// Parses a server file strictly. `file` names the source in errors.
pub fn parse(content: &[u8], file: &str) -> Result<Vec<ServerSpec>, Error> {
    parse_server_file(content, file, ParseMode::Strict)
}

/// Reads one line of the file (a [`Piece::Cut`] is a line too long).
pub(crate) fn read_line(list: &mut ServerList, line: usize, piece: Piece) -> Result<(), Error> {
    let (raw, terminated) = match piece {
        Piece::Line(bytes) => (&bytes[..bytes.len() - 1], true),
        Piece::Last(bytes) => (bytes, false),
        Piece::Cut(bytes) => (bytes, true),
    };
    match parse_line(raw, terminated, line) {
        Ok(Some(server)) => list.push_weighted(server, line),
        Ok(None) => Ok(()),
        Err(reason) => Err(list.error(line, reason)),
    }
}

/// One line without its `\n`; `Ok(None)` for an empty line or a comment.
fn parse_line(raw: &[u8], terminated: bool, line: usize) -> Result<Option<ServerSpec>, String> {
    if raw.len() + usize::from(terminated) > MAX_LINE_BYTES {
        return Err(format!(
            "Line longer than {MAX_LINE_BYTES} bytes (libketama would split it into two lines)"
        ));
    }
    if line == 1 && raw.starts_with(b"\xEF\xBB\xBF") {
        return Err(
            "UTF-8 byte order mark (libketama would make it part of the first address)".into(),
        );
    }
    if raw.contains(&0) {
        return Err("NUL byte in line".into());
    }
    if raw.is_empty() || raw[0] == b'#' {
        return Ok(None);
    }
    let text = raw.strip_suffix(b"\r").unwrap_or(raw);
    let Some(start) = text.iter().position(|&b| !is_blank(b)) else {
        return Err(
            "Blank line containing spaces, tabs or a carriage return (libketama rejects it)".into(),
        );
    };
    let body = &text[start..];
    if body[0] == b'#' {
        return Err(
            "Indented comment: '#' must be in column 1 (libketama reads it as a server)".into(),
        );
    }
    if text.last().is_some_and(|&b| is_blank(b)) {
        return Err(
            "Trailing blank after the weight (libketama would drop the weight's last digit)".into(),
        );
    }
    let fields: Vec<&[u8]> = body
        .split(|&b| is_blank(b))
        .filter(|f| !f.is_empty())
        .collect();
    let (address, weight) = match fields.as_slice() {
        [address, weight] => (*address, *weight),
        [_] => return Err("Missing weight: expected ADDRESS<TAB>WEIGHT".into()),
        [_, _, third, ..] => {
            return Err(format!(
                "Unexpected third column '{}' (libketama would drop the weight's last digit)",
                String::from_utf8_lossy(third)
            ));
        }
        [] => unreachable!("a non-blank line has a field"),
    };
    if let Some(bad) = address.iter().find(|&&b| b < 0x20 || b == 0x7f) {
        return Err(format!("Control byte 0x{bad:02x} in address"));
    }
    if !weight.iter().all(u8::is_ascii_digit) {
        return Err(format!(
            "Invalid weight '{}': expected a positive decimal integer",
            String::from_utf8_lossy(weight)
        ));
    }
    let value = std::str::from_utf8(weight)
        .ok()
        .and_then(|w| w.parse::<i64>().ok())
        .ok_or_else(|| {
            format!(
                "Weight {} is out of range (at most 2^63-1)",
                String::from_utf8_lossy(weight)
            )
        })?;
    if value == 0 {
        return Err("Weight must be positive".into());
    }
    if !terminated {
        return Err(format!(
            "Missing newline at end of file (libketama would read weight {} as {})",
            value,
            value / 10
        ));
    }
    Ok(Some(ServerSpec::new(address.to_vec(), value as u64)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parser::libketama;

    fn check(content: &[u8]) -> Result<Vec<ServerSpec>, String> {
        parse(content, "f").map_err(|e| e.to_string())
    }

    #[test]
    fn accepts_clean_files_and_agrees_with_the_original() {
        let files: &[&[u8]] = &[
            b"10.0.0.1:11211\t100\n10.0.0.2:11211\t200\n",
            b"# pool\n\n10.0.0.1:11211 100\r\n  10.0.0.2:11211 \t 7\r\n",
            b"12345678901234567890123\t1\n",
        ];
        for content in files {
            assert_eq!(
                check(content).unwrap(),
                libketama::parse(content, "f").unwrap()
            );
        }
    }

    #[test]
    fn rejects_every_line_the_original_misreads() {
        let cases: &[(&[u8], &str)] = &[
            (b"a:1\t100 \n", "Trailing blank"),
            (b"a:1\t100\t\n", "Trailing blank"),
            (b"a:1\t12abc\n", "Invalid weight '12abc'"),
            (b"a:1\t100 extra\n", "Unexpected third column 'extra'"),
            (b"a:1\t100\n   \n", "Blank line"),
            (b"\r\n", "Blank line"),
            (b"  # comment\n", "Indented comment"),
            (
                b"a:1\t100",
                "Missing newline at end of file (libketama would read weight 100 as 10)",
            ),
            (b"a:1\n", "Missing weight"),
            (b"a:1\t0\n", "Weight must be positive"),
            (b"a:1\t-5\n", "Invalid weight '-5'"),
            (b"a:1\t+5\n", "Invalid weight '+5'"),
            (b"a:1\t99999999999999999999\n", "out of range"),
            (b"\xEF\xBB\xBFa:1\t1\n", "byte order mark"),
            (b"a\x01:1\t1\n", "Control byte 0x01"),
            (b"a:1\t1\0\n", "NUL byte"),
        ];
        for (content, expected) in cases {
            let err = check(content).unwrap_err();
            assert!(
                err.contains(expected),
                "{:?}: {err}",
                String::from_utf8_lossy(content)
            );
            assert!(err.contains("(line "), "{err}");
        }
        let long = [b"a:1\t".as_slice(), &[b'1'; 130], b"\n"].concat();
        assert!(
            check(&long)
                .unwrap_err()
                .contains("Line longer than 126 bytes")
        );
        assert_eq!(
            check(b"").unwrap_err(),
            "No valid server definitions in file f"
        );
    }

    #[test]
    fn error_names_the_line() {
        let err = check(b"# c\na:1\t1\nb:2\tx\n").unwrap_err();
        assert_eq!(
            err,
            "Invalid weight 'x': expected a positive decimal integer (line 3 in f)"
        );
    }

    #[test]
    fn long_addresses_are_allowed() {
        let s = check(b"memcached-cache-01.example.internal:11211\t1\n[2001:db8::1]:11211\t1\n")
            .unwrap();
        assert_eq!(s.len(), 2);
    }
}
