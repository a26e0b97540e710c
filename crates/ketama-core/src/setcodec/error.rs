//! The set codec's typed error: what went wrong, at which byte, in which record.

use std::fmt;

crate::named_enum! {
    /// What was wrong with a value, a member or a recipe step
    /// (`ketama_set_error.kind`; 0 is no error).
    pub enum SetErrorKind: "ketama_set_error_kind", extra 0 KETAMA_SET_ERROR_NONE "None" "No error." {
        /// A text token is a bare `+` or `-` (T1 members are 1 byte or more).
        EmptyMember = 1, KETAMA_SET_ERROR_EMPTY_MEMBER, "EmptyMember", [];
        /// A text token starts with a byte that is neither `+` nor `-`.
        BadOp = 2, KETAMA_SET_ERROR_BAD_OP, "BadOp", [];
        /// A control byte (0x00-0x1F) or DEL (0x7F) inside a text member.
        InvalidByte = 3, KETAMA_SET_ERROR_INVALID_BYTE, "InvalidByte", [];
        /// A member to encode contains a T1 separator (space, tab, CR, LF, VT, FF).
        MemberHasWhitespace = 4, KETAMA_SET_ERROR_MEMBER_HAS_WHITESPACE, "MemberHasWhitespace", [];
        /// A member is longer than the configured maximum (default 250 bytes).
        MemberTooLong = 5, KETAMA_SET_ERROR_MEMBER_TOO_LONG, "MemberTooLong", [];
        /// A binary value ends inside a record's length or payload.
        Truncated = 6, KETAMA_SET_ERROR_TRUNCATED, "Truncated", [];
        /// A binary length is not canonical LEB128 (a redundant final 0x00 group).
        OverlongLength = 7, KETAMA_SET_ERROR_OVERLONG_LENGTH, "OverlongLength", [];
        /// A binary length needs more than 4 LEB128 bytes or exceeds the maximum member length.
        LengthTooLarge = 8, KETAMA_SET_ERROR_LENGTH_TOO_LARGE, "LengthTooLarge", [];
        /// A binary record has an op byte this version does not know (0xA0-0xBF reserved).
        UnsupportedOp = 9, KETAMA_SET_ERROR_UNSUPPORTED_OP, "UnsupportedOp", [];
        /// A record of the other encoding (text inside binary, or binary inside text).
        MixedEncoding = 10, KETAMA_SET_ERROR_MIXED_ENCODING, "MixedEncoding", [];
        /// The value is neither T1 nor B1 (JSON, gzip, a Membase list, ...).
        UnknownEncoding = 11, KETAMA_SET_ERROR_UNKNOWN_ENCODING, "UnknownEncoding", [];
        /// A Membase list entry or layout is malformed (empty entry, stray separator).
        BadListEntry = 12, KETAMA_SET_ERROR_BAD_LIST_ENTRY, "BadListEntry", [];
        /// The value is larger than this codec handles (4 GiB).
        ValueTooLarge = 13, KETAMA_SET_ERROR_VALUE_TOO_LARGE, "ValueTooLarge", [];
        /// An argument is outside what the operation accepts (the message says which).
        InvalidArgument = 14, KETAMA_SET_ERROR_INVALID_ARGUMENT, "InvalidArgument", [];
        /// The key exists but appends keep failing: the value cannot grow (compact or shard).
        SetFull = 15, KETAMA_SET_ERROR_SET_FULL, "SetFull", [];
        /// Append and add kept failing while the key kept appearing and vanishing.
        Contended = 16, KETAMA_SET_ERROR_CONTENDED, "Contended", [];
    }
}

/// A set-codec failure: the kind, the byte offset in the value (or member)
/// where it was found, the index of the record (or member) concerned, and a
/// short detail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetError {
    /// What was wrong.
    pub kind: SetErrorKind,
    /// Byte offset in the input where the problem starts.
    pub offset: usize,
    /// 0-based index of the failing record (decode) or member (encode);
    /// equals the number of records decoded before it.
    pub record: usize,
    /// A human-readable detail.
    pub detail: String,
    /// True when the error is about a member given to an encoder (then
    /// `offset` is inside the member and `record` is the member's index).
    pub in_member: bool,
}

impl SetError {
    /// A `MemberTooLong` error: the `what` ("member", "entry") at `offset`
    /// of record `record` is `len` bytes, over `max`.
    pub fn too_long(offset: usize, record: usize, what: &str, len: usize, max: usize) -> Self {
        SetError::new(
            SetErrorKind::MemberTooLong,
            offset,
            record,
            format!("{what} is {len} bytes, the maximum is {max}"),
        )
    }

    /// A new error.
    pub fn new(
        kind: SetErrorKind,
        offset: usize,
        record: usize,
        detail: impl Into<String>,
    ) -> Self {
        SetError {
            kind,
            offset,
            record,
            detail: detail.into(),
            in_member: false,
        }
    }

    /// The same error, marked as being about a member given to an encoder.
    pub fn for_member(mut self) -> Self {
        self.in_member = true;
        self
    }

    /// An invalid-argument error (offset and record 0).
    pub fn invalid(detail: impl Into<String>) -> Self {
        SetError::new(SetErrorKind::InvalidArgument, 0, 0, detail)
    }
}

impl fmt::Display for SetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.in_member {
            write!(
                f,
                "{} at byte offset {} of member {}: {}",
                self.kind.name(),
                self.offset,
                self.record,
                self.detail
            )
        } else {
            write!(
                f,
                "{} at byte offset {} (record {}): {}",
                self.kind.name(),
                self.offset,
                self.record,
                self.detail
            )
        }
    }
}

impl std::error::Error for SetError {}
