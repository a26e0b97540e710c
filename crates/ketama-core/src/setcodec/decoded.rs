//! What decoding gives: the options, the decoded set and its statistics.

use super::Format;
use super::error::SetError;
use super::members::MemberSet;

/// Default maximum member length: 250 bytes, so every member is also a
/// legal memcached key.
pub const DEFAULT_MAX_MEMBER_LEN: usize = 250;

/// How to decode a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DecodeOptions {
    /// The format to read; `None` detects T1 or B1 from the bytes.
    pub format: Option<Format>,
    /// Longest member accepted (default [`DEFAULT_MAX_MEMBER_LEN`]).
    pub max_member_len: usize,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            format: None,
            max_member_len: DEFAULT_MAX_MEMBER_LEN,
        }
    }
}

impl DecodeOptions {
    /// Options reading `format` (or detecting, for `None`).
    pub fn format(format: Option<Format>) -> Self {
        DecodeOptions {
            format,
            ..Default::default()
        }
    }

    /// Options reading `format` with members up to `max_member_len` bytes
    /// (0: the default, [`DEFAULT_MAX_MEMBER_LEN`]), as the C ABI and the
    /// bindings take them.
    pub fn with_max(format: Option<Format>, max_member_len: usize) -> Self {
        DecodeOptions {
            format,
            max_member_len: if max_member_len == 0 {
                DEFAULT_MAX_MEMBER_LEN
            } else {
                max_member_len
            },
        }
    }
}

/// Counters of a decoded value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SetStats {
    /// Records (tokens, list entries) in the value.
    pub records: usize,
    /// Remove records (the original post's "dirtiness"), counting removals
    /// of absent members too.
    pub removals: usize,
    /// `records - live members`: every record compaction would delete.
    pub redundant: usize,
    /// Size of the value in bytes.
    pub value_len: usize,
    /// The format read; `None` for an empty value under detection.
    pub format: Option<Format>,
    /// The value starts with the `^` seal: a retired list of a flipped
    /// pair (see [`super::flip`]); its records still count.
    pub sealed: bool,
}

/// A decoded value: the live members (sorted, unique) and the counters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedSet {
    /// The live members.
    pub members: MemberSet,
    /// The counters.
    pub stats: SetStats,
}

impl DecodedSet {
    /// An empty set (a missing key).
    pub fn empty() -> Self {
        DecodedSet {
            members: MemberSet::new(),
            stats: SetStats::default(),
        }
    }

    /// The result of set algebra: the members, one record each.
    pub fn from_members(members: MemberSet) -> Self {
        let stats = SetStats {
            records: members.len(),
            ..SetStats::default()
        };
        DecodedSet { members, stats }
    }
}

/// The result of a salvage decode: the set of the valid prefix and, when
/// the value did not decode whole, the error that stopped it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Salvaged {
    /// The set replayed from every record before the error.
    pub set: DecodedSet,
    /// Why decoding stopped early, if it did.
    pub error: Option<SetError>,
}
