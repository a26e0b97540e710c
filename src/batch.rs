//! Batch lookup in the C ABI: many keys per call, one crossing.

use std::ffi::c_char;

use super::boundary::{
    arg_chars, arg_out, arg_slice, arg_slice_mut, guard_status, guard_value, param,
};
use super::handle::{box_out, handle_free, handle_opt, handle_ref};
use super::ring::ketama_ring;
use super::status::ketama_status;
use ketama_core::Error;

/// Finds the server of each of `count` keys, given as an array of pointers
/// and an array of lengths; writes server indices (input order) to
/// `server_indices[0..count]`. Same answers as `ketama_find_server`.
///
/// # Safety
/// `ring` is a live ring; `keys` and `key_lens` hold `count` entries, each
/// key valid for its length; `server_indices` has room for `count` values.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_find_servers(
    ring: *const ketama_ring,
    keys: *const *const c_char,
    key_lens: *const usize,
    count: usize,
    server_indices: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let ring = param!(handle_ref(ring))?;
        let pointers = param!(arg_slice(keys, count))?;
        let lens = param!(arg_slice(key_lens, count))?;
        let out = param!(arg_slice_mut(server_indices, count))?;
        let keys = pointers
            .iter()
            .zip(lens)
            // SAFETY: key `i` is valid for `key_lens[i]` bytes (the contract
            // of `ketama_find_servers`).
            .map(|(&key, &len)| unsafe { arg_chars(key, len, "keys[i]") })
            .collect::<Result<Vec<&[u8]>, Error>>()?;
        ring.find_server_indices(&keys, out)
    })
}

/// Finds the server of each of `count` keys stored back to back in
/// `packed` (`packed_len` bytes), key `i` being `lengths[i]` bytes long;
/// writes server indices to `server_indices[0..count]`. The packed form
/// suits bindings (one byte array and one int array per call).
///
/// # Safety
/// `ring` is a live ring; `packed` is valid for `packed_len` bytes;
/// `lengths` holds `count` entries; `server_indices` has room for `count`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_find_servers_packed(
    ring: *const ketama_ring,
    packed: *const c_char,
    packed_len: usize,
    lengths: *const u32,
    count: usize,
    server_indices: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let ring = param!(handle_ref(ring))?;
        let packed = param!(arg_chars(packed, packed_len))?;
        let lengths = param!(arg_slice(lengths, count))?;
        let keys = ketama_core::split_packed(packed, lengths)?;
        let out = param!(arg_slice_mut(server_indices, count))?;
        ring.find_server_indices(&keys, out)
    })
}

/// The multi-GET plan of `ketama_group_keys` (opaque): one group per
/// server that holds keys. Release it with `ketama_key_groups_free`.
pub struct ketama_key_groups {
    _private: [u8; 0],
}

/// The plan behind a `ketama_key_groups` handle: key indices as `uint32_t`.
pub(crate) struct KeyGroups {
    groups: Vec<(u32, Vec<u32>)>,
}

/// The multi-GET planner: groups `count` keys, stored back to back in
/// `packed` (key `i` is `lengths[i]` bytes), by the server that holds them,
/// so that a client sends one multi-get per server. Groups come in the
/// ring's server order, each listing its key indices in input order;
/// servers without keys are left out. `count` must fit in 32 bits.
///
/// # Safety
/// `ring` is a live ring; `packed` is valid for `packed_len` bytes;
/// `lengths` holds `count` entries; `groups_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_group_keys(
    ring: *const ketama_ring,
    packed: *const c_char,
    packed_len: usize,
    lengths: *const u32,
    count: usize,
    groups_out: *mut *mut ketama_key_groups,
) -> ketama_status {
    guard_status(|| {
        let ring = param!(handle_ref(ring))?;
        let groups_out = param!(arg_out(groups_out))?;
        let packed = param!(arg_chars(packed, packed_len))?;
        let lengths = param!(arg_slice(lengths, count))?;
        let keys = ketama_core::split_packed(packed, lengths)?;
        if u32::try_from(count).is_err() {
            return Err(Error::InvalidArgument(format!(
                "count {count} does not fit the 32-bit key indices"
            )));
        }
        let groups = ring
            .group_keys(&keys)?
            .into_iter()
            .map(|g| {
                (
                    g.server_index as u32,
                    g.key_indices.into_iter().map(|i| i as u32).collect(),
                )
            })
            .collect();
        *groups_out = box_out(KeyGroups { groups });
        Ok(())
    })
}

/// Number of groups (servers holding at least one key); 0 for NULL.
///
/// # Safety
/// `groups` is NULL or a live handle.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_key_groups_count(groups: *const ketama_key_groups) -> usize {
    guard_value(0, || {
        param!(handle_opt(groups)).map_or(0, |g| g.groups.len())
    })
}

/// Group `group`: `*server_index_out` is the server's index (ring input
/// order), `*key_indices_out` points to `*key_count_out` key indices in
/// input order, owned by the handle and valid while it lives.
///
/// # Safety
/// `groups` is a live handle; the outs are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_key_groups_get(
    groups: *const ketama_key_groups,
    group: usize,
    server_index_out: *mut u32,
    key_indices_out: *mut *const u32,
    key_count_out: *mut usize,
) -> ketama_status {
    guard_status(|| {
        let groups = param!(handle_ref(groups))?;
        let server_index_out = param!(arg_out(server_index_out))?;
        let key_indices_out = param!(arg_out(key_indices_out))?;
        let key_count_out = param!(arg_out(key_count_out))?;
        let (server, keys) = groups.groups.get(group).ok_or_else(|| {
            Error::OutOfRange(format!(
                "group {group} is out of range (the plan has {})",
                groups.groups.len()
            ))
        })?;
        *server_index_out = *server;
        *key_indices_out = keys.as_ptr();
        *key_count_out = keys.len();
        Ok(())
    })
}

/// Releases a multi-GET plan. NULL is ignored.
///
/// # Safety
/// `groups` is NULL or a live handle, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_key_groups_free(groups: *mut ketama_key_groups) {
    guard_value((), || param!(handle_free(groups)))
}
