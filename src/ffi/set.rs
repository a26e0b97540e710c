//! The set codec's C ABI (`ketama_set_*`), a thin layer over
//! [`crate::setcodec`]. Conventions as in the rest of the modern API:
//! status returns, outputs written only on success (the one exception is
//! the optional `ketama_set_error` out-parameter, filled on a decode
//! failure), every pointer checked, every allocation with a `*_free` that
//! accepts NULL. Decoded sets are immutable and may be shared by threads.
//! A NULL set handle where a set is read means "missing key" (empty set).

use std::ffi::c_char;

use super::boundary::{arg_bytes, arg_out, arg_ref, arg_slice, guard_status, guard_value};
use super::ring::{ketama_ring, ketama_server_ref, ring_ref, server_ref};
use super::status::ketama_status;
use crate::Error;
use crate::setcodec::recipe::{self, Reply, WriteAction, WriteOutcome, Writer};
use crate::setcodec::shard::{self, ShardLayout};
use crate::setcodec::{
    self, CompactionPolicy, DEFAULT_MAX_MEMBER_LEN, DecodeOptions, DecodedSet, Format, MemberSet,
    Op, SetError, SetErrorKind, SetStats, ops,
};

/// The status a set-codec error maps to.
pub(crate) fn status_of(error: &SetError) -> ketama_status {
    match error.kind {
        SetErrorKind::SetFull => ketama_status::KETAMA_ERR_SET_FULL,
        SetErrorKind::Contended => ketama_status::KETAMA_ERR_SET_CONTENDED,
        SetErrorKind::InvalidArgument => ketama_status::KETAMA_ERR_INVALID_ARGUMENT,
        _ if error.in_member => ketama_status::KETAMA_ERR_SET_MEMBER,
        _ => ketama_status::KETAMA_ERR_SET_DECODE,
    }
}

/// A decoded set (or the result of set algebra). Opaque and immutable;
/// release it with `ketama_set_free`.
pub struct ketama_set {
    _private: [u8; 0],
}

struct SetHandle {
    set: DecodedSet,
    max_member_len: usize,
}

/// Value encodings (pass as `uint32_t`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ketama_set_encoding {
    /// Detect T1 or B1 from the bytes (decode only).
    KETAMA_SET_ENCODING_AUTO = 0,
    /// Text records `+m ` / `-m `.
    KETAMA_SET_ENCODING_T1 = 1,
    /// Binary records (0xA1/0xA2, LEB128 length, bytes).
    KETAMA_SET_ENCODING_B1 = 2,
    /// Membase comma list (read only).
    KETAMA_SET_ENCODING_MEMBASE_COMMA = 3,
    /// Membase `|` tombstone list (read only, counted).
    KETAMA_SET_ENCODING_MEMBASE_TOMBSTONE = 4,
    /// Membase `+1234+222-222` list (read only, counted).
    KETAMA_SET_ENCODING_MEMBASE_PLUSMINUS = 5,
}

/// Record operations (pass as `uint32_t`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ketama_set_op {
    /// Add members.
    KETAMA_SET_ADD = 0,
    /// Remove members.
    KETAMA_SET_REMOVE = 1,
}

/// Server replies fed to `ketama_set_writer_step` (pass as `uint32_t`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ketama_set_reply {
    /// STORED / HD.
    KETAMA_SET_REPLY_STORED = 0,
    /// NOT_STORED / NS.
    KETAMA_SET_REPLY_NOT_STORED = 1,
    /// EXISTS / EX; for a probe: the key is present.
    KETAMA_SET_REPLY_EXISTS = 2,
    /// NOT_FOUND / NF / EN; for a probe: the key is missing.
    KETAMA_SET_REPLY_NOT_FOUND = 3,
    /// SERVER_ERROR object too large for cache.
    KETAMA_SET_REPLY_TOO_LARGE = 4,
}

