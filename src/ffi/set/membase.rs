//! The Membase list formats: conversion to T1/B1.

use super::*;
use crate::ffi::boundary::{arg_bytes, arg_out, guard_status};
use crate::ffi::status::ketama_status;
use crate::setcodec;

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
        // SAFETY: per the contract above.
        let value = unsafe { arg_bytes(value, value_len, "value") }?;
        let out = unsafe { arg_out(out, "out") }?;
        *out = buffer(setcodec::convert(
            value,
            &options(from, max_member_len)?,
            writable_format(to)?,
        )?);
        Ok(())
    })
}
