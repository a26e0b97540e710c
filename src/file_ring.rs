//! Rings that follow their server file: `ketama_file_ring`, re-read when the
//! file changes, answering with the last good ring while a change cannot be
//! used (a half-written or broken file). A thin layer over
//! [`crate::file_ring`].

use std::ffi::{OsStr, c_char};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::boundary::{arg_cstr, arg_opt_str, arg_out, guard_status, guard_value, param};
use super::handle::{arc_out, box_out, handle_free, handle_ref};
use super::ring::ketama_ring;
use super::status::{ketama_status, set_last_error};
use ketama_core::RingConfig;
use ketama_core::file_ring::{FileRing, ReloadPolicy};
use ketama_core::parser::ParseMode;
use ketama_core::registry::Named;

/// A ring that follows a server file. Opaque; create it with
/// `ketama_file_ring_open`, release it with `ketama_file_ring_free`. Safe to
/// use from many threads at once.
pub struct ketama_file_ring {
    _private: [u8; 0],
}

/// Reads the server file `path` (bounded; a file changed in place is waited
/// for until it settles, 300 ms at most in all) and builds the first ring;
/// fails when the file is not good now. `parse_mode` is a
/// `ketama_parse_mode`, `policy` a `ketama_reload_policy`. On success
/// `*file_ring_out` receives a handle to release with `ketama_file_ring_free`.
///
/// # Safety
/// `path` is NULL or NUL-terminated; `file_ring_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_file_ring_open(
    path: *const c_char,
    flavour: u32,
    hash: u32,
    parse_mode: u32,
    policy: u32,
    file_ring_out: *mut *const ketama_file_ring,
) -> ketama_status {
    // SAFETY: this call's own arguments, under the same contract, and no
    // options.
    unsafe {
        ketama_file_ring_open_with_options(
            path,
            flavour,
            hash,
            parse_mode,
            policy,
            std::ptr::null(),
            file_ring_out,
        )
    }
}

/// `ketama_file_ring_open` with placement options for every ring it builds
/// (NULL: none; see `ketama_ring_new_with_options`).
///
/// # Safety
/// As `ketama_file_ring_open`; `options` is NULL or a NUL-terminated
/// string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_file_ring_open_with_options(
    path: *const c_char,
    flavour: u32,
    hash: u32,
    parse_mode: u32,
    policy: u32,
    options: *const c_char,
    file_ring_out: *mut *const ketama_file_ring,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(file_ring_out))?;
        let config = RingConfig::from_ids(flavour, hash, param!(arg_opt_str(options))?)?;
        let path = param!(arg_cstr(path))?;
        let file_ring = FileRing::open(
            Path::new(OsStr::from_bytes(path.to_bytes())),
            config,
            ParseMode::with_id(parse_mode)?,
            ReloadPolicy::with_id(policy)?,
        )?;
        *out = box_out(file_ring);
        Ok(())
    })
}

/// The ring for the file as it is now: rebuilt when the file changed (same
/// inode, size, mtime and content → the same ring). Never waits: while a
/// change made in place settles (100 ms) or another thread reads the file,
/// `KETAMA_OK` with the last good ring at once. Returns `KETAMA_OK`; or,
/// when the file changed but cannot be read or parsed,
/// `KETAMA_KEPT_LAST_GOOD` with the last good ring (policy
/// `KETAMA_RELOAD_KEEP_LAST_GOOD`) or the file's error status (policy
/// `KETAMA_RELOAD_STRICT`, `*ring_out` untouched); `ketama_error()` says
/// why. `*ring_out` receives a ring reference to release with
/// `ketama_ring_free`.
///
/// # Safety
/// `file_ring` is NULL or a live handle; `ring_out` is NULL or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_file_ring_current(
    file_ring: *const ketama_file_ring,
    ring_out: *mut *const ketama_ring,
) -> ketama_status {
    let mut kept = false;
    let status = guard_status(|| {
        let out = param!(arg_out(ring_out))?;
        let file_ring = param!(handle_ref(file_ring))?;
        let current = file_ring.current()?;
        if let Some(problem) = current.problem {
            set_last_error(
                ketama_status::KETAMA_KEPT_LAST_GOOD,
                &format!(
                    "Kept the last good ring of {}: {problem}",
                    file_ring.path().display()
                ),
            );
            kept = true;
        }
        *out = arc_out(current.ring);
        Ok(())
    });
    if kept {
        ketama_status::KETAMA_KEPT_LAST_GOOD
    } else {
        status
    }
}

/// Releases a file ring (rings taken from it stay valid). NULL is ignored.
///
/// # Safety
/// `file_ring` is NULL or a live handle, released once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_file_ring_free(file_ring: *const ketama_file_ring) {
    guard_value((), || param!(handle_free(file_ring)))
}