/// What the client must do next in a write.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ketama_set_action {
    /// APPEND the payload.
    KETAMA_SET_DO_APPEND = 1,
    /// ADD the payload (with the set's flags and TTL).
    KETAMA_SET_DO_ADD = 2,
    /// Probe whether the key exists; reply EXISTS or NOT_FOUND.
    KETAMA_SET_DO_PROBE = 3,
    /// Done: the payload was appended.
    KETAMA_SET_DONE_APPENDED = 4,
    /// Done: the set was created with the payload.
    KETAMA_SET_DONE_CREATED = 5,
    /// Done: a remove on a missing set, nothing to do.
    KETAMA_SET_DONE_NOTHING_TO_REMOVE = 6,
}

/// Set error kinds as found in `ketama_set_error.kind` (ids of
/// `SetErrorKind`; name them with `ketama_set_error_kind_name`).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ketama_set_error_kind {
    /// No error.
    KETAMA_SET_ERROR_NONE = 0,
    /// `EmptyMember`.
    KETAMA_SET_ERROR_EMPTY_MEMBER = 1,
    /// `BadOp`.
    KETAMA_SET_ERROR_BAD_OP = 2,
    /// `InvalidByte`.
    KETAMA_SET_ERROR_INVALID_BYTE = 3,
    /// `MemberHasWhitespace`.
    KETAMA_SET_ERROR_MEMBER_HAS_WHITESPACE = 4,
    /// `MemberTooLong`.
    KETAMA_SET_ERROR_MEMBER_TOO_LONG = 5,
    /// `Truncated`.
    KETAMA_SET_ERROR_TRUNCATED = 6,
    /// `OverlongLength`.
    KETAMA_SET_ERROR_OVERLONG_LENGTH = 7,
    /// `LengthTooLarge`.
    KETAMA_SET_ERROR_LENGTH_TOO_LARGE = 8,
    /// `UnsupportedOp`.
    KETAMA_SET_ERROR_UNSUPPORTED_OP = 9,
    /// `MixedEncoding`.
    KETAMA_SET_ERROR_MIXED_ENCODING = 10,
    /// `UnknownEncoding`.
    KETAMA_SET_ERROR_UNKNOWN_ENCODING = 11,
    /// `BadListEntry`.
    KETAMA_SET_ERROR_BAD_LIST_ENTRY = 12,
    /// `ValueTooLarge`.
    KETAMA_SET_ERROR_VALUE_TOO_LARGE = 13,
    /// `InvalidArgument`.
    KETAMA_SET_ERROR_INVALID_ARGUMENT = 14,
    /// `SetFull`.
    KETAMA_SET_ERROR_SET_FULL = 15,
    /// `Contended`.
    KETAMA_SET_ERROR_CONTENDED = 16,
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

/// Compaction policy: compact when `redundant > threshold` (in ratio mode
/// `max(threshold, members)`), or when the value is over `soft_limit` bytes
/// and holds any redundant record. Defaults: 100, 523776, false.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ketama_set_policy {
    /// Redundant records tolerated.
    pub threshold: usize,
    /// Size above which any redundancy triggers compaction.
    pub soft_limit: usize,
    /// Use max(threshold, members) as the threshold.
    pub ratio: bool,
}

/// The compaction write a read asks for: when `needed`, store `value` with
/// `ms <key> <len> C<cas> T<exptime>` (or classic `cas`), ignoring EXISTS /
/// NOT_FOUND. `exptime_known` is false when the remaining TTL was not given.
#[repr(C)]
pub struct ketama_set_compaction {
    /// Whether to write.
    pub needed: bool,
    /// The canonical value (release with `ketama_set_buffer_free`).
    pub value: ketama_set_buffer,
    /// CAS of the value that was read.
    pub cas: u64,
    /// Exptime to write: the remaining TTL, 0 = never expires.
    pub exptime: u32,
    /// Whether `exptime` comes from a known remaining TTL.
    pub exptime_known: bool,
}

/// The write state machine (opaque); see `ketama_set_writer_new`.
pub struct ketama_set_writer {
    _private: [u8; 0],
}

fn format_from_u32(id: u32, allow_auto: bool) -> Result<Option<Format>, Error> {
    match id {
        0 if allow_auto => Ok(None),
        1..=5 => Ok(Some(Format::ALL[id as usize - 1])),
        _ => Err(Error::InvalidArgument(format!(
            "unknown set encoding id {id}"
        ))),
    }
}

