//! How bytes are shown as text: the `\xNN` escape of `ketama set decode` and
//! the JSON strings of the CLI's `--json` output.

use std::borrow::Cow;
use std::fmt::Write;

/// `bytes` with every byte outside printable ASCII (0x20–0x7e), and every
/// backslash, written as `\xNN` (two lowercase hex digits). Reversible:
/// the result holds a backslash only where an escape begins.
pub fn escape_bytes(bytes: &[u8]) -> String {
    let mut text = String::with_capacity(bytes.len());
    for &byte in bytes {
        if (0x20..0x7F).contains(&byte) && byte != b'\\' {
            text.push(byte as char);
        } else {
            let _ = write!(text, "\\x{byte:02x}");
        }
    }
    text
}

/// `bytes` as a JSON string's content: itself when it is valid UTF-8 without
/// a backslash, else [`escape_bytes`]. A string holding a backslash is
/// therefore always escaped, and [`unescape_json_text`] gets the bytes back.
pub fn json_text(bytes: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) if !text.contains('\\') => Cow::Borrowed(text),
        _ => Cow::Owned(escape_bytes(bytes)),
    }
}

/// The bytes of a string written by [`json_text`] (or [`escape_bytes`]):
/// each `\xNN` becomes its byte. `None` when a backslash does not begin a
/// well-formed escape.
pub fn unescape_json_text(text: &str) -> Option<Vec<u8>> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' {
            let hex = bytes.get(i + 1..i + 4)?;
            if hex[0] != b'x' {
                return None;
            }
            let digits = std::str::from_utf8(&hex[1..]).ok()?;
            out.push(u8::from_str_radix(digits, 16).ok()?);
            i += 4;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_without_backslash_is_kept_and_everything_else_round_trips() {
        assert_eq!(json_text(b"user:1"), "user:1");
        assert_eq!(json_text("caf\u{e9}".as_bytes()), "caf\u{e9}");
        assert_eq!(json_text(b"a\\b"), "a\\x5cb");
        assert_eq!(json_text(b"k\xff\x00"), "k\\xff\\x00");
        assert_eq!(escape_bytes("\u{e9} \x7f".as_bytes()), "\\xc3\\xa9 \\x7f");
        for bytes in [
            &b"plain"[..],
            b"a\\x41",
            b"\xff\xfe",
            "caf\u{e9}\\".as_bytes(),
            b"",
        ] {
            assert_eq!(
                unescape_json_text(&json_text(bytes)).as_deref(),
                Some(bytes)
            );
        }
        assert_eq!(unescape_json_text("bad\\q00"), None);
        assert_eq!(unescape_json_text("cut\\x4"), None);
    }
}
