//! The set codec's C ABI (`ketama_set_*`), a thin layer over
//! [`ketama_core::setcodec`], split by concept as the codec is:
//!
//! * this module: the set handle, buffers, encodings and error kinds;
//! * [`values`]: decoding, reading members, encoding payloads;
//! * [`writer`]: the write state machine, compaction and the read plan;
//! * [`algebra`]: Redis set operations on decoded sets;
//! * [`shards`]: a set spread over N keys;
//! * [`membase`]: the Membase list formats.
//!
//! Conventions as in the rest of the modern API: status returns, outputs
//! written only on success (the one exception is the optional
//! `ketama_set_error` out-parameter, filled on a decode failure), every
//! pointer checked, every allocation with a `*_free` that accepts NULL.
//! Decoded sets are immutable and may be shared by threads. A NULL set
//! handle where a set is read means "missing key" (empty set).

pub mod algebra;
pub mod membase;
pub mod names;
pub mod shards;
pub mod values;
pub mod writer;

pub use algebra::*;
pub use membase::*;
pub use names::*;
pub use shards::*;
pub use values::*;
pub use writer::*;

use super::boundary::{arg_bytes, arg_slice, guard_value, param};
use crate::handle::{box_out, bytes_free, bytes_out, handle_free, handle_opt};
use ketama_core::Error;
use ketama_core::registry::Named;
use ketama_core::setcodec::{
    DEFAULT_MAX_MEMBER_LEN, DecodeOptions, DecodedSet, Format, MemberSet, SetError,
};

/// A decoded set (or the result of set algebra). Opaque and immutable;
/// release it with `ketama_set_free`.
pub struct ketama_set {
    _private: [u8; 0],
}

/// What a `ketama_set` handle stands for (declared in `handle.rs`).
pub(crate) struct SetHandle {
    pub(super) set: DecodedSet,
    pub(super) max_member_len: usize,
}

/// An owned byte buffer handed out by the library; release it with
/// `ketama_set_buffer_free`. `data` is NULL when `len` is 0.
#[repr(C)]
pub struct ketama_set_buffer {
    /// The bytes.
    pub data: *mut u8,
    /// Number of bytes.
    pub len: usize,
}

/// A member passed in: `len` bytes at `data` (any bytes).
#[repr(C)]
pub struct ketama_set_member_ref {
    /// The bytes (may be NULL when `len` is 0).
    pub data: *const u8,
    /// Number of bytes.
    pub len: usize,
}

/// Where a decode failed: `kind` is a `ketama_set_error_kind` id (0: no
/// error), `offset` the byte offset in the value, `record` the index of the
/// failing record (= records decoded before it).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ketama_set_error {
    /// Error kind id; name it with `ketama_set_error_kind_name`.
    pub kind: u32,
    /// Byte offset in the value.
    pub offset: usize,
    /// Index of the failing record.
    pub record: usize,
}

/// A set encoding id to write: T1 or B1; AUTO (0) and the read-only
/// Membase formats are refused.
pub(super) fn writable_format(id: u32) -> Result<Format, Error> {
    Format::require_writable(Format::with_id_or_extra(id)?)
}

pub(super) fn format_id(format: Option<Format>) -> u32 {
    format.map_or(0, Format::id)
}

pub(super) fn options(encoding: u32, max_member_len: usize) -> Result<DecodeOptions, Error> {
    Ok(DecodeOptions::with_max(
        Format::with_id_or_extra(encoding)?,
        max_member_len,
    ))
}

pub(super) fn hand_out_set(set: DecodedSet, max_member_len: usize) -> *mut ketama_set {
    box_out::<ketama_set>(SetHandle {
        set,
        max_member_len,
    })
}

pub(super) fn hand_out_members(members: MemberSet, max_member_len: usize) -> *mut ketama_set {
    hand_out_set(DecodedSet::from_members(members), max_member_len)
}

pub(super) fn buffer(bytes: Vec<u8>) -> ketama_set_buffer {
    let (data, len) = bytes_out(bytes);
    ketama_set_buffer { data, len }
}

pub(super) fn error_info(error: &SetError) -> ketama_set_error {
    ketama_set_error {
        kind: error.kind.id(),
        offset: error.offset,
        record: error.record,
    }
}

/// Reads an array of set handles; NULL entries are missing keys (empty
/// sets). Returns the sets and the largest `max_member_len` among them.
///
/// # Safety
/// `sets` is NULL or valid for `count` entries, each NULL or a live set.
pub(super) unsafe fn set_list<'a>(
    sets: *const *const ketama_set,
    count: usize,
    name: &'static str,
) -> Result<(Vec<&'a MemberSet>, usize), Error> {
    static EMPTY: std::sync::OnceLock<MemberSet> = std::sync::OnceLock::new();
    let empty = EMPTY.get_or_init(MemberSet::new);
    // SAFETY: `count` entries (the caller's contract).
    let handles = unsafe { arg_slice(sets, count, name) }?;
    let mut max = DEFAULT_MAX_MEMBER_LEN;
    let list = handles
        .iter()
        .map(|&h| {
            // SAFETY: each entry is NULL or a live set (the caller's contract).
            match unsafe { handle_opt(h, name) } {
                None => empty,
                Some(handle) => {
                    max = max.max(handle.max_member_len);
                    &handle.set.members
                }
            }
        })
        .collect();
    Ok((list, max))
}

/// Releases a set. NULL is ignored.
///
/// # Safety
/// `set` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_free(set: *mut ketama_set) {
    guard_value((), || param!(handle_free(set)))
}

/// Releases a buffer handed out by the library. A NULL `data` is ignored.
///
/// # Safety
/// `buffer` is `{NULL, 0}` or was returned by this library and not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_buffer_free(buffer: ketama_set_buffer) {
    guard_value((), || {
        // SAFETY: `buffer` is `{NULL, 0}` or one this library handed out and
        // that is not yet released (the contract of `ketama_set_buffer_free`).
        unsafe { bytes_free(buffer.data, buffer.len) }
    })
}

/// Reads `count` member references.
///
/// # Safety
/// `members` is NULL or valid for `count` entries, each entry's `data`
/// valid for its `len` bytes.
pub(super) unsafe fn member_list<'a>(
    members: *const ketama_set_member_ref,
    count: usize,
    name: &'static str,
) -> Result<Vec<&'a [u8]>, Error> {
    // SAFETY: `count` entries (the caller's contract).
    let entries = unsafe { arg_slice(members, count, name) }?;
    entries
        .iter()
        // SAFETY: each entry's data is valid for its length (the caller's
        // contract).
        .map(|m| unsafe { arg_bytes(m.data, m.len, "members[].data") })
        .collect()
}

/// Whether a set's value started with the `^` seal (a retired list of a
/// flipped pair; its records still count). False for NULL.
///
/// # Safety
/// `set` is NULL or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_is_sealed(set: *const ketama_set) -> bool {
    guard_value(false, || {
        param!(handle_opt(set)).is_some_and(|h| h.set.stats.sealed)
    })
}