fn writable_format(id: u32) -> Result<Format, Error> {
    match format_from_u32(id, false)? {
        Some(format) if format.writable() => Ok(format),
        _ => Err(Error::InvalidArgument(format!(
            "set encoding id {id} cannot be written (use T1 or B1)"
        ))),
    }
}

fn format_id(format: Option<Format>) -> u32 {
    format
        .and_then(|f| Format::ALL.iter().position(|x| *x == f))
        .map_or(0, |i| i as u32 + 1)
}

fn op_from_u32(id: u32) -> Result<Op, Error> {
    match id {
        0 => Ok(Op::Add),
        1 => Ok(Op::Remove),
        _ => Err(Error::InvalidArgument(format!("unknown set op id {id}"))),
    }
}

fn options(encoding: u32, max_member_len: usize) -> Result<DecodeOptions, Error> {
    Ok(DecodeOptions {
        format: format_from_u32(encoding, true)?,
        max_member_len: if max_member_len == 0 {
            DEFAULT_MAX_MEMBER_LEN
        } else {
            max_member_len
        },
    })
}

fn hand_out_set(set: DecodedSet, max_member_len: usize) -> *mut ketama_set {
    Box::into_raw(Box::new(SetHandle {
        set,
        max_member_len,
    }))
    .cast()
}

fn hand_out_members(members: MemberSet, max_member_len: usize) -> *mut ketama_set {
    let n = members.len();
    let stats = SetStats {
        records: n,
        ..SetStats::default()
    };
    hand_out_set(DecodedSet { members, stats }, max_member_len)
}

fn buffer(bytes: Vec<u8>) -> ketama_set_buffer {
    if bytes.is_empty() {
        return ketama_set_buffer {
            data: std::ptr::null_mut(),
            len: 0,
        };
    }
    let boxed = bytes.into_boxed_slice();
    let len = boxed.len();
    ketama_set_buffer {
        data: Box::into_raw(boxed).cast(),
        len,
    }
}

fn error_info(error: &SetError) -> ketama_set_error {
    ketama_set_error {
        kind: error.kind.id(),
        offset: error.offset,
        record: error.record,
    }
}

/// # Safety
/// `set` is NULL or a live handle.
unsafe fn set_ref<'a>(set: *const ketama_set) -> Result<&'a SetHandle, Error> {
    // SAFETY: live handles are Box<SetHandle> pointers.
    unsafe { arg_ref(set.cast::<SetHandle>(), "set") }
}

