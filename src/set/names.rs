//! Names, ids and lists of the set codec's enums and of the reload policy,
//! answered from their one declaration in the core, as [`crate::names`]
//! does for flavours and hashes.

use std::ffi::c_char;

use crate::boundary::{arg_cstr, arg_out, arg_slice_mut, guard_status, guard_value, param};
use crate::names::{id_of, list_of, name_of};
use crate::status::ketama_status;
use ketama_core::file_ring::ReloadPolicy;
use ketama_core::setcodec::paired::Side;
use ketama_core::setcodec::recipe::{Reply, SetAction};
use ketama_core::setcodec::{Format, Op, SetErrorKind};

/// The name of a set encoding id (`"t1"`, `"b1"`, `"membase-comma"`, ...; `"auto"` for 0), or NULL for an unknown id. Static string.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_set_encoding_name(id: u32) -> *const c_char {
    name_of::<Format>(id)
}

/// Looks a set encoding up by name (any case, `-` and `_` alike) and stores its id
/// in `*out`; an unknown name is `KETAMA_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_encoding_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<Format>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every id of `ketama_set_encoding`: writes at most `capacity` ids to `ids` and
/// returns how many there are (call with NULL and 0 to size the array).
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_encoding_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || {
        list_of::<Format>(param!(arg_slice_mut(ids, capacity)))
    })
}

/// The name of a record operation id (`"add"`, `"remove"`), or NULL for an unknown id. Static string.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_set_op_name(id: u32) -> *const c_char {
    name_of::<Op>(id)
}

/// Looks a record operation up by name (any case, `-` and `_` alike) and stores its id
/// in `*out`; an unknown name is `KETAMA_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_op_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<Op>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every id of `ketama_set_op`: writes at most `capacity` ids to `ids` and
/// returns how many there are (call with NULL and 0 to size the array).
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_op_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || list_of::<Op>(param!(arg_slice_mut(ids, capacity))))
}

/// The name of a set error kind id (`"Truncated"`, ...; `"None"` for 0), `"Unknown"` for other values.
/// Static string.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_set_error_kind_name(id: u32) -> *const c_char {
    let name = name_of::<SetErrorKind>(id);
    if name.is_null() {
        c"Unknown".as_ptr()
    } else {
        name
    }
}

/// Looks a set error kind up by name (any case, `-` and `_` alike) and stores its id
/// in `*out`; an unknown name is `KETAMA_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_error_kind_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<SetErrorKind>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every id of `ketama_set_error_kind`: writes at most `capacity` ids to `ids` and
/// returns how many there are (call with NULL and 0 to size the array).
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_error_kind_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || {
        list_of::<SetErrorKind>(param!(arg_slice_mut(ids, capacity)))
    })
}

/// The name of a server reply for the write recipe id (`"stored"`, `"not-found"`, ...), or NULL for an unknown id. Static string.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_set_reply_name(id: u32) -> *const c_char {
    name_of::<Reply>(id)
}

/// Looks a server reply for the write recipe up by name (any case, `-` and `_` alike) and stores its id
/// in `*out`; an unknown name is `KETAMA_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_reply_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<Reply>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every id of `ketama_set_reply`: writes at most `capacity` ids to `ids` and
/// returns how many there are (call with NULL and 0 to size the array).
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_reply_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || list_of::<Reply>(param!(arg_slice_mut(ids, capacity))))
}

/// The name of a write recipe action id (`"append"`, `"probe"`, `"created"`, ...), or NULL for an unknown id. Static string.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_set_action_name(id: u32) -> *const c_char {
    name_of::<SetAction>(id)
}

/// Looks a write recipe action up by name (any case, `-` and `_` alike) and stores its id
/// in `*out`; an unknown name is `KETAMA_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_action_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<SetAction>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every id of `ketama_set_action`: writes at most `capacity` ids to `ids` and
/// returns how many there are (call with NULL and 0 to size the array).
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_action_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || {
        list_of::<SetAction>(param!(arg_slice_mut(ids, capacity)))
    })
}

/// The name of a side of a paired list id (`"add"`, `"remove"`), or NULL for an unknown id. Static string.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_set_side_name(id: u32) -> *const c_char {
    name_of::<Side>(id)
}

/// Looks a side of a paired list up by name (any case, `-` and `_` alike) and stores its id
/// in `*out`; an unknown name is `KETAMA_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_side_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<Side>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every id of `ketama_set_side`: writes at most `capacity` ids to `ids` and
/// returns how many there are (call with NULL and 0 to size the array).
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_side_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || list_of::<Side>(param!(arg_slice_mut(ids, capacity))))
}

/// The name of a reload policy id (`"keep-last-good"`, `"strict"`), or NULL for an unknown id. Static string.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_reload_policy_name(id: u32) -> *const c_char {
    name_of::<ReloadPolicy>(id)
}

/// Looks a reload policy up by name (any case, `-` and `_` alike) and stores its id
/// in `*out`; an unknown name is `KETAMA_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_reload_policy_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<ReloadPolicy>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every id of `ketama_reload_policy`: writes at most `capacity` ids to `ids` and
/// returns how many there are (call with NULL and 0 to size the array).
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_reload_policy_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || {
        list_of::<ReloadPolicy>(param!(arg_slice_mut(ids, capacity)))
    })
}
