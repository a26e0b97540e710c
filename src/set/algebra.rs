//! Redis set operations on decoded sets (SUNION, SINTER, SDIFF,
//! SINTERCARD, SRANDMEMBER, SPOP, SMOVE).

use super::*;
use crate::boundary::{arg_bytes, arg_out, arg_slice_mut, guard_status, param};
use crate::handle::handle_opt;
use crate::status::ketama_status;
use ketama_core::setcodec::ops;

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
        let out = param!(arg_out(out))?;
        combine(out, param!(set_list(sets, count))?, |list| {
            if list.is_empty() {
                return Err(Error::InvalidArgument(
                    "numkeys should be greater than 0".into(),
                ));
            }
            Ok(ops::union(list))
        })
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
        let out = param!(arg_out(out))?;
        combine(out, param!(set_list(sets, count))?, |list| {
            Ok(ops::inter(list)?)
        })
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
        let out = param!(arg_out(out))?;
        combine(out, param!(set_list(sets, count))?, |list| {
            Ok(ops::diff(list)?)
        })
    })
}

/// Runs `operation` on the sets of `list` (with their largest member
/// length) and hands its result out in `*out`: the body of SUNION, SINTER
/// and SDIFF.
fn combine(
    out: &mut *mut ketama_set,
    (list, max): (Vec<&MemberSet>, usize),
    operation: impl FnOnce(&[&MemberSet]) -> Result<MemberSet, Error>,
) -> Result<(), Error> {
    *out = hand_out_members(operation(&list)?, max);
    Ok(())
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
        let out = param!(arg_out(out))?;
        let (list, _) = param!(set_list(sets, count))?;
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
        let len_out = param!(arg_out(len_out))?;
        let indices = param!(arg_slice_mut(indices_out, capacity))?;
        let empty = MemberSet::new();
        let members = param!(handle_opt(set)).map_or(&empty, |h| &h.set.members);
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
        let len_out = param!(arg_out(len_out))?;
        let payload_out = param!(arg_out(payload_out))?;
        let indices = param!(arg_slice_mut(indices_out, capacity))?;
        let empty = SetHandle {
            set: DecodedSet::empty(),
            max_member_len: DEFAULT_MAX_MEMBER_LEN,
        };
        let handle = param!(handle_opt(set)).unwrap_or(&empty);
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
        let member = param!(arg_bytes(member, member_len))?;
        let moved_out = param!(arg_out(moved_out))?;
        let add_out = param!(arg_out(add_out))?;
        let remove_out = param!(arg_out(remove_out))?;
        let empty = SetHandle {
            set: DecodedSet::empty(),
            max_member_len: DEFAULT_MAX_MEMBER_LEN,
        };
        let handle = param!(handle_opt(source)).unwrap_or(&empty);
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
