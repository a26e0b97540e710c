//! The original libketama server-file reading, reproduced exactly.
//!
//! The original reads the file in chunks of at most 126 bytes (`fgets` with a
//! 127-byte buffer): a chunk ends after a newline or after 126 bytes, and the
//! line counter counts chunks. Each chunk is read up to its first NUL. A chunk
//! shorter than 2 bytes or starting with `#` is skipped. Otherwise it is split
//! on SPACE and TAB only (so `\r` and `\n` stay inside tokens): token 1 is the
//! address (1 to 23 bytes), token 2 the weight, whose last byte is always
//! dropped (the original assumes it is the newline) before `strtol`. Further
//! tokens are ignored.
//!
//! Where the original crashes or misbehaves, this reading returns an error
//! instead; no file the original accepts is read differently:
//! a chunk of blanks without newline (original: NULL dereference), a negative
//! weight (original: wraps to 2^64−n and overflows its stack array), a weight
//! sum that overflows 64 bits (original: wraps), a weight of 0 or an address
//! over 23 bytes (original: an error with no reason on glibc).

use super::{ParseMode, Piece, ServerList, is_blank, parse_server_file};
use crate::{Error, ServerSpec};

/// Longest chunk `fgets(buf, 127, f)` returns.
pub(crate) const CHUNK_BYTES: usize = 126;
/// Longest address the original accepts (22 bytes stored, the 23rd spills into padding).
pub const MAX_ADDRESS_BYTES: usize = 23;

/// Parses `content` exactly as libketama's `ketama_roll` reads a server file.
pub fn parse(content: &[u8], file: &str) -> Result<Vec<ServerSpec>, Error> {
    parse_server_file(content, file, ParseMode::Libketama)
}

/// Reads one `fgets` chunk (a line with its newline, or 126 bytes of a
/// longer line, or the unterminated end of the file); `line` counts chunks.
pub(crate) fn read_chunk(list: &mut ServerList, line: usize, piece: Piece) -> Result<(), Error> {
    let (Piece::Line(chunk) | Piece::Cut(chunk) | Piece::Last(chunk)) = piece;
    let text = match chunk.iter().position(|&b| b == 0) {
        Some(nul) => &chunk[..nul],
        None => chunk,
    };
    if text.len() < 2 || text[0] == b'#' {
        return Ok(());
    }
    let mut tokens = text.split(|&b| is_blank(b)).filter(|t| !t.is_empty());
    let address = tokens
        .next()
        .ok_or_else(|| list.error(line, "Unable to find address"))?;
    if address.len() > MAX_ADDRESS_BYTES {
        return Err(list.error(line, "Address longer than 23 bytes"));
    }
    let weight_token = tokens
        .next()
        .ok_or_else(|| list.error(line, "Unable to find delimiter"))?;
    // The original drops the token's last byte before converting it.
    let digits = &weight_token[..weight_token.len() - 1];
    let weight = match strtol(digits) {
        StrtolResult::Value(v) if v > 0 => v as u64,
        StrtolResult::Value(0) => {
            return Err(list.error(line, "Invalid memory value: weight is zero"));
        }
        StrtolResult::Value(_) => {
            return Err(list.error(line, "Invalid memory value: weight is negative"));
        }
        StrtolResult::NoDigits | StrtolResult::OutOfRange => {
            return Err(list.error(line, "Invalid memory value"));
        }
    };
    list.push_weighted(ServerSpec::new(address.to_vec(), weight), line)
}

/// Outcome of C's `strtol(s, &end, 10)` as libketama checks it.
#[derive(Debug, PartialEq, Eq)]
enum StrtolResult {
    Value(i64),
    NoDigits,
    OutOfRange,
}

