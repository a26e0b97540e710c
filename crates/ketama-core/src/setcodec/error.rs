//! The set codec's typed error: what went wrong, at which byte, in which record.

use std::fmt;

/// What was wrong with a value, a member or a recipe step.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SetErrorKind {
    /// A text token is a bare `+` or `-` (T1 members are 1 byte or more).
    EmptyMember,
    /// A text token starts with a byte that is neither `+` nor `-`.
    BadOp,
    /// A control byte (0x00-0x1F) or DEL (0x7F) inside a text member.
    InvalidByte,
    /// A member to encode contains a T1 separator (space, tab, CR, LF, VT, FF).
    MemberHasWhitespace,
    /// A member is longer than the configured maximum (default 250 bytes).
    MemberTooLong,
    /// A binary value ends inside a record's length or payload.
    Truncated,
    /// A binary length is not canonical LEB128 (a redundant final 0x00 group).
    OverlongLength,
    /// A binary length needs more than 4 LEB128 bytes or exceeds the maximum member length.
    LengthTooLarge,
    /// A binary record has an op byte this version does not know (0xA0-0xBF reserved).
    UnsupportedOp,
    /// A record of the other encoding (text inside binary, or binary inside text).
    MixedEncoding,
    /// The value is neither T1 nor B1 (JSON, gzip, a Membase list, ...).
    UnknownEncoding,
    /// A Membase list entry or layout is malformed (empty entry, stray separator).
    BadListEntry,
    /// The value is larger than this codec handles (4 GiB).
    ValueTooLarge,
    /// An argument is outside what the operation accepts (the message says which).
    InvalidArgument,
    /// The key exists but appends keep failing: the value cannot grow (compact or shard).
    SetFull,
    /// Append and add kept failing while the key kept appearing and vanishing.
    Contended,
}

impl SetErrorKind {
    /// The kind's name as used in messages and by the CLI (`EmptyMember`, ...).
    pub fn name(self) -> &'static str {
        self.c_name().to_str().unwrap_or("Unknown")
    }

    /// The kind's name as a static NUL-terminated string (for the C ABI).
    pub fn c_name(self) -> &'static std::ffi::CStr {
        match self {
            SetErrorKind::EmptyMember => c"EmptyMember",
            SetErrorKind::BadOp => c"BadOp",
            SetErrorKind::InvalidByte => c"InvalidByte",
            SetErrorKind::MemberHasWhitespace => c"MemberHasWhitespace",
            SetErrorKind::MemberTooLong => c"MemberTooLong",
            SetErrorKind::Truncated => c"Truncated",
            SetErrorKind::OverlongLength => c"OverlongLength",
            SetErrorKind::LengthTooLarge => c"LengthTooLarge",
            SetErrorKind::UnsupportedOp => c"UnsupportedOp",
            SetErrorKind::MixedEncoding => c"MixedEncoding",
            SetErrorKind::UnknownEncoding => c"UnknownEncoding",
            SetErrorKind::BadListEntry => c"BadListEntry",
            SetErrorKind::ValueTooLarge => c"ValueTooLarge",
            SetErrorKind::InvalidArgument => c"InvalidArgument",
            SetErrorKind::SetFull => c"SetFull",
            SetErrorKind::Contended => c"Contended",
        }
    }

    /// All kinds, in the order of their C ids (`ketama_set_error_kind`, 1-based).
    pub const ALL: [SetErrorKind; 16] = [
        SetErrorKind::EmptyMember,
        SetErrorKind::BadOp,
        SetErrorKind::InvalidByte,
        SetErrorKind::MemberHasWhitespace,
        SetErrorKind::MemberTooLong,
        SetErrorKind::Truncated,
        SetErrorKind::OverlongLength,
        SetErrorKind::LengthTooLarge,
        SetErrorKind::UnsupportedOp,
        SetErrorKind::MixedEncoding,
        SetErrorKind::UnknownEncoding,
        SetErrorKind::BadListEntry,
        SetErrorKind::ValueTooLarge,
        SetErrorKind::InvalidArgument,
        SetErrorKind::SetFull,
        SetErrorKind::Contended,
    ];

    /// The kind's C id (1-based position in [`SetErrorKind::ALL`]; 0 means "no error").
    pub fn id(self) -> u32 {
        SetErrorKind::ALL
            .iter()
            .position(|k| *k == self)
            .map_or(0, |i| i as u32 + 1)
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