/// Reads an array of set handles; NULL entries are missing keys (empty sets).
///
/// # Safety
/// `sets` points to `count` entries, each NULL or a live handle.
unsafe fn set_list<'a>(
    sets: *const *const ketama_set,
    count: usize,
) -> Result<(Vec<&'a MemberSet>, usize), Error> {
    static EMPTY: std::sync::OnceLock<MemberSet> = std::sync::OnceLock::new();
    let empty = EMPTY.get_or_init(MemberSet::new);
    // SAFETY: per the caller.
    let handles = unsafe { arg_slice(sets, count, "sets") }?;
    let mut max = DEFAULT_MAX_MEMBER_LEN;
    let list = handles
        .iter()
        .map(|&h| {
            // SAFETY: each entry is NULL or a live handle.
            match unsafe { h.cast::<SetHandle>().as_ref() } {
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
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(set_out, "set_out") }?;
        let value = unsafe { arg_bytes(value, value_len, "value") }?;
        let options = options(encoding, max_member_len)?;
        match setcodec::decode(value, &options) {
            Ok(set) => {
                *out = hand_out_set(set, options.max_member_len);
                Ok(())
            }
            Err(error) => {
                // SAFETY: NULL or writable per the contract.
                if let Some(slot) = unsafe { error_out.as_mut() } {
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
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(set_out, "set_out") }?;
        let error_slot = unsafe { arg_out(error_out, "error_out") }?;
        let value = unsafe { arg_bytes(value, value_len, "value") }?;
        let options = options(encoding, max_member_len)?;
        let salvaged = setcodec::decode_salvage(value, &options);
        *error_slot = salvaged.error.as_ref().map(error_info).unwrap_or_default();
        *out = hand_out_set(salvaged.set, options.max_member_len);
        Ok(())
    })
}

/// Releases a set. NULL is ignored.
///
/// # Safety
/// `set` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_free(set: *mut ketama_set) {
    guard_value((), || {
        if !set.is_null() {
            // SAFETY: a live handle is a Box<SetHandle>, released once.
            drop(unsafe { Box::from_raw(set.cast::<SetHandle>()) });
        }
    })
}

/// Releases a buffer handed out by the library. A NULL `data` is ignored.
///
/// # Safety
/// `buffer` is `{NULL, 0}` or was returned by this library and not yet freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_buffer_free(buffer: ketama_set_buffer) {
    guard_value((), || {
        if !buffer.data.is_null() {
            // SAFETY: the buffer was made by `buffer()` from a boxed slice of `len` bytes.
            drop(unsafe {
                Box::from_raw(std::ptr::slice_from_raw_parts_mut(buffer.data, buffer.len))
            });
        }
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
        // SAFETY: per the contract above.
        let handle = unsafe { set_ref(set) }?;
        let out = unsafe { arg_out(out, "out") }?;
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
    // SAFETY: per the contract above.
    guard_value(0, || {
        unsafe { set_ref(set) }.map_or(0, |h| h.set.members.len())
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
        // SAFETY: per the contract above.
        let handle = unsafe { set_ref(set) }?;
        let data_out = unsafe { arg_out(data_out, "data_out") }?;
        let len_out = unsafe { arg_out(len_out, "len_out") }?;
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
        // SAFETY: per the contract above.
        let member = unsafe { arg_bytes(member, member_len, "member") }?;
        let out = unsafe { arg_out(out, "out") }?;
        // SAFETY: NULL or a live handle.
        *out = unsafe { set.cast::<SetHandle>().as_ref() }
            .is_some_and(|h| h.set.members.contains(member));
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
        // SAFETY: per the contract above.
        let entries = unsafe { arg_slice(members, count, "members") }?;
        let out = unsafe { arg_slice_mut(out, count, "out") }?;
        let members = entries
            .iter()
            // SAFETY: each entry is valid for its length.
            .map(|m| unsafe { arg_bytes(m.data, m.len, "members[].data") })
            .collect::<Result<Vec<&[u8]>, Error>>()?;
        let empty = MemberSet::new();
        // SAFETY: NULL or a live handle.
        let set = unsafe { set.cast::<SetHandle>().as_ref() }.map_or(&empty, |h| &h.set.members);
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
        // SAFETY: per the contract above.
        let value = unsafe { arg_bytes(value, value_len, "value") }?;
        let out = unsafe { arg_out(out, "out") }?;
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
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        let entries = unsafe { arg_slice(members, count, "members") }?;
        let members = entries
            .iter()
            // SAFETY: each entry is valid for its length.
            .map(|m| unsafe { arg_bytes(m.data, m.len, "members[].data") })
            .collect::<Result<Vec<&[u8]>, Error>>()?;
        let options = options(0, max_member_len)?;
        let payload = setcodec::encode(
            op_from_u32(op)?,
            &members,
            writable_format(encoding)?,
            options.max_member_len,
        )?;
        *out = buffer(payload);
        Ok(())
    })
}

fn policy_from(policy: Option<&ketama_set_policy>) -> CompactionPolicy {
    policy.map_or_else(CompactionPolicy::default, |p| CompactionPolicy {
        threshold: p.threshold,
        soft_limit: p.soft_limit,
        ratio: p.ratio,
    })
}

/// Whether a decoded set should be compacted (`policy` NULL = defaults).
///
/// # Safety
/// `set` is live; `policy` is NULL or valid; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_should_compact(
    set: *const ketama_set,
    policy: *const ketama_set_policy,
    force: bool,
    out: *mut bool,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let handle = unsafe { set_ref(set) }?;
        let out = unsafe { arg_out(out, "out") }?;
        let policy = policy_from(unsafe { policy.as_ref() });
        *out =
            setcodec::should_compact(&handle.set.stats, handle.set.members.len(), &policy, force);
        Ok(())
    })
}

