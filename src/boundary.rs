//! The panic boundary and the argument checks shared by every export.

use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::status::{ketama_status, set_last_error};
use ketama_core::Error;

/// Runs a status-returning body: `Ok` → `KETAMA_OK`; an error → its status,
/// with the message recorded for `ketama_error()`; a panic →
/// `KETAMA_ERR_PANIC`. Nothing unwinds into C.
pub(crate) fn guard_status(body: impl FnOnce() -> Result<(), Error>) -> ketama_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => ketama_status::KETAMA_OK,
        Ok(Err(error)) => {
            set_last_error(&error.to_string());
            ketama_status::of(&error)
        }
        Err(payload) => {
            record_panic(payload);
            ketama_status::KETAMA_ERR_PANIC
        }
    }
}

/// Runs a body that returns an index, through [`guard_status`]: `Ok(i)` →
/// `i` (never negative); an error or a panic → its status negated, with
/// the message recorded for `ketama_error()`. Nothing unwinds into C.
pub(crate) fn guard_index(body: impl FnOnce() -> Result<u32, Error>) -> i64 {
    let mut index = 0;
    match guard_status(|| {
        index = body()?;
        Ok(())
    }) {
        ketama_status::KETAMA_OK => i64::from(index),
        failed => -(failed as i64),
    }
}

/// Runs a body that returns a plain value; a panic yields `default`.
pub(crate) fn guard_value<T>(default: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(body)).unwrap_or_else(|payload| {
        record_panic(payload);
        default
    })
}

fn record_panic(payload: Box<dyn std::any::Any + Send>) {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    set_last_error(&format!(
        "internal error in libketama (please report): {detail}"
    ));
}

/// Borrows an output slot, or fails naming the NULL argument.
///
/// # Safety
/// `ptr` is NULL or valid for writes for `'a`.
pub(crate) unsafe fn arg_out<'a, T>(ptr: *mut T, name: &'static str) -> Result<&'a mut T, Error> {
    // SAFETY: the caller guarantees validity when non-NULL.
    unsafe { ptr.as_mut() }.ok_or(Error::NullArgument(name))
}

/// Borrows `len` bytes at `ptr`; NULL is accepted only when `len` is 0.
///
/// # Safety
/// `ptr` is NULL or valid for `len` bytes of reads for `'a`.
pub(crate) unsafe fn arg_bytes<'a>(
    ptr: *const u8,
    len: usize,
    name: &'static str,
) -> Result<&'a [u8], Error> {
    // SAFETY: the same contract as arg_slice.
    unsafe { arg_slice(ptr, len, name) }
}

/// Borrows `len` bytes at a `const char *` (keys: any bytes, NUL included,
/// with an explicit length); NULL is accepted only when `len` is 0.
///
/// # Safety
/// `ptr` is NULL or valid for `len` bytes of reads for `'a`.
pub(crate) unsafe fn arg_chars<'a>(
    ptr: *const c_char,
    len: usize,
    name: &'static str,
) -> Result<&'a [u8], Error> {
    // SAFETY: c_char and u8 have the same size and alignment.
    unsafe { arg_bytes(ptr.cast(), len, name) }
}

/// Borrows `len` elements at `ptr`; NULL is accepted only when `len` is 0.
///
/// # Safety
/// `ptr` is NULL or valid for `len` elements of reads for `'a`.
pub(crate) unsafe fn arg_slice<'a, T>(
    ptr: *const T,
    len: usize,
    name: &'static str,
) -> Result<&'a [T], Error> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&[])
        } else {
            Err(Error::NullArgument(name))
        };
    }
    // No buffer is larger than isize::MAX bytes: such a length is a caller's
    // mistake (an unsigned -1, say), refused before it reaches the slice.
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Error::InvalidArgument(format!(
            "`{name}`: length {len} is larger than any buffer"
        )));
    }
    // SAFETY: non-NULL, and the caller guarantees `len` readable elements.
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows `len` writable elements at `ptr`; NULL is accepted only when
/// `len` is 0.
///
/// # Safety
/// `ptr` is NULL or valid for `len` elements of writes for `'a`.
pub(crate) unsafe fn arg_slice_mut<'a, T>(
    ptr: *mut T,
    len: usize,
    name: &'static str,
) -> Result<&'a mut [T], Error> {
    // SAFETY: the same contract, read-only view; the checks are shared.
    let checked = unsafe { arg_slice(ptr.cast_const(), len, name) }?;
    if checked.is_empty() {
        return Ok(&mut []);
    }
    // SAFETY: non-NULL, length checked, and valid for `len` writes per the caller.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}

/// Borrows a NUL-terminated string, or fails naming the NULL argument.
///
/// # Safety
/// `ptr` is NULL or a valid NUL-terminated string for `'a`.
pub(crate) unsafe fn arg_cstr<'a>(
    ptr: *const c_char,
    name: &'static str,
) -> Result<&'a CStr, Error> {
    if ptr.is_null() {
        return Err(Error::NullArgument(name));
    }
    // SAFETY: non-NULL and NUL-terminated per the caller.
    Ok(unsafe { CStr::from_ptr(ptr) })
}
