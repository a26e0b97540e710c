//! B1, the binary encoding: `op len payload` records for members of any bytes.
//!
//! `op` is 0xA1 (add) or 0xA2 (remove); 0xA0-0xBF are reserved, so an older
//! decoder fails loudly on a newer format. `len` is canonical unsigned
//! LEB128 of 1 to 4 bytes; the payload may be empty. The bytes are never
//! valid UTF-8 text and never `+`, `-` or whitespace, so detection is
//! unambiguous (setcodec.md d.3).

use super::error::{SetError, SetErrorKind};
use super::members::Span;
use super::{Op, RawRecord};

/// Op byte of an add record.
pub const OP_ADD: u8 = 0xA1;
/// Op byte of a remove record.
pub const OP_REMOVE: u8 = 0xA2;
/// Largest length a 4-byte LEB128 can carry.
pub const MAX_LENGTH: usize = (1 << 28) - 1;

/// Checks that `member` fits B1 under `max_member_len`.
pub fn validate_member(member: &[u8], index: usize, max_member_len: usize) -> Result<(), SetError> {
    if member.len() > max_member_len.min(MAX_LENGTH) {
        return Err(SetError::too_long(
            0,
            index,
            "member",
            member.len(),
            max_member_len.min(MAX_LENGTH),
        )
        .for_member());
    }
    Ok(())
}

/// Appends the B1 record for `member` (already validated) to `out`.
pub(crate) fn push_record(out: &mut Vec<u8>, op: Op, member: &[u8]) {
    out.push(match op {
        Op::Add => OP_ADD,
        Op::Remove => OP_REMOVE,
    });
    let mut len = member.len();
    loop {
        let low = (len & 0x7F) as u8;
        len >>= 7;
        if len == 0 {
            out.push(low);
            break;
        }
        out.push(low | 0x80);
    }
    out.extend_from_slice(member);
}

/// Parses a B1 value into `records`. On error, `records` holds the valid prefix.
pub(crate) fn parse(
    value: &[u8],
    max_member_len: usize,
    records: &mut Vec<RawRecord>,
) -> Result<(), SetError> {
    let n = value.len();
    let mut i = 0;
    while i < n {
        let record = i;
        let index = records.len();
        let op = match value[i] {
            OP_ADD => Op::Add,
            OP_REMOVE => Op::Remove,
            byte @ (b'+' | b'-' | b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r') => {
                return Err(SetError::new(
                    SetErrorKind::MixedEncoding,
                    record,
                    index,
                    format!("T1 byte 0x{byte:02x} in a B1 value"),
                ));
            }
            byte => {
                return Err(SetError::new(
                    SetErrorKind::UnsupportedOp,
                    record,
                    index,
                    format!("op byte 0x{byte:02x} is not a B1 v1 op (0xA1 add, 0xA2 remove)"),
                ));
            }
        };
        i += 1;
        let mut len = 0usize;
        let mut groups = 0;
        loop {
            let Some(&byte) = value.get(i) else {
                return Err(SetError::new(
                    SetErrorKind::Truncated,
                    record,
                    index,
                    "value ends inside a length",
                ));
            };
            i += 1;
            len |= ((byte & 0x7F) as usize) << (7 * groups);
            groups += 1;
            if byte & 0x80 == 0 {
                if byte == 0 && groups > 1 {
                    return Err(SetError::new(
                        SetErrorKind::OverlongLength,
                        record,
                        index,
                        "length has a redundant final 0x00 group",
                    ));
                }
                break;
            }
            if groups == 4 {
                return Err(SetError::new(
                    SetErrorKind::LengthTooLarge,
                    record,
                    index,
                    "length needs more than 4 bytes",
                ));
            }
        }
        if len > max_member_len {
            return Err(SetError::new(
                SetErrorKind::LengthTooLarge,
                record,
                index,
                format!("length {len} exceeds the maximum member length {max_member_len}"),
            ));
        }
        if len > n - i {
            return Err(SetError::new(
                SetErrorKind::Truncated,
                record,
                index,
                format!("length {len} but only {} bytes remain", n - i),
            ));
        }
        records.push(RawRecord {
            op,
            span: Span {
                start: i as u32,
                len: len as u32,
            },
        });
        i += len;
    }
    Ok(())
}
