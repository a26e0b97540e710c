//! Paired lists (the Membase manual's `follow-X` / `unfollow-X`): adds go
//! to one list, removes to the other, both only ever APPENDed, so no
//! write needs a CAS. The set is read **counted**: a member is present
//! when it occurs more often in the add list than in the remove list,
//! whatever the order (the two lists' records have no common order).
//! Clients add a member only when it is absent and remove it only when
//! present. Each list is a T1 or B1 value of add records (a remove record
//! inside a list takes one occurrence back).

use std::collections::BTreeMap;

use super::decode::{DecodeOptions, DecodedSet, SetStats, parse_records};
use super::error::SetError;
use super::members::MemberSet;
use super::{Format, Op, encode};

crate::named_enum! {
    /// The two lists of a pair (`ketama_set_side`).
    pub enum Side: "ketama_set_side" {
        /// The add list, `follow-<base>`.
        Add = 0, KETAMA_SET_SIDE_ADD, "add", ["follow"];
        /// The remove list, `unfollow-<base>`.
        Remove = 1, KETAMA_SET_SIDE_REMOVE, "remove", ["unfollow"];
    }
}

/// The key of `side` for the set `base`: `follow-<base>` or `unfollow-<base>`.
pub fn key(base: &[u8], side: Side) -> Vec<u8> {
    let mut key = match side {
        Side::Add => b"follow-".to_vec(),
        Side::Remove => b"unfollow-".to_vec(),
    };
    key.extend_from_slice(base);
    key
}

/// The APPEND payload recording `members` in one list of the pair (add
/// records, in `format`). Append it to [`key`]`(base, side)`.
pub fn encode_paired<M: AsRef<[u8]>>(
    members: &[M],
    format: Format,
    max_member_len: usize,
) -> Result<Vec<u8>, SetError> {
    encode(Op::Add, members, format, max_member_len)
}

/// Reads a pair: the members whose occurrences in `adds` outnumber those
/// in `removes` (a missing key is an empty value). `records` counts both
/// lists, `removals` the remove list's records.
pub fn decode_paired(
    adds: &[u8],
    removes: &[u8],
    options: &DecodeOptions,
) -> Result<DecodedSet, SetError> {
    let mut counts: BTreeMap<&[u8], i64> = BTreeMap::new();
    let mut records = 0;
    let mut removals = 0;
    for (value, sign) in [(adds, 1i64), (removes, -1i64)] {
        let (_, list) = parse_records(value, options)?;
        records += list.len();
        if sign < 0 {
            removals = list.len();
        }
        for (op, member, _) in list {
            let step = if op == Op::Add { sign } else { -sign };
            *counts.entry(member).or_insert(0) += step;
        }
    }
    let members = MemberSet::from_members(
        counts
            .iter()
            .filter(|&(_, &count)| count > 0)
            .map(|(m, _)| *m),
    );
    let stats = SetStats {
        records,
        removals,
        redundant: records - members.len(),
        value_len: adds.len() + removes.len(),
        format: None,
        sealed: false,
    };
    Ok(DecodedSet { members, stats })
}
