//! The panic boundary and the argument checks of every export: the crate's
//! pointer contract (see the crate documentation) applied in one place.
//!
//! An export reads each pointer parameter with [`param!`]:
//! `param!(arg_out(ring_out))?`, `param!(arg_chars(key, key_len))?`,
//! `param!(handle_ref(ring))?` (handles: [`crate::handle`]). The macro names
//! the parameter in errors and carries the one SAFETY argument that the
//! contract gives for every parameter; what a helper checks (NULL, lengths,
//! UTF-8) is in its own documentation. A pointer that is not a parameter (an
//! array entry, a struct field, a record of a continuum) is read with the
//! helper itself, the call saying what makes it valid.

use std::ffi::{CStr, c_char};
use std::panic::{AssertUnwindSafe, catch_unwind};

use super::status::{ketama_status, set_last_error};
use ketama_core::Error;

/// Reads a pointer parameter of the export it appears in with an argument
/// helper of this module or of [`crate::handle`], which receives the
/// parameter (and its length parameter) and the parameter's name.
///
/// Only for the function's own parameters, which the crate's pointer
/// contract covers (a closure inside the export may use them); never for a
/// pointer derived from one.
macro_rules! param {
    ($helper:ident($ptr:ident $(, $len:ident)?)) => {
        // SAFETY: `$ptr` is a parameter of the exported function this
        // expands in: the crate's pointer contract makes it NULL or valid,
        // for the whole call, for what its type and its length parameter
        // say, which is what `$helper` requires; `$helper` checks the rest.
        unsafe { $helper($ptr, $($len,)? stringify!($ptr)) }
    };
}
pub(crate) use param;

/// Runs a status-returning body: `Ok` → `KETAMA_OK`; an error → its status,
/// with the message recorded for `ketama_error()`; a panic →
/// `KETAMA_ERR_PANIC`. Nothing unwinds into C.
pub(crate) fn guard_status(body: impl FnOnce() -> Result<(), Error>) -> ketama_status {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => ketama_status::KETAMA_OK,
        Ok(Err(error)) => {
            let status = ketama_status::of(&error);
            set_last_error(status, &error.to_string());
            status
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
    set_last_error(
        ketama_status::KETAMA_ERR_PANIC,
        &format!("internal error in libketama (please report): {detail}"),
    );
}

/// Borrows an output slot, or fails naming the NULL argument.
///
/// # Safety
/// `ptr` is NULL or valid for reads and writes of a `T` for `'a`, and no
/// other argument overlaps it.
pub(crate) unsafe fn arg_out<'a, T>(ptr: *mut T, name: &'static str) -> Result<&'a mut T, Error> {
    // SAFETY: NULL or valid and unaliased (the caller's contract).
    unsafe { ptr.as_mut() }.ok_or(Error::NullArgument(name))
}

/// Borrows an optional output slot: NULL is `None` (not asked for).
///
/// # Safety
/// As [`arg_out`].
pub(crate) unsafe fn arg_opt_out<'a, T>(ptr: *mut T, _name: &'static str) -> Option<&'a mut T> {
    // SAFETY: NULL or valid and unaliased (the caller's contract).
    unsafe { ptr.as_mut() }
}

/// Borrows an optional input: NULL is `None` (the documented default).
///
/// # Safety
/// `ptr` is NULL or valid for reads of a `T` for `'a`.
pub(crate) unsafe fn arg_opt_ref<'a, T>(ptr: *const T, _name: &'static str) -> Option<&'a T> {
    // SAFETY: NULL or valid (the caller's contract).
    unsafe { ptr.as_ref() }
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
    // SAFETY: the contract of arg_slice, for bytes.
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
    // SAFETY: c_char and u8 have the same size and alignment; the
    // caller's contract is arg_bytes's.
    unsafe { arg_bytes(ptr.cast(), len, name) }
}

/// Borrows optional bytes: NULL is `None` whatever `len` says (a server's
/// `name`), anything else as [`arg_chars`].
///
/// # Safety
/// As [`arg_chars`].
pub(crate) unsafe fn arg_opt_chars<'a>(
    ptr: *const c_char,
    len: usize,
    name: &'static str,
) -> Result<Option<&'a [u8]>, Error> {
    if ptr.is_null() {
        return Ok(None);
    }
    // SAFETY: non-NULL, valid for `len` bytes (the caller's contract).
    unsafe { arg_chars(ptr, len, name) }.map(Some)
}

/// Borrows `len` elements at `ptr`; NULL is accepted only when `len` is 0,
/// and a length of more than `isize::MAX` bytes (an unsigned -1, say) is
/// refused before anything is read.
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
    if len > isize::MAX as usize / size_of::<T>().max(1) {
        return Err(Error::InvalidArgument(format!(
            "`{name}`: length {len} is larger than any buffer"
        )));
    }
    // SAFETY: non-NULL, `len` in range, and valid for `len` reads (the
    // caller's contract).
    Ok(unsafe { std::slice::from_raw_parts(ptr, len) })
}

/// Borrows `len` writable elements at `ptr`; NULL is accepted only when
/// `len` is 0.
///
/// # Safety
/// `ptr` is NULL or valid for `len` elements of reads and writes for `'a`,
/// and no other argument overlaps them.
pub(crate) unsafe fn arg_slice_mut<'a, T>(
    ptr: *mut T,
    len: usize,
    name: &'static str,
) -> Result<&'a mut [T], Error> {
    // SAFETY: the same pointer read only, for the checks (the caller's
    // contract covers reads).
    let checked = unsafe { arg_slice(ptr.cast_const(), len, name) }?;
    if checked.is_empty() {
        return Ok(&mut []);
    }
    // SAFETY: non-NULL, `len` checked, valid for `len` writes and not
    // overlapped (the caller's contract).
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
    // SAFETY: the caller's contract is arg_opt_cstr's.
    unsafe { arg_opt_cstr(ptr, name) }.ok_or(Error::NullArgument(name))
}

/// Borrows an optional NUL-terminated string: NULL is `None`.
///
/// # Safety
/// As [`arg_cstr`].
pub(crate) unsafe fn arg_opt_cstr<'a>(ptr: *const c_char, _name: &'static str) -> Option<&'a CStr> {
    if ptr.is_null() {
        return None;
    }
    // SAFETY: non-NULL and NUL-terminated (the caller's contract).
    Some(unsafe { CStr::from_ptr(ptr) })
}

/// Borrows an optional NUL-terminated UTF-8 string (`options`): NULL is
/// `None`; text that is not UTF-8 is an error naming the argument and the
/// first bad byte.
///
/// # Safety
/// As [`arg_cstr`].
pub(crate) unsafe fn arg_opt_str<'a>(
    ptr: *const c_char,
    name: &'static str,
) -> Result<Option<&'a str>, Error> {
    // SAFETY: the caller's contract is arg_opt_cstr's.
    let Some(text) = (unsafe { arg_opt_cstr(ptr, name) }) else {
        return Ok(None);
    };
    text.to_str().map(Some).map_err(|e| {
        Error::InvalidArgument(format!(
            "`{name}` is not UTF-8 (byte {} is not)",
            e.valid_up_to()
        ))
    })
}
