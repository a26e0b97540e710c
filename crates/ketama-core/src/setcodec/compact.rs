//! Compaction: when to rewrite a value, and its canonical form.

use super::decoded::SetStats;
use super::error::SetError;
use super::members::MemberSet;
use super::{Format, Op, binary, push_record, text};

/// Default value budget: memcached's 1 MiB item limit minus 1 KiB for the
/// item header and a 250-byte key.
pub const DEFAULT_VALUE_BUDGET: usize = 1024 * 1024 - 1024;

/// When a read compacts: `force`, or `redundant > threshold`, or (value
/// larger than `soft_limit` and `redundant > 0`). In ratio mode the
/// threshold is `max(threshold, live members)`, which keeps the amortised
/// cost O(1) per mutation for large sets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionPolicy {
    /// Redundant records tolerated (default 100).
    pub threshold: usize,
    /// Value size above which any redundancy triggers compaction
    /// (default half of [`DEFAULT_VALUE_BUDGET`]).
    pub soft_limit: usize,
    /// Use `max(threshold, live)` as the threshold.
    pub ratio: bool,
}

impl Default for CompactionPolicy {
    fn default() -> Self {
        CompactionPolicy {
            threshold: 100,
            soft_limit: DEFAULT_VALUE_BUDGET / 2,
            ratio: false,
        }
    }
}

/// Whether a decoded value should be compacted under `policy`. Duplicate
/// adds count (through `redundant`), not only removals, so a set re-added
/// forever still compacts.
pub fn should_compact(
    stats: &SetStats,
    live: usize,
    policy: &CompactionPolicy,
    force: bool,
) -> bool {
    let threshold = if policy.ratio {
        policy.threshold.max(live)
    } else {
        policy.threshold
    };
    force
        || stats.redundant > threshold
        || (stats.value_len > policy.soft_limit && stats.redundant > 0)
}

/// The canonical encoding of a set: one add record per member in bytewise
/// order; the empty set is the empty value. Also the value of the *STORE
/// commands. Fails if a member cannot be written in `format` (e.g. a
/// member with a space into T1).
pub fn compacted(
    members: &MemberSet,
    format: Format,
    max_member_len: usize,
) -> Result<Vec<u8>, SetError> {
    let validate = match format {
        Format::T1 => text::validate_member,
        Format::B1 => binary::validate_member,
        other => {
            return Err(SetError::invalid(format!(
                "format {} is read-only; write t1 or b1",
                other.name()
            )));
        }
    };
    for (index, member) in members.iter().enumerate() {
        validate(member, index, max_member_len)?;
    }
    let mut out = Vec::with_capacity(members.member_bytes() + 4 * members.len());
    for member in members.iter() {
        push_record(&mut out, Op::Add, member, format);
    }
    Ok(out)
}