/// C `strtol` in base 10: leading `isspace`, an optional sign, digits; stops
/// at the first non-digit.
fn strtol(bytes: &[u8]) -> StrtolResult {
    let mut i = 0;
    while i < bytes.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r') {
        i += 1;
    }
    let negative = match bytes.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let digits_start = i;
    let mut magnitude: i128 = 0;
    let mut overflow = false;
    while let Some(d) = bytes.get(i).filter(|b| b.is_ascii_digit()) {
        magnitude = magnitude * 10 + i128::from(d - b'0');
        if magnitude > i128::from(i64::MAX) + 1 {
            overflow = true;
            magnitude = i128::from(i64::MAX) + 1;
        }
        i += 1;
    }
    if i == digits_start {
        return StrtolResult::NoDigits;
    }
    let value = if negative { -magnitude } else { magnitude };
    if overflow || value > i128::from(i64::MAX) || value < i128::from(i64::MIN) {
        return StrtolResult::OutOfRange;
    }
    StrtolResult::Value(value as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn weights(content: &[u8]) -> Result<Vec<(String, u64)>, String> {
        parse(content, "servers.txt")
            .map(|v| {
                v.into_iter()
                    .map(|s| {
                        (
                            String::from_utf8_lossy(&s.address).into_owned(),
                            s.weight.unwrap(),
                        )
                    })
                    .collect()
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn reads_the_spec_table_like_the_original() {
        assert_eq!(weights(b"a:1\t100\n").unwrap(), vec![("a:1".into(), 100)]);
        assert_eq!(
            weights(b"  a:1 \t 100\r\n").unwrap(),
            vec![("a:1".into(), 100)]
        );
        assert_eq!(
            weights(b"a:1\t+100\nb:2\t0100\n").unwrap(),
            vec![("a:1".into(), 100), ("b:2".into(), 100)]
        );
        assert_eq!(weights(b"\n# c\na:1\t100\n").unwrap().len(), 1);
        // The dropped digit.
        for line in [
            &b"a:1\t100 \n"[..],
            b"a:1\t100\t# c\n",
            b"a:1 100 extra\n",
            b"a:1\t100\t\n",
            b"a:1\t100",
        ] {
            assert_eq!(
                weights(line).unwrap(),
                vec![("a:1".into(), 10)],
                "{:?}",
                String::from_utf8_lossy(line)
            );
        }
        assert_eq!(weights(b"a:1\t12abc\n").unwrap()[0].1, 12);
    }

    #[test]
    fn rejects_what_the_original_rejects_with_a_reason() {
        let cases: &[(&[u8], &str)] = &[
            (b"   \n", "Unable to find delimiter (line 1 in servers.txt)"),
            (b"\r\n", "Unable to find delimiter (line 1 in servers.txt)"),
            (
                b"a:1\t100\n  # x\n",
                "Invalid memory value (line 2 in servers.txt)",
            ),
            (
                b"a:1\tabc\n",
                "Invalid memory value (line 1 in servers.txt)",
            ),
            (
                b"a:1\t0x10\n",
                "Invalid memory value: weight is zero (line 1 in servers.txt)",
            ),
            (b"a:1\t5", "Invalid memory value (line 1 in servers.txt)"),
            (
                b"a:1\t99999999999999999999\n",
                "Invalid memory value (line 1 in servers.txt)",
            ),
            (
                b"a:1\t-5\n",
                "Invalid memory value: weight is negative (line 1 in servers.txt)",
            ),
            (
                b"123456789012345678901234\t1\n",
                "Address longer than 23 bytes (line 1 in servers.txt)",
            ),
            (
                b"a:1\t100\n   ",
                "Unable to find address (line 2 in servers.txt)",
            ),
            (b"", "No valid server definitions in file servers.txt"),
            (
                b"# only\n\n",
                "No valid server definitions in file servers.txt",
            ),
        ];
        for (content, message) in cases {
            assert_eq!(
                weights(content).unwrap_err(),
                *message,
                "{:?}",
                String::from_utf8_lossy(content)
            );
        }
    }

    #[test]
    fn twenty_three_byte_addresses_are_accepted() {
        let line = b"12345678901234567890123\t1\n";
        assert_eq!(weights(line).unwrap()[0].0.len(), 23);
    }

    #[test]
    fn long_lines_split_into_126_byte_chunks() {
        // 132 bytes: the first chunk is 126 bytes (its weight token loses a
        // digit that was never the newline); the tail "345\t1\n" is line 2.
        let mut content = b"a:1\t".to_vec();
        content.extend(std::iter::repeat_n(b'1', 121));
        content.extend(b"2345\t1\n");
        let mut lines: Vec<Vec<u8>> = Vec::new();
        let mut splitter = crate::parser::LineSplitter::new(CHUNK_BYTES);
        let mut collect = |_: usize, piece: Piece| {
            let (Piece::Line(b) | Piece::Cut(b) | Piece::Last(b)) = piece;
            lines.push(b.to_vec());
            Ok(())
        };
        splitter.feed(&content, &mut collect).unwrap();
        splitter.finish(&mut collect).unwrap();
        assert_eq!(lines[0].len(), 126);
        assert_eq!(lines[1], b"345\t1\n");
        // Chunk 1's weight token is 122 digits: out of range.
        assert_eq!(
            weights(&content).unwrap_err(),
            "Invalid memory value (line 1 in servers.txt)"
        );
    }

    #[test]
    fn weight_sum_overflow_is_an_error() {
        let content =
            b"a:1\t9223372036854775807\nb:1\t9223372036854775807\nc:1\t9223372036854775807\n";
        // Each weight token keeps its newline, so the full value is read.
        assert!(
            weights(content)
                .unwrap_err()
                .starts_with("Sum of weights overflows")
        );
    }

    #[test]
    fn nul_bytes_end_the_line_like_strlen() {
        assert_eq!(weights(b"a:1\t100\n\0b:2\t5\n").unwrap().len(), 1);
    }
}
