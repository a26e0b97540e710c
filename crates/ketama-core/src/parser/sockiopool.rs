//! Server lines as libketama's Java port (`SockIOPool.setServersAndWeights`)
//! reads them: `SERVER<TAB>WEIGHT`, split on TAB; the server is the first
//! field exactly as written (spaces included), the weight the second field
//! read by `Integer.parseInt`, and 1 when that throws (no second field, not
//! a number, out of `int` range). Further fields are ignored.
//!
//! The class takes an array of lines; a file gives one per line (`\r\n`
//! endings accepted) and blank lines are skipped. Two readings the class
//! accepts are refused here with the line named: a weight that parses to 0
//! or less (the library's weights are positive), and a weight written with
//! non-ASCII digits (which `parseInt` reads, and which this reader does not).

use super::{ParseMode, Piece, ServerList, parse_server_file};
use crate::{Error, ServerSpec};

/// What `Integer.parseInt` makes of an ASCII weight field: `Some(value)`, or
/// `None` where it throws (the class then uses 1).
pub fn java_parse_int(field: &[u8]) -> Option<i32> {
    let (negative, digits) = match field.first()? {
        b'-' => (true, &field[1..]),
        b'+' => (false, &field[1..]),
        _ => (false, field),
    };
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let mut value: i64 = 0;
    for &d in digits {
        value = value * 10 + i64::from(d - b'0');
        if value > 1 << 31 {
            return None;
        }
    }
    i32::try_from(if negative { -value } else { value }).ok()
}

/// Parses SockIOPool server lines. `source` names the input in errors.
pub fn parse(text: &[u8], source: &str) -> Result<Vec<ServerSpec>, Error> {
    parse_server_file(text, source, ParseMode::SockIoPool)
}

/// Reads one line (a [`Piece::Cut`] is a line too long).
pub(crate) fn read_line(list: &mut ServerList, line: usize, piece: Piece) -> Result<(), Error> {
    let raw = match piece {
        Piece::Line(bytes) => &bytes[..bytes.len() - 1],
        Piece::Last(bytes) => bytes,
        Piece::Cut(_) => {
            return Err(list.error(
                line,
                format!("line longer than {} bytes", super::peers::MAX_LINE_BYTES),
            ));
        }
    };
    let text = raw.strip_suffix(b"\r").unwrap_or(raw);
    if text.trim_ascii().is_empty() {
        return Ok(());
    }
    let mut fields = text.split(|&b| b == b'\t');
    let address = fields.next().unwrap_or_default();
    if address.is_empty() {
        return Err(list.error(line, "empty server before the TAB"));
    }
    let weight = match fields.next() {
        None => 1,
        Some(field) if !field.is_ascii() => {
            return Err(list.error(
                line,
                format!(
                    "weight '{}' has non-ASCII characters (Integer.parseInt may read them as digits; write the weight in ASCII)",
                    String::from_utf8_lossy(field)
                ),
            ));
        }
        Some(field) => match java_parse_int(field) {
            None => 1,
            Some(w) if w > 0 => w,
            Some(w) => {
                return Err(list.error(
                    line,
                    format!(
                        "weight {w} is not positive (SockIOPool would give this server no points but count it in the total)"
                    ),
                ));
            }
        },
    };
    list.push(ServerSpec::new(address, weight as u64));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_int_like_java() {
        assert_eq!(java_parse_int(b"12"), Some(12));
        assert_eq!(java_parse_int(b"+7"), Some(7));
        assert_eq!(java_parse_int(b"-3"), Some(-3));
        assert_eq!(java_parse_int(b"2147483647"), Some(i32::MAX));
        assert_eq!(java_parse_int(b"-2147483648"), Some(i32::MIN));
        for bad in [
            &b"2147483648"[..],
            b"",
            b"-",
            b" 5",
            b"5 ",
            b"1e3",
            b"0x10",
            b"99999999999999999999",
        ] {
            assert_eq!(
                java_parse_int(bad),
                None,
                "{:?}",
                String::from_utf8_lossy(bad)
            );
        }
    }

    #[test]
    fn lines_as_the_class_reads_them() {
        let list = parse(
            b"a:1\t5\r\nb:2\n\n c:3 \tx\nd:4\t3\textra\ne:5\t 2\nf:6\t9999999999\n",
            "t",
        )
        .unwrap();
        let got: Vec<(&[u8], u64)> = list
            .iter()
            .map(|s| (s.address.as_slice(), s.weight.unwrap()))
            .collect();
        assert_eq!(
            got,
            vec![
                (&b"a:1"[..], 5),
                (b"b:2", 1),
                (b" c:3 ", 1),
                (b"d:4", 3),
                (b"e:5", 1),
                (b"f:6", 1)
            ]
        );
    }

    #[test]
    fn refused_lines_are_named() {
        for (text, expected, line) in [
            ("a:1\t0", "weight 0 is not positive", 1),
            ("a:1\nb:2\t-4", "weight -4 is not positive", 2),
            ("\t5", "empty server", 1),
            ("a:1\n\nb\t\u{663}", "non-ASCII", 3),
        ] {
            let err = parse(text.as_bytes(), "t").unwrap_err().to_string();
            assert!(err.contains(expected), "{text}: {err}");
            assert!(err.contains(&format!("line {line} in t")), "{text}: {err}");
        }
    }
}
