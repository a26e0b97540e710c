//! Batch lookup in the C ABI: many keys per call, one crossing.

use std::ffi::c_char;

use super::boundary::{arg_chars, arg_slice, arg_slice_mut, guard_status};
use super::ring::{ketama_ring, ring_ref};
use super::status::ketama_status;
use crate::Error;

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
        // SAFETY: per the contract above.
        let ring = unsafe { ring_ref(ring) }?;
        let pointers = unsafe { arg_slice(keys, count, "keys") }?;
        let lens = unsafe { arg_slice(key_lens, count, "key_lens") }?;
        let out = unsafe { arg_slice_mut(server_indices, count, "server_indices") }?;
        let keys = pointers
            .iter()
            .zip(lens)
            // SAFETY: each key is valid for its length.
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
        // SAFETY: per the contract above.
        let ring = unsafe { ring_ref(ring) }?;
        let data = unsafe { arg_chars(packed, packed_len, "packed") }?;
        let lengths = unsafe { arg_slice(lengths, count, "lengths") }?;
        let out = unsafe { arg_slice_mut(server_indices, count, "server_indices") }?;
        let mut keys = Vec::with_capacity(count);
        let mut offset = 0usize;
        for (i, &len) in lengths.iter().enumerate() {
            let end = offset
                .checked_add(len as usize)
                .filter(|&end| end <= data.len())
                .ok_or_else(|| Error::InvalidArgument(format!(
                    "lengths[{i}] = {len} runs past the end of packed ({} bytes) at offset {offset}",
                    data.len()
                )))?;
            keys.push(&data[offset..end]);
            offset = end;
        }
        ring.find_server_indices(&keys, out)
    })
}