/// The canonical encoding of a set in `encoding` (T1 or B1): add records in
/// bytewise order, empty for an empty set. Also the *STORE value.
///
/// # Safety
/// `set` is live; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_compacted(
    set: *const ketama_set,
    encoding: u32,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let handle = unsafe { set_ref(set) }?;
        let out = unsafe { arg_out(out, "out") }?;
        *out = buffer(setcodec::compacted(
            &handle.set.members,
            writable_format(encoding)?,
            handle.max_member_len,
        )?);
        Ok(())
    })
}

/// The read step of the recipe: decodes `value` strictly into `*set_out`
/// and fills `*compaction_out` (`needed` false when no write is due).
/// `remaining_ttl` is what `mg <key> t` returned (-1 = never expires);
/// pass `ttl_known` false when unknown. A value that fails to decode is
/// never compacted.
///
/// # Safety
/// `value` is valid for `value_len` bytes; `policy` NULL or valid; the outs writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_plan_read(
    value: *const u8,
    value_len: usize,
    encoding: u32,
    cas: u64,
    remaining_ttl: i64,
    ttl_known: bool,
    policy: *const ketama_set_policy,
    force: bool,
    set_out: *mut *mut ketama_set,
    compaction_out: *mut ketama_set_compaction,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let set_out = unsafe { arg_out(set_out, "set_out") }?;
        let compaction_out = unsafe { arg_out(compaction_out, "compaction_out") }?;
        let value = unsafe { arg_bytes(value, value_len, "value") }?;
        let policy = policy_from(unsafe { policy.as_ref() });
        let options = options(encoding, 0)?;
        let plan = recipe::plan_read(
            value,
            cas,
            ttl_known.then_some(remaining_ttl),
            &options,
            &policy,
            force,
        )?;
        *compaction_out = match plan.compaction {
            Some(write) => ketama_set_compaction {
                needed: true,
                value: buffer(write.value),
                cas: write.cas,
                exptime: write.exptime.unwrap_or(0),
                exptime_known: write.exptime.is_some(),
            },
            None => ketama_set_compaction {
                needed: false,
                value: buffer(Vec::new()),
                cas,
                exptime: 0,
                exptime_known: false,
            },
        };
        *set_out = hand_out_set(plan.set, options.max_member_len);
        Ok(())
    })
}

/// SUNION of `count` sets (NULL entries are missing keys) into a new set.
///
/// # Safety
/// `sets` points to `count` entries, each NULL or live; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_union(
    sets: *const *const ketama_set,
    count: usize,
    out: *mut *mut ketama_set,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        let (list, max) = unsafe { set_list(sets, count) }?;
        if list.is_empty() {
            return Err(Error::InvalidArgument(
                "numkeys should be greater than 0".into(),
            ));
        }
        *out = hand_out_members(ops::union(&list), max);
        Ok(())
    })
}

/// SINTER of `count` sets (smallest first, galloping on skewed sizes).
///
/// # Safety
/// As `ketama_set_union`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_inter(
    sets: *const *const ketama_set,
    count: usize,
    out: *mut *mut ketama_set,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        let (list, max) = unsafe { set_list(sets, count) }?;
        *out = hand_out_members(ops::inter(&list)?, max);
        Ok(())
    })
}

/// SDIFF: members of the first set in none of the others.
///
/// # Safety
/// As `ketama_set_union`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_diff(
    sets: *const *const ketama_set,
    count: usize,
    out: *mut *mut ketama_set,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        let (list, max) = unsafe { set_list(sets, count) }?;
        *out = hand_out_members(ops::diff(&list)?, max);
        Ok(())
    })
}

/// SINTERCARD with LIMIT (`limit` 0 = unlimited, negative = error).
///
/// # Safety
/// `sets` as in `ketama_set_union`; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_intercard(
    sets: *const *const ketama_set,
    count: usize,
    limit: i64,
    out: *mut usize,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        let (list, _) = unsafe { set_list(sets, count) }?;
        *out = ops::intercard(&list, limit)?;
        Ok(())
    })
}

