//! Decoding values, reading members and encoding APPEND payloads.

use super::*;
use crate::boundary::{
    arg_bytes, arg_opt_out, arg_out, arg_slice_mut, guard_status, guard_value, param,
};
use crate::handle::{handle_opt, handle_ref};
use crate::status::ketama_status;
use ketama_core::setcodec::{self, Op, ops};

/// Counters of a decoded set.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ketama_set_stats {
    /// Live members.
    pub members: usize,
    /// Records in the value.
    pub records: usize,
    /// Remove records (the original post's dirtiness).
    pub removals: usize,
    /// records - members: what compaction deletes.
    pub redundant: usize,
    /// Size of the decoded value in bytes.
    pub value_len: usize,
    /// The encoding read (`ketama_set_encoding`; AUTO for an empty value).
    pub encoding: u32,
}

/// Decodes a stored value strictly into a new set.
///
/// `encoding` is a `ketama_set_encoding` (AUTO detects T1/B1);
/// `max_member_len` 0 means 250. On a malformed value the status is
/// `KETAMA_ERR_SET_DECODE`, `ketama_error()` names kind, byte offset and
/// record, and `*error_out` (if not NULL) receives them.
///
/// # Safety
/// `value` is valid for `value_len` bytes (or NULL with 0); `set_out` is
/// writable; `error_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_decode(
    value: *const u8,
    value_len: usize,
    encoding: u32,
    max_member_len: usize,
    set_out: *mut *mut ketama_set,
    error_out: *mut ketama_set_error,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(set_out))?;
        let value = param!(arg_bytes(value, value_len))?;
        let options = options(encoding, max_member_len)?;
        match setcodec::decode(value, &options) {
            Ok(set) => {
                *out = hand_out_set(set, options.max_member_len);
                Ok(())
            }
            Err(error) => {
                if let Some(slot) = param!(arg_opt_out(error_out)) {
                    *slot = error_info(&error);
                }
                Err(error.into())
            }
        }
    })
}

/// Decodes the valid prefix of a value (for repair tools): always returns a
/// set (possibly empty) and sets `*error_out` to the error that stopped
/// decoding (kind 0 when the whole value decoded). Never compact a salvaged
/// set automatically.
///
/// # Safety
/// As `ketama_set_decode`; `error_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_decode_salvage(
    value: *const u8,
    value_len: usize,
    encoding: u32,
    max_member_len: usize,
    set_out: *mut *mut ketama_set,
    error_out: *mut ketama_set_error,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(set_out))?;
        let error_slot = param!(arg_out(error_out))?;
        let value = param!(arg_bytes(value, value_len))?;
        let options = options(encoding, max_member_len)?;
        let salvaged = setcodec::decode_salvage(value, &options);
        *error_slot = salvaged.error.as_ref().map(error_info).unwrap_or_default();
        *out = hand_out_set(salvaged.set, options.max_member_len);
        Ok(())
    })
}

/// Reads the counters of a set.
///
/// # Safety
/// `set` is a live handle; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_get_stats(
    set: *const ketama_set,
    out: *mut ketama_set_stats,
) -> ketama_status {
    guard_status(|| {
        let handle = param!(handle_ref(set))?;
        let out = param!(arg_out(out))?;
        let stats = &handle.set.stats;
        *out = ketama_set_stats {
            members: handle.set.members.len(),
            records: stats.records,
            removals: stats.removals,
            redundant: stats.redundant,
            value_len: stats.value_len,
            encoding: format_id(stats.format),
        };
        Ok(())
    })
}

/// SCARD: number of members (0 for NULL, a missing key).
///
/// # Safety
/// `set` is NULL or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_card(set: *const ketama_set) -> usize {
    guard_value(0, || {
        param!(handle_opt(set)).map_or(0, |h| h.set.members.len())
    })
}

/// Member `index` in bytewise order (SMEMBERS iteration). The bytes belong
/// to the set and stay valid while it lives; they are not NUL-terminated.
///
/// # Safety
/// `set` is a live handle; `data_out` and `len_out` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_member(
    set: *const ketama_set,
    index: usize,
    data_out: *mut *const u8,
    len_out: *mut usize,
) -> ketama_status {
    guard_status(|| {
        let handle = param!(handle_ref(set))?;
        let data_out = param!(arg_out(data_out))?;
        let len_out = param!(arg_out(len_out))?;
        let members = &handle.set.members;
        let member = members.get(index).ok_or_else(|| {
            Error::OutOfRange(format!(
                "member index {index} is out of range (the set has {})",
                members.len()
            ))
        })?;
        *data_out = member.as_ptr();
        *len_out = member.len();
        Ok(())
    })
}

/// SISMEMBER: whether `member` is in the set (a NULL set is a missing key).
///
/// # Safety
/// `set` is NULL or live; `member` is valid for `member_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_contains(
    set: *const ketama_set,
    member: *const u8,
    member_len: usize,
    out: *mut bool,
) -> ketama_status {
    guard_status(|| {
        let member = param!(arg_bytes(member, member_len))?;
        let out = param!(arg_out(out))?;
        *out = param!(handle_opt(set)).is_some_and(|h| h.set.members.contains(member));
        Ok(())
    })
}

/// SMISMEMBER: `out[i]` tells whether `members[i]` is in the set (a NULL
/// set is a missing key: all false).
///
/// # Safety
/// `set` is NULL or live; `members` points to `count` valid entries; `out`
/// is writable for `count` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_contains_many(
    set: *const ketama_set,
    members: *const ketama_set_member_ref,
    count: usize,
    out: *mut bool,
) -> ketama_status {
    guard_status(|| {
        let members = param!(member_list(members, count))?;
        let out = param!(arg_slice_mut(out, count))?;
        let empty = MemberSet::new();
        let set = param!(handle_opt(set)).map_or(&empty, |h| &h.set.members);
        out.copy_from_slice(&ops::smismember(set, &members));
        Ok(())
    })
}

/// Detects a value's encoding: T1, B1, or AUTO (0) for an empty value;
/// anything else fails with `KETAMA_ERR_SET_DECODE` (UnknownEncoding).
///
/// # Safety
/// `value` is valid for `value_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_detect(
    value: *const u8,
    value_len: usize,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let value = param!(arg_bytes(value, value_len))?;
        let out = param!(arg_out(out))?;
        *out = format_id(setcodec::detect(value)?);
        Ok(())
    })
}

/// Encodes one APPEND payload: an `op` record (`ketama_set_op`) for each of
/// `count` members in `encoding` (T1 or B1). An invalid member fails with
/// `KETAMA_ERR_SET_MEMBER` naming the member index and byte offset.
///
/// # Safety
/// `members` points to `count` entries whose data is valid; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_encode(
    op: u32,
    encoding: u32,
    members: *const ketama_set_member_ref,
    count: usize,
    max_member_len: usize,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(out))?;
        let members = param!(member_list(members, count))?;
        let options = options(0, max_member_len)?;
        let payload = setcodec::encode(
            Op::with_id(op)?,
            &members,
            writable_format(encoding)?,
            options.max_member_len,
        )?;
        *out = buffer(payload);
        Ok(())
    })
}
