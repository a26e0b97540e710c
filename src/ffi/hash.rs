//! The hash family in the C API: `ketama_hash_bytes`.

use super::boundary::{arg_bytes, arg_out, guard_status};
use super::ring::hash_from_u32;
use super::status::ketama_status;
use crate::Error;

/// Hashes `len` bytes at `bytes` with hash `hash_id` (a `ketama_hash` other
/// than `KETAMA_HASH_DEFAULT`) and stores the 32-bit result in `*out`.
///
/// # Safety
/// `bytes` is valid for `len` bytes (or NULL with `len` 0); `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_hash_bytes(hash_id: u32, bytes: *const u8, len: usize, out: *mut u32) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let bytes = unsafe { arg_bytes(bytes, len, "bytes") }?;
        let out = unsafe { arg_out(out, "out") }?;
        let hash = hash_from_u32(hash_id)?.ok_or_else(|| {
            Error::InvalidArgument("hash id 0 (KETAMA_HASH_DEFAULT) names no hash function here".into())
        })?;
        *out = hash.hash(bytes);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::HashAlgorithm;

    #[test]
    fn every_id_maps_and_bad_ids_fail() {
        let mut out = 0u32;
        for (i, h) in HashAlgorithm::ALL.iter().enumerate() {
            let status = unsafe { ketama_hash_bytes(i as u32 + 1, b"key".as_ptr(), 3, &mut out) };
            assert_eq!(status, ketama_status::KETAMA_OK);
            assert_eq!(out, h.hash(b"key"));
        }
        for bad in [0, HashAlgorithm::ALL.len() as u32 + 1] {
            let status = unsafe { ketama_hash_bytes(bad, b"k".as_ptr(), 1, &mut out) };
            assert_eq!(status, ketama_status::KETAMA_ERR_INVALID_ARGUMENT);
        }
        let status = unsafe { ketama_hash_bytes(1, std::ptr::null(), 1, &mut out) };
        assert_eq!(status, ketama_status::KETAMA_ERR_NULL_ARGUMENT);
    }
}
