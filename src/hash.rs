//! The hash family in the C API: `ketama_hash_bytes`.

use std::ffi::c_char;

use super::boundary::{arg_chars, arg_out, guard_status, param};
use super::status::ketama_status;
use ketama_core::hash::HashAlgorithm;
use ketama_core::registry::Named;

/// Hashes `len` bytes at `bytes` with hash `hash_id` (a `ketama_hash` other
/// than `KETAMA_HASH_DEFAULT`) and stores the 32-bit result in `*out`.
///
/// # Safety
/// `bytes` is valid for `len` bytes (or NULL with `len` 0); `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_hash_bytes(
    hash_id: u32,
    bytes: *const c_char,
    len: usize,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let bytes = param!(arg_chars(bytes, len))?;
        let out = param!(arg_out(out))?;
        let hash = HashAlgorithm::with_id_or_extra(hash_id)?
            .ok_or_else(|| HashAlgorithm::refused_id(hash_id, "names no hash function here"))?;
        *out = hash.hash(bytes);
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_maps_and_bad_ids_fail() {
        let mut out = 0u32;
        for h in HashAlgorithm::ALL {
            // SAFETY: three static bytes and a writable local.
            let status = unsafe { ketama_hash_bytes(h.id(), b"key".as_ptr().cast(), 3, &mut out) };
            assert_eq!(status, ketama_status::KETAMA_OK);
            assert_eq!(out, h.hash(b"key"));
        }
        let unused = (1..)
            .find(|&id| HashAlgorithm::from_id(id).is_none())
            .unwrap();
        for bad in [0, unused, u32::MAX] {
            // SAFETY: one static byte and a writable local.
            let status = unsafe { ketama_hash_bytes(bad, b"k".as_ptr().cast(), 1, &mut out) };
            assert_eq!(status, ketama_status::KETAMA_ERR_INVALID_ARGUMENT);
            let expected = match bad {
                0 => "ketama_hash id 0 (KETAMA_HASH_DEFAULT) names no hash function here".into(),
                _ => format!("unknown ketama_hash id {bad}"),
            };
            assert_eq!(crate::status::last_error(), expected);
        }
        // SAFETY: NULL with a length (refused unread) and a writable local.
        let status = unsafe { ketama_hash_bytes(1, std::ptr::null(), 1, &mut out) };
        assert_eq!(status, ketama_status::KETAMA_ERR_NULL_ARGUMENT);
    }

    #[test]
    fn flavour_and_hash_names_round_trip_through_the_c_functions() {
        use crate::compat::ketama_error;
        use crate::names::{
            ketama_flavour_from_name, ketama_flavour_name, ketama_hash_from_name, ketama_hash_name,
        };
        use ketama_core::flavour::Flavour;
        use std::ffi::{CStr, CString};
        // SAFETY: `p` is a name the library returned: static and NUL-terminated,
        // or `ketama_error()`'s text, valid until this thread's next failure.
        let name_of = |p: *const std::ffi::c_char| unsafe { CStr::from_ptr(p) }.to_str().unwrap();
        for flavour in Flavour::ALL {
            let id = flavour.id();
            let name = ketama_flavour_name(id);
            assert_eq!(name_of(name), flavour.name());
            let mut out = u32::MAX;
            assert_eq!(
                // SAFETY: a static name from `ketama_flavour_name` and a writable local.
                unsafe { ketama_flavour_from_name(name, &mut out) },
                ketama_status::KETAMA_OK
            );
            assert_eq!(out, id);
            for hash in HashAlgorithm::ALL {
                let hash_name = ketama_hash_name(hash.id());
                assert_eq!(name_of(hash_name), hash.name());
                // SAFETY: a static name from `ketama_hash_name` and a writable local.
                let status = unsafe { ketama_hash_from_name(id, hash_name, &mut out) };
                // The peer's own spelling wins (twemproxy's "crc32" is the 15-bit crc).
                if let Some(peer_hash) = flavour.hash_from_name(hash.name()) {
                    assert_eq!(status, ketama_status::KETAMA_OK);
                    assert_eq!(HashAlgorithm::from_id(out), Some(peer_hash));
                } else {
                    assert_eq!(status, ketama_status::KETAMA_ERR_INVALID_ARGUMENT);
                    let message = name_of(ketama_error());
                    assert!(message.contains("it offers"), "{message}");
                }
            }
        }
        assert!(ketama_flavour_name(u32::MAX).is_null());
        assert!(ketama_hash_name(u32::MAX).is_null());
        assert_eq!(name_of(ketama_hash_name(0)), "default");
        let mut out = 0u32;
        let alias = CString::new("PHP_Memcached").unwrap();
        assert_eq!(
            // SAFETY: a live C string and a writable local.
            unsafe { ketama_flavour_from_name(alias.as_ptr(), &mut out) },
            ketama_status::KETAMA_OK
        );
        assert_eq!(Flavour::from_id(out), Some(Flavour::Libmemcached));
        let twemproxy_crc32 = CString::new("crc32").unwrap();
        assert_eq!(
            // SAFETY: a live C string and a writable local.
            unsafe { ketama_hash_from_name(6, twemproxy_crc32.as_ptr(), &mut out) },
            ketama_status::KETAMA_OK
        );
        assert_eq!(HashAlgorithm::from_id(out), Some(HashAlgorithm::Crc));
        let bogus = CString::new("no-such-flavour").unwrap();
        assert_eq!(
            // SAFETY: a live C string and a writable local.
            unsafe { ketama_flavour_from_name(bogus.as_ptr(), &mut out) },
            ketama_status::KETAMA_ERR_INVALID_ARGUMENT
        );
        let message = name_of(ketama_error());
        assert!(
            message.contains("no-such-flavour") && message.contains("libketama"),
            "{message}"
        );
        assert_eq!(
            // SAFETY: a NULL name (refused) and a writable local.
            unsafe { ketama_flavour_from_name(std::ptr::null(), &mut out) },
            ketama_status::KETAMA_ERR_NULL_ARGUMENT
        );
        assert_eq!(
            // SAFETY: a live C string and a NULL output (refused).
            unsafe { ketama_hash_from_name(0, bogus.as_ptr(), std::ptr::null_mut()) },
            ketama_status::KETAMA_ERR_NULL_ARGUMENT
        );
        assert_eq!(
            // SAFETY: a live C string and a writable local.
            unsafe { ketama_hash_from_name(u32::MAX, twemproxy_crc32.as_ptr(), &mut out) },
            ketama_status::KETAMA_ERR_INVALID_ARGUMENT
        );
    }
}