fn too_small(capacity: usize, needed: usize) -> Error {
    Error::InvalidArgument(format!(
        "indices_out holds {capacity} entries but {needed} are needed"
    ))
}

fn write_indices(
    chosen: &[usize],
    indices_out: &mut [usize],
    len_out: &mut usize,
) -> Result<(), Error> {
    let capacity = indices_out.len();
    let target = indices_out
        .get_mut(..chosen.len())
        .ok_or_else(|| too_small(capacity, chosen.len()))?;
    target.copy_from_slice(chosen);
    *len_out = chosen.len();
    Ok(())
}

/// SRANDMEMBER: writes indices of random members (read them with
/// `ketama_set_member`) chosen from `seed`. With `has_count` false: one
/// member (none for an empty set). `count >= 0`: min(count, card) distinct
/// members; `count < 0`: |count| members with repeats. `capacity` must hold
/// that many.
///
/// # Safety
/// `set` is NULL or live; `indices_out` is writable for `capacity` entries; `len_out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_srandmember(
    set: *const ketama_set,
    count: i64,
    has_count: bool,
    seed: u64,
    indices_out: *mut usize,
    capacity: usize,
    len_out: *mut usize,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let len_out = unsafe { arg_out(len_out, "len_out") }?;
        let indices = unsafe { arg_slice_mut(indices_out, capacity, "indices_out") }?;
        let empty = MemberSet::new();
        // SAFETY: NULL or a live handle.
        let members =
            unsafe { set.cast::<SetHandle>().as_ref() }.map_or(&empty, |h| &h.set.members);
        // A negative count asks for |count| members with repeats: refuse a
        // too-small output before building the answer.
        let repeats = count.unsigned_abs();
        if has_count
            && count < 0
            && !members.is_empty()
            && repeats <= ops::MAX_RANDOM_COUNT
            && repeats > capacity as u64
        {
            return Err(too_small(capacity, repeats as usize));
        }
        let chosen = ops::srandmember(members, has_count.then_some(count), seed)?;
        write_indices(&chosen, indices, len_out)
    })
}

/// SPOP: chooses members like SRANDMEMBER (a negative count is an error),
/// writes their indices and the payload removing them, to append under the
/// CAS of the read (`ms <key> <len> MA C<cas>`), retrying on EXISTS.
///
/// # Safety
/// As `ketama_set_srandmember`; `payload_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_spop(
    set: *const ketama_set,
    count: i64,
    has_count: bool,
    seed: u64,
    encoding: u32,
    indices_out: *mut usize,
    capacity: usize,
    len_out: *mut usize,
    payload_out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let len_out = unsafe { arg_out(len_out, "len_out") }?;
        let payload_out = unsafe { arg_out(payload_out, "payload_out") }?;
        let indices = unsafe { arg_slice_mut(indices_out, capacity, "indices_out") }?;
        let empty = SetHandle {
            set: DecodedSet::empty(),
            max_member_len: DEFAULT_MAX_MEMBER_LEN,
        };
        // SAFETY: NULL or a live handle.
        let handle = unsafe { set.cast::<SetHandle>().as_ref() }.unwrap_or(&empty);
        let chosen = ops::spop(&handle.set.members, has_count.then_some(count), seed)?;
        let payload = ops::remove_payload(
            &handle.set.members,
            &chosen,
            writable_format(encoding)?,
            handle.max_member_len,
        )?;
        write_indices(&chosen, indices, len_out)?;
        *payload_out = buffer(payload);
        Ok(())
    })
}

