//! The Membase list formats: conversion to T1/B1, and paired lists.

use super::*;
use crate::boundary::{arg_bytes, arg_out, guard_status, param};
use crate::status::ketama_status;
use ketama_core::registry::Named;
use ketama_core::setcodec::{self, paired};

/// Converts a value in any encoding (Membase lists included) to the
/// canonical `to` encoding (T1 or B1).
///
/// # Safety
/// `value` is valid for `value_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_convert(
    value: *const u8,
    value_len: usize,
    from: u32,
    to: u32,
    max_member_len: usize,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        let value = param!(arg_bytes(value, value_len))?;
        let out = param!(arg_out(out))?;
        *out = buffer(setcodec::convert(
            value,
            &options(from, max_member_len)?,
            writable_format(to)?,
        )?);
        Ok(())
    })
}

/// The key of one list of the pair for `base`: `follow-<base>` (side 0)
/// or `unfollow-<base>` (side 1). Append the payload of
/// `ketama_set_encode_paired` to it.
///
/// # Safety
/// `base` is valid for `base_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_paired_key(
    base: *const u8,
    base_len: usize,
    side: u32,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        let base = param!(arg_bytes(base, base_len))?;
        let out = param!(arg_out(out))?;
        let side = paired::Side::with_id(side)?;
        *out = buffer(paired::key(base, side));
        Ok(())
    })
}

/// The APPEND payload recording `count` members in one list of a pair
/// (add records in `encoding`, T1 or B1), whichever side it goes to.
///
/// # Safety
/// `members` points to `count` entries whose data is valid; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_encode_paired(
    members: *const ketama_set_member_ref,
    count: usize,
    encoding: u32,
    max_member_len: usize,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(out))?;
        let members = param!(member_list(members, count))?;
        let options = options(0, max_member_len)?;
        *out = buffer(paired::encode_paired(
            &members,
            writable_format(encoding)?,
            options.max_member_len,
        )?);
        Ok(())
    })
}

/// Reads a paired list into a new set, counted: the members that occur
/// more often in `adds` (the `follow-` value) than in `removes` (the
/// `unfollow-` value). A missing key is an empty value (NULL, 0).
///
/// # Safety
/// `adds` and `removes` are valid for their lengths; `set_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_decode_paired(
    adds: *const u8,
    adds_len: usize,
    removes: *const u8,
    removes_len: usize,
    max_member_len: usize,
    set_out: *mut *mut ketama_set,
) -> ketama_status {
    guard_status(|| {
        let set_out = param!(arg_out(set_out))?;
        let adds = param!(arg_bytes(adds, adds_len))?;
        let removes = param!(arg_bytes(removes, removes_len))?;
        let options = options(0, max_member_len)?;
        let set = paired::decode_paired(adds, removes, &options)?;
        *set_out = hand_out_set(set, options.max_member_len);
        Ok(())
    })
}
