//! The list formats of the Membase 1.7 manual (§6.2.2), read-only.
//!
//! * **Comma** (`user-1234,user-222,`): every entry is an add.
//! * **Tombstone** (`user-222,|user-1234,user-222,user-987,`): entries
//!   before the *last* `|` are deletions (writers PREPEND `x,` or `x,|`),
//!   entries after it are adds.
//! * **Plus-minus** (`+1234+222+987-222`): `+id` adds, `-id` removes, no
//!   separator, so ids cannot contain `+` or `-`.
//!
//! Empty entries (a trailing comma) are skipped. Entries are raw bytes up
//! to the maximum member length.
//!
//! **Counting, not replay.** The manual tracks "list entry counts": a
//! member is present when its adds outnumber its deletions, whatever the
//! order. T1/B1 replay records in order (last record wins). The two differ:
//! `+a+a-a` is `{a}` when counted and `{}` when replayed; `-a+a` is `{}`
//! counted and `{a}` replayed. Converting to T1/B1 writes the counted set.

use super::error::{SetError, SetErrorKind};
use super::members::Span;
use super::{Op, RawRecord};

/// Pushes the non-empty `separator`-separated entries of `value[from..to]`.
fn push_entries(
    value: &[u8],
    from: usize,
    to: usize,
    is_separator: impl Fn(u8) -> bool,
    op: Op,
    max_member_len: usize,
    records: &mut Vec<RawRecord>,
) -> Result<(), SetError> {
    let mut start = from;
    for entry in value[from..to].split(|&b| is_separator(b)) {
        let len = entry.len();
        if len > max_member_len {
            return Err(SetError::too_long(
                start,
                records.len(),
                "entry",
                len,
                max_member_len,
            ));
        }
        if len > 0 {
            records.push(RawRecord {
                op,
                span: Span {
                    start: start as u32,
                    len: len as u32,
                },
            });
        }
        start += len + 1;
    }
    Ok(())
}

/// Parses a comma list: every entry is an add.
pub(crate) fn parse_comma(
    value: &[u8],
    max_member_len: usize,
    records: &mut Vec<RawRecord>,
) -> Result<(), SetError> {
    push_entries(
        value,
        0,
        value.len(),
        |b| b == b',',
        Op::Add,
        max_member_len,
        records,
    )
}

/// Parses a tombstone list: deletions before the last `|`, adds after it.
pub(crate) fn parse_tombstone(
    value: &[u8],
    max_member_len: usize,
    records: &mut Vec<RawRecord>,
) -> Result<(), SetError> {
    match value.iter().rposition(|&b| b == b'|') {
        None => parse_comma(value, max_member_len, records),
        Some(bar) => {
            push_entries(
                value,
                0,
                bar,
                |b| b == b',' || b == b'|',
                Op::Remove,
                max_member_len,
                records,
            )?;
            push_entries(
                value,
                bar + 1,
                value.len(),
                |b| b == b',',
                Op::Add,
                max_member_len,
                records,
            )
        }
    }
}

/// Parses a plus-minus list (`+1234+222-222`).
pub(crate) fn parse_plus_minus(
    value: &[u8],
    max_member_len: usize,
    records: &mut Vec<RawRecord>,
) -> Result<(), SetError> {
    let n = value.len();
    let mut i = 0;
    while i < n {
        let token = i;
        let op = match value[i] {
            b'+' => Op::Add,
            b'-' => Op::Remove,
            byte => {
                return Err(SetError::new(
                    SetErrorKind::BadOp,
                    i,
                    records.len(),
                    format!("entry starts with 0x{byte:02x}, not '+' or '-'"),
                ));
            }
        };
        i += 1;
        let start = i;
        while i < n && value[i] != b'+' && value[i] != b'-' {
            i += 1;
        }
        let len = i - start;
        if len == 0 {
            return Err(SetError::new(
                SetErrorKind::EmptyMember,
                token,
                records.len(),
                "bare op with no id",
            ));
        }
        if len > max_member_len {
            return Err(SetError::too_long(
                token,
                records.len(),
                "entry",
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
    Ok(())
}