/// SMOVE: `*moved_out` is the reply. When a member moves, `*add_out`
/// (append to the destination first) and `*remove_out` (then to the
/// source) receive the payloads; otherwise they are `{NULL, 0}`.
/// `same_key` is true when source and destination are one key.
///
/// # Safety
/// `source` NULL or live; `member` valid for `member_len`; outs writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_smove(
    source: *const ketama_set,
    member: *const u8,
    member_len: usize,
    same_key: bool,
    encoding: u32,
    moved_out: *mut bool,
    add_out: *mut ketama_set_buffer,
    remove_out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let member = unsafe { arg_bytes(member, member_len, "member") }?;
        let moved_out = unsafe { arg_out(moved_out, "moved_out") }?;
        let add_out = unsafe { arg_out(add_out, "add_out") }?;
        let remove_out = unsafe { arg_out(remove_out, "remove_out") }?;
        let empty = SetHandle {
            set: DecodedSet::empty(),
            max_member_len: DEFAULT_MAX_MEMBER_LEN,
        };
        // SAFETY: NULL or a live handle.
        let handle = unsafe { source.cast::<SetHandle>().as_ref() }.unwrap_or(&empty);
        let plan = ops::smove(
            &handle.set.members,
            member,
            same_key,
            writable_format(encoding)?,
            handle.max_member_len,
        )?;
        *moved_out = plan.moved;
        *add_out = buffer(plan.add_to_destination.unwrap_or_default());
        *remove_out = buffer(plan.remove_from_source.unwrap_or_default());
        Ok(())
    })
}

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

/// The shard of `member` among `shard_count` shards: FNV-1a 64 of the
/// member's bytes modulo `shard_count`.
///
/// # Safety
/// `member` is valid for `member_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_of(
    member: *const u8,
    member_len: usize,
    shard_count: u32,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let member = unsafe { arg_bytes(member, member_len, "member") }?;
        let out = unsafe { arg_out(out, "out") }?;
        if shard_count == 0 {
            return Err(Error::InvalidArgument(
                "shard_count must be at least 1".into(),
            ));
        }
        *out = shard::shard_of(member, shard_count);
        Ok(())
    })
}

fn layout(base: *const u8, base_len: usize, shard_count: u32) -> Result<ShardLayout, Error> {
    // SAFETY: the exported callers pass their caller's pointer and length.
    let base = unsafe { arg_bytes(base, base_len, "base") }?;
    Ok(ShardLayout::new(base, shard_count)?)
}

/// The key of shard `shard`: `<base>.<shard>`, checked against memcached's
/// 250-byte key limit for the largest shard number.
///
/// # Safety
/// `base` is valid for `base_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_key(
    base: *const u8,
    base_len: usize,
    shard_count: u32,
    shard: u32,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        *out = buffer(layout(base, base_len, shard_count)?.shard_key(shard)?);
        Ok(())
    })
}

/// The server holding shard `shard` of the set `base` on `ring`.
///
/// # Safety
/// `ring` is live; `base` is valid for `base_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_server(
    ring: *const ketama_ring,
    base: *const u8,
    base_len: usize,
    shard_count: u32,
    shard: u32,
    out: *mut ketama_server_ref,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let ring = unsafe { ring_ref(ring) }?;
        let out = unsafe { arg_out(out, "out") }?;
        let key = layout(base, base_len, shard_count)?.shard_key(shard)?;
        let at = ring.locate(&key).ok_or_else(|| {
            Error::NoServerAvailable("the ring has no points: no server can take a key".into())
        })?;
        *out = server_ref(ring, at);
        Ok(())
    })
}

/// The index item's value for `shard_count` shards (the T1 set of shard
/// ids), to create with ADD under `<base>`.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_index_value(
    shard_count: u32,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        *out = buffer(ShardLayout::new(b"index", shard_count)?.index_value());
        Ok(())
    })
}

/// Reads the shard count from an index item's value (its members must be
/// exactly the ids 0..N-1).
///
/// # Safety
/// `base` and `value` are valid for their lengths; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_count_from_index(
    base: *const u8,
    base_len: usize,
    value: *const u8,
    value_len: usize,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let base = unsafe { arg_bytes(base, base_len, "base") }?;
        let value = unsafe { arg_bytes(value, value_len, "value") }?;
        let out = unsafe { arg_out(out, "out") }?;
        *out = ShardLayout::from_index(base, value)?.count();
        Ok(())
    })
}

