//! T1, the text encoding of the original post: `+member ` / `-member `.
//!
//! Grammar over bytes (setcodec.md d.2): tokens are `op member`, `op` is
//! `+` (add) or `-` (remove), members are 1..=max bytes in 0x21-0x7E or
//! 0x80-0xFF, and tokens are separated by runs of SP, HT, LF, VT, FF, CR.
//! Leading separators and a missing final separator are accepted. The
//! encoder always writes `op member SP`, so any two payloads concatenate
//! into a valid value.

use super::error::{SetError, SetErrorKind};
use super::members::Span;
use super::{Op, RawRecord};

const MEMBER: u8 = 0;
const SEPARATOR: u8 = 1;
const INVALID: u8 = 2;

/// Byte classes: member byte, separator, or invalid (other control bytes, DEL).
static CLASS: [u8; 256] = {
    let mut table = [MEMBER; 256];
    let mut b = 0;
    while b < 0x20 {
        table[b] = INVALID;
        b += 1;
    }
    table[0x7F] = INVALID;
    table[b' ' as usize] = SEPARATOR;
    table[b'\t' as usize] = SEPARATOR;
    table[b'\n' as usize] = SEPARATOR;
    table[0x0B] = SEPARATOR;
    table[0x0C] = SEPARATOR;
    table[b'\r' as usize] = SEPARATOR;
    table
};

/// Whether `byte` separates T1 tokens (SP, HT, LF, VT, FF, CR).
pub fn is_separator(byte: u8) -> bool {
    CLASS[byte as usize] == SEPARATOR
}

/// Checks that `member` can be written in T1 (`index` names it in errors).
pub fn validate_member(member: &[u8], index: usize, max_member_len: usize) -> Result<(), SetError> {
    if member.is_empty() {
        return Err(SetError::new(
            SetErrorKind::EmptyMember,
            0,
            index,
            "T1 members cannot be empty",
        )
        .for_member());
    }
    if member.len() > max_member_len {
        return Err(
            SetError::too_long(0, index, "member", member.len(), max_member_len).for_member(),
        );
    }
    if let Some(at) = member.iter().position(|&b| CLASS[b as usize] != MEMBER) {
        let byte = member[at];
        let kind = if is_separator(byte) {
            SetErrorKind::MemberHasWhitespace
        } else {
            SetErrorKind::InvalidByte
        };
        return Err(SetError::new(
            kind,
            at,
            index,
            format!("byte 0x{byte:02x} is not allowed in a T1 member"),
        )
        .for_member());
    }
    Ok(())
}

/// Appends the T1 record for `member` (already validated) to `out`.
pub(crate) fn push_record(out: &mut Vec<u8>, op: Op, member: &[u8]) {
    out.push(match op {
        Op::Add => b'+',
        Op::Remove => b'-',
    });
    out.extend_from_slice(member);
    out.push(b' ');
}

/// Parses a T1 value into `records`. On error, `records` holds the valid prefix.
pub(crate) fn parse(
    value: &[u8],
    max_member_len: usize,
    records: &mut Vec<RawRecord>,
) -> Result<(), SetError> {
    let n = value.len();
    let mut i = 0;
    loop {
        while i < n && CLASS[value[i] as usize] == SEPARATOR {
            i += 1;
        }
        if i == n {
            return Ok(());
        }
        let token = i;
        let op = match value[i] {
            b'+' => Op::Add,
            b'-' => Op::Remove,
            byte => return Err(bad_op(byte, token, records.len())),
        };
        i += 1;
        let start = i;
        while i < n {
            // Eight member bytes at a time, then the first other byte.
            if let Some(chunk) = value.get(i..i + 8) {
                let stops = non_member_bytes(u64::from_le_bytes(chunk.try_into().expect("8")));
                if stops == 0 {
                    i += 8;
                    continue;
                }
                i += stops.trailing_zeros() as usize / 8;
            }
            match CLASS[value[i] as usize] {
                MEMBER => i += 1,
                SEPARATOR => break,
                _ => {
                    return Err(SetError::new(
                        SetErrorKind::InvalidByte,
                        i,
                        records.len(),
                        format!("byte 0x{:02x} is not allowed in a T1 member", value[i]),
                    ));
                }
            }
        }
        let len = i - start;
        if len == 0 {
            return Err(SetError::new(
                SetErrorKind::EmptyMember,
                token,
                records.len(),
                "bare op with no member",
            ));
        }
        if len > max_member_len {
            return Err(SetError::too_long(
                token,
                records.len(),
                "member",
                len,
                max_member_len,
            ));
        }
        records.push(RawRecord {
            op,
            span: Span {
                start: start as u32,
                len: len as u32,
            },
        });
    }
}

/// The high bit of every byte of `word` (little-endian) that is not a
/// member byte, that is below 0x21 or 0x7F; the lowest bit set is exact
/// (a borrow only flags bytes above a byte already flagged), which is all
/// the parser uses.
fn non_member_bytes(word: u64) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below_0x21 = word.wrapping_sub(0x21 * ONES) & !word;
    let del = word ^ (0x7F * ONES);
    let is_del = del.wrapping_sub(ONES) & !del;
    (below_0x21 | is_del) & HIGH
}

fn bad_op(byte: u8, offset: usize, record: usize) -> SetError {
    if (0xA0..=0xBF).contains(&byte) {
        SetError::new(
            SetErrorKind::MixedEncoding,
            offset,
            record,
            format!("B1 record byte 0x{byte:02x} in a T1 value"),
        )
    } else {
        SetError::new(
            SetErrorKind::BadOp,
            offset,
            record,
            format!("token starts with 0x{byte:02x}, not '+' or '-'"),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setcodec_t1_swar_scan_finds_the_first_non_member_byte() {
        // Member bytes below `at`, byte `b` at `at`, byte `c` above it.
        for at in 0..8 {
            for b in 0..=255u8 {
                for c in 0..=255u8 {
                    let mut bytes = [b'a'; 8];
                    bytes[at] = b;
                    bytes[at + 1..].fill(c);
                    let first = bytes.iter().position(|&x| CLASS[x as usize] != MEMBER);
                    let stops = non_member_bytes(u64::from_le_bytes(bytes));
                    let found = (stops != 0).then(|| stops.trailing_zeros() as usize / 8);
                    assert_eq!(found, first, "{bytes:02x?}");
                }
            }
        }
    }
}