fn action_id(action: WriteAction) -> ketama_set_action {
    match action {
        WriteAction::Append => ketama_set_action::KETAMA_SET_DO_APPEND,
        WriteAction::Add => ketama_set_action::KETAMA_SET_DO_ADD,
        WriteAction::Probe => ketama_set_action::KETAMA_SET_DO_PROBE,
        WriteAction::Done(WriteOutcome::Appended) => ketama_set_action::KETAMA_SET_DONE_APPENDED,
        WriteAction::Done(WriteOutcome::Created) => ketama_set_action::KETAMA_SET_DONE_CREATED,
        WriteAction::Done(WriteOutcome::NothingToRemove) => {
            ketama_set_action::KETAMA_SET_DONE_NOTHING_TO_REMOVE
        }
    }
}

/// Starts the write recipe for one payload of `op` records: `*action_out`
/// receives the first action (always APPEND). Feed each server reply to
/// `ketama_set_writer_step`; release with `ketama_set_writer_free`.
/// `max_retries` bounds the append/add rounds (0 means 3).
///
/// # Safety
/// `writer_out` and `action_out` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_writer_new(
    op: u32,
    max_retries: u32,
    writer_out: *mut *mut ketama_set_writer,
    action_out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let writer_out = unsafe { arg_out(writer_out, "writer_out") }?;
        let action_out = unsafe { arg_out(action_out, "action_out") }?;
        let retries = if max_retries == 0 {
            recipe::DEFAULT_MAX_RETRIES
        } else {
            max_retries
        };
        let writer = Writer::new(op_from_u32(op)?, retries);
        *action_out = action_id(writer.first()) as u32;
        *writer_out = Box::into_raw(Box::new(writer)).cast();
        Ok(())
    })
}

/// Advances the write recipe with the server's reply (`ketama_set_reply`)
/// to the last action; `*action_out` receives the next action (a DONE_*
/// value when finished). Fails with `KETAMA_ERR_SET_FULL` (the key exists
/// but cannot grow: compact or shard) or `KETAMA_ERR_SET_CONTENDED`.
///
/// # Safety
/// `writer` is live; `action_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_writer_step(
    writer: *mut ketama_set_writer,
    reply: u32,
    action_out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let writer = unsafe { arg_out(writer.cast::<Writer>(), "writer") }?;
        let action_out = unsafe { arg_out(action_out, "action_out") }?;
        let reply = match reply {
            0 => Reply::Stored,
            1 => Reply::NotStored,
            2 => Reply::Exists,
            3 => Reply::NotFound,
            4 => Reply::TooLarge,
            other => return Err(Error::InvalidArgument(format!("unknown reply id {other}"))),
        };
        *action_out = action_id(writer.on_reply(reply)?) as u32;
        Ok(())
    })
}

/// Releases a writer. NULL is ignored.
///
/// # Safety
/// `writer` is NULL or live, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_writer_free(writer: *mut ketama_set_writer) {
    guard_value((), || {
        if !writer.is_null() {
            // SAFETY: a live writer is a Box<Writer>, released once.
            drop(unsafe { Box::from_raw(writer.cast::<Writer>()) });
        }
    })
}

/// The name of a `ketama_set_error` kind id (`"Truncated"`), `"None"` for 0,
/// `"Unknown"` for other values. Static string.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_set_error_kind_name(kind: u32) -> *const c_char {
    guard_value(c"Unknown".as_ptr(), || match kind {
        0 => c"None".as_ptr(),
        _ => SetErrorKind::ALL
            .get(kind as usize - 1)
            .map_or(c"Unknown".as_ptr(), |k| k.c_name().as_ptr()),
    })
}

/// Borrows `len` writable elements at `ptr`; NULL is accepted only when `len` is 0.
///
/// # Safety
/// `ptr` is NULL or valid for `len` elements of writes.
unsafe fn arg_slice_mut<'a, T>(
    ptr: *mut T,
    len: usize,
    name: &'static str,
) -> Result<&'a mut [T], Error> {
    if ptr.is_null() {
        return if len == 0 {
            Ok(&mut [])
        } else {
            Err(Error::NullArgument(name))
        };
    }
    // SAFETY: non-NULL and valid for `len` writes per the caller.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr, len) })
}
