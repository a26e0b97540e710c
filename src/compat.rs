//! The original libketama API: same structs, same eight functions, same
//! continuum, minus the original's hazards.
//!
//! Differences from the original, none of which moves a key:
//! * No SysV shared memory or semaphores. `ketama_roll` builds a process-local
//!   continuum and caches it per file name: a second roll of an unchanged file
//!   (same content, size, mtime and inode) shares the cached continuum, and
//!   one of a file read when it had settled, whose name still names the same
//!   inode with the same size, mtime and ctime, costs one `stat`; a file
//!   whose content changed, even with its mtime kept, is read again. A
//!   continuum handed out is never modified; it stays valid until smoked.
//!   A large one (1 MiB of `mcs` records and more) is shared between the
//!   user's processes instead (the ring cache's shared images,
//!   `KETAMA_SHARED_RINGS`): its ring mapped read-only, its records mapped
//!   copy-on-write (`compat_records.rs`), so that a client writing through
//!   `mcs*` changes its own process's copy only.
//!   The cache holds the last good continuum of the 32 most recently rolled
//!   files (fewer when they hold over 2^22 points in all). The handles
//!   handed out are recorded without a lock a reader can wait on
//!   (`compat_handles.rs`), so `ketama_get_server` and `ketama_smoke` can
//!   tell a live handle from a copy or a smoked one.
//! * Reading is bounded and never takes a file a writer is at work on
//!   ([`ketama_core::server_file`]): only regular files of at most 64 MiB; a file
//!   changed in place is read once it has been left alone for 100 ms, and a
//!   read during which it changed is not taken. A roll of a file rolled good
//!   before never waits: until the change has settled, it returns 1 at once
//!   with the last good continuum of that file (`ketama_error()` empty), and
//!   while another thread is reading the file, it does the same without
//!   looking. Only the first roll of a file (nothing to answer with yet)
//!   waits for an in-place change to settle and retries a disturbed read,
//!   300 ms at most in all, then fails naming the writer at work.
//! * A file rolled good before whose current state cannot be read or parsed
//!   (half written, emptied by an in-place rewrite, a typo, deleted): where
//!   the original returned 0, `ketama_roll` returns 1 with the last good
//!   continuum of that file (as cached, see above) and `ketama_error()` says
//!   `Kept the last good continuum of F: <reason>`. A file never rolled good
//!   (or evicted from the cache) fails as before.
//! * No capacity limit (the original crashed past 18,723 points).
//! * `ketama_smoke` frees only the continuum it is given; NULL, a continuum
//!   already smoked, and the empty continuum of a failed roll are ignored.
//! * The error text is per thread and keeps its reason:
//!   `Invalid memory value (line 3 in servers.txt)`.
//! * A failed roll whose file could not be found (the original's `ftok`
//!   failure) leaves `*contptr` untouched, as the original does. Any other
//!   failed roll stores a shared, static, empty continuum (`numpoints` 0,
//!   `array` NULL) instead of leaking a fresh one: `ketama_get_server` on it
//!   returns NULL (exactly what the original returned),
//!   `ketama_print_continuum` prints `Continuum empty`, smoking it is a no-op.
//! * `mcs.ip` is NUL-terminated for 22- and 23-byte addresses: the 23rd byte
//!   and a NUL are stored in the struct's two padding bytes (layout unchanged).
//! * NULL arguments never crash: `ketama_get_server` returns NULL,
//!   `ketama_hashi(NULL)` returns 0, `ketama_md5_digest` with a NULL argument
//!   does nothing, `ketama_print_continuum(NULL)` prints nothing,
//!   `ketama_compare` orders NULL before any record.
//! * `modtime` points to the file's `st_mtime` (the original stored
//!   `mktime(gmtime(mtime))`, which equals it only when TZ is UTC).

use std::ffi::{OsStr, c_char, c_int, c_uchar, c_uint, c_ulong, c_void};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr::{self, null_mut};
use std::sync::Arc;

use super::boundary::{arg_opt_cstr, arg_opt_out, arg_opt_ref, guard_value, param};
use super::compat_handles;
use super::compat_records::{McsRecord, Records};
use super::handle::{box_out, handle_free, handle_opt};
use super::status::{clear_last_error, ketama_status, last_error_ptr, set_last_error};
use ketama_core::file_ring::{Followed, Refresh};
use ketama_core::hash::md5_digest;
use ketama_core::parser::ParseMode;
use ketama_core::ring_cache::{self, Bounds, Lru};
use ketama_core::{Error, Ring, RingConfig};

/// Size of the original's SysV shared memory segment (512 KiB). Kept for
/// source compatibility; this library uses no shared memory.
pub const MC_SHMSIZE: u32 = 524288;

/// A point of the continuum as the original exposes it: the point value and
/// the first 22 bytes of the server address. 28 bytes on every ABI.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct mcs {
    /// The point on the circle.
    pub point: c_uint,
    /// The server address (22 bytes; NUL-terminated in this library, see above).
    pub ip: [c_char; 22],
}

/// A server as the original's file reader stores it (part of the original
/// header; no function takes it).
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct serverinfo {
    /// The address, up to 22 bytes.
    pub addr: [c_char; 22],
    /// The weight ("memory") column.
    pub memory: c_ulong,
}

/// The original continuum: clients read `numpoints` and walk `array` (a
/// sorted `mcs[numpoints]`) directly. `modtime` points to a `time_t`.
#[repr(C)]
#[derive(Debug)]
pub struct continuum {
    /// Number of points in `array`.
    pub numpoints: c_int,
    /// Points to the server file's modification time (`time_t`).
    pub modtime: *mut c_void,
    /// Points to `numpoints` `mcs` records sorted by point.
    pub array: *mut c_void,
}

/// Handle type of the original API.
pub type ketama_continuum = *mut continuum;

const _: () = assert!(size_of::<McsRecord>() == size_of::<mcs>());
const _: () = assert!(align_of::<McsRecord>() == align_of::<mcs>());
const _: () = assert!(size_of::<mcs>() == 28);
#[cfg(target_pointer_width = "64")]
const _: () = assert!(size_of::<continuum>() == 24 && size_of::<serverinfo>() == 32);

/// A built continuum shared by every handle rolled from the same file state.
struct Snapshot {
    ring: Ring,
    records: Records,
    modtime: Box<libc::time_t>,
}

/// What `ketama_roll` hands out: the C-visible struct first, then the
/// snapshot keeping its arrays alive (a handle declared in `handle.rs`).
#[repr(C)]
pub(crate) struct CompatHandle {
    cont: continuum,
    snapshot: Arc<Snapshot>,
}

/// Shared read-only `continuum` given out by failed rolls.
struct StaticContinuum(std::cell::UnsafeCell<continuum>);
// SAFETY: the empty continuum is never written by this library, and its
// fields are a zero count, a pointer to an immutable static and NULL.
unsafe impl Sync for StaticContinuum {}

static EMPTY_MODTIME: libc::time_t = 0;
static EMPTY: StaticContinuum = StaticContinuum(std::cell::UnsafeCell::new(continuum {
    numpoints: 0,
    modtime: &EMPTY_MODTIME as *const libc::time_t as *mut c_void,
    array: null_mut(),
}));

/// The roll cache: the followed state (last good snapshot) of each recently
/// rolled file by name, weighed by point count.
static CACHE: Lru<Vec<u8>, Arc<Followed<Snapshot>>> = Lru::new(Bounds {
    entries: CACHE_FILES,
    weight: CACHE_POINTS,
});

/// The roll cache keeps the last good continuum of at most this many files…
const CACHE_FILES: usize = 32;
/// …and drops the least recently rolled ones while they hold more points
/// than this in all (the most recent file is always kept).
const CACHE_POINTS: usize = 1 << 22;

/// Builds the snapshot of a file state.
fn build_snapshot(
    servers: Vec<ketama_core::ServerSpec>,
    stamp: &ketama_core::server_file::FileStamp,
) -> Result<Snapshot, Error> {
    // Built as the ring cache builds: a large continuum is mapped from the
    // image another process (or this one's `fromFile`) published, and so
    // are its records.
    let config = RingConfig::default();
    let keyed = servers.clone();
    let ring = ring_cache::global().build(servers, config)?;
    Ok(Snapshot {
        records: Records::of(&ring, &keyed, config),
        ring,
        modtime: Box::new(stamp.mtime.0 as libc::time_t),
    })
}

/// The snapshot to hand out for `filename`: the file's current state when
/// it is good and settled, else the last good snapshot of that file (with
/// the problem when the file is not good). Waits only on a first roll.
fn snapshot_for(filename: &[u8]) -> Result<(Arc<Snapshot>, Option<Error>), Error> {
    let named = |name: &Vec<u8>| name.as_slice() == filename;
    let refreshed = match CACHE.find(named) {
        Some(followed) => {
            let refreshed = followed.look(build_snapshot);
            if let Refresh::Changed(good) = &refreshed {
                CACHE.reweigh(named, good.value.records.len());
            }
            refreshed
        }
        None => {
            let path = Path::new(OsStr::from_bytes(filename));
            let followed = Followed::open(path, ParseMode::Libketama, build_snapshot)?;
            let first = Refresh::Changed(followed.last_good());
            let weight = first.current().value.records.len();
            CACHE.insert(filename.to_vec(), Arc::new(followed), weight);
            first
        }
    };
    let snapshot = Arc::clone(&refreshed.current().value);
    match refreshed {
        Refresh::KeptLastGood { problem, .. } => Ok((snapshot, Some(problem))),
        _ => Ok((snapshot, None)),
    }
}

/// Message for a failed roll, in the original's words where it had some.
fn roll_error_message(error: &Error, filename: &str) -> String {
    match error {
        Error::Io { message, .. } => format!("Invalid filename specified: {filename} ({message})"),
        other => other.to_string(),
    }
}

/// Reads the server file `filename` and stores a continuum in `*contptr`.
/// Returns 1 on success, 0 on failure with the reason in `ketama_error()`.
///
/// # Safety
/// `contptr` is NULL or writable; `filename` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_roll(
    contptr: *mut ketama_continuum,
    filename: *mut c_char,
) -> c_int {
    guard_value(0, || {
        clear_last_error();
        let Some(contptr) = param!(arg_opt_out(contptr)) else {
            set_last_error(
                ketama_status::KETAMA_ERR_NULL_ARGUMENT,
                "ketama_roll: contptr is NULL",
            );
            return 0;
        };
        let Some(filename) = param!(arg_opt_cstr(filename)) else {
            set_last_error(
                ketama_status::KETAMA_ERR_NULL_ARGUMENT,
                "ketama_roll: filename is NULL",
            );
            return 0;
        };
        let name = filename.to_bytes();
        let shown = String::from_utf8_lossy(name).into_owned();
        match snapshot_for(name) {
            Ok((snapshot, problem)) => {
                if let Some(problem) = problem {
                    set_last_error(
                        ketama_status::KETAMA_KEPT_LAST_GOOD,
                        &format!(
                            "Kept the last good continuum of {shown}: {}",
                            roll_error_message(&problem, &shown)
                        ),
                    );
                }
                let numpoints = c_int::try_from(snapshot.records.len()).unwrap_or(c_int::MAX);
                let raw = box_out::<continuum>(CompatHandle {
                    cont: continuum {
                        numpoints,
                        modtime: &*snapshot.modtime as *const libc::time_t as *mut c_void,
                        array: snapshot.records.as_mut_ptr().cast(),
                    },
                    snapshot,
                });
                compat_handles::insert(raw as usize);
                *contptr = raw;
                1
            }
            Err(error) => {
                set_last_error(
                    ketama_status::of(&error),
                    &roll_error_message(&error, &shown),
                );
                let file_missing = matches!(error, Error::Io { .. })
                    && std::fs::metadata(OsStr::from_bytes(name)).is_err();
                if !file_missing {
                    *contptr = EMPTY.0.get();
                }
                0
            }
        }
    })
}

/// `ketama_roll` returning the continuum: NULL on failure, with the reason
/// in `ketama_error()` and the status in `ketama_last_status()` (no empty
/// continuum is handed out for a failed roll). Freed by `ketama_smoke`. For
/// callers to whom an out-parameter costs, as PHP's FFI, which parses a C
/// type to make one.
///
/// # Safety
/// `filename` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_roll_file(filename: *const c_char) -> ketama_continuum {
    let mut continuum = null_mut();
    // SAFETY: `filename` is the caller's, under this function's contract,
    // which `ketama_roll` has too (it never writes through it);
    // `contptr` is a local.
    match unsafe { ketama_roll(&mut continuum, filename.cast_mut()) } {
        1 => continuum,
        _ => null_mut(),
    }
}

/// Frees a continuum returned by `ketama_roll`. Only that continuum is
/// affected; NULL, an already smoked continuum and the empty continuum of a
/// failed roll are ignored.
///
/// # Safety
/// `contptr` is NULL or a value `ketama_roll` stored.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_smoke(contptr: ketama_continuum) {
    guard_value((), || {
        if !compat_handles::remove(contptr as usize) {
            return;
        }
        // SAFETY: the registry held it, so `ketama_roll` handed it out and
        // it was not smoked; it has just left the registry, so it is
        // released once.
        unsafe { handle_free(contptr, "contptr") };
    })
}

/// The original's search, straight over `array`: the first record whose
/// point is ≥ `hash`, wrapping to the first. For continuums that are not
/// live handles (a copy of the struct, say).
///
/// # Safety
/// `records` points to `count` readable `mcs` sorted by point.
unsafe fn search_records(records: *const mcs, count: usize, hash: u32) -> *mut mcs {
    // SAFETY: `count` readable records at `records` (this function's
    // contract).
    let slice = unsafe { std::slice::from_raw_parts(records, count) };
    let found = slice.partition_point(|m| m.point < hash);
    records.wrapping_add(if found == count { 0 } else { found }) as *mut mcs
}

/// Maps a NUL-terminated key to the `mcs` of its server: the first point
/// ≥ `ketama_hashi(key)`, wrapping to the first point. Returns a pointer into
/// `cont->array`; NULL when `key` or `cont` is NULL or the continuum is empty.
///
/// # Safety
/// `cont` is NULL or a continuum from `ketama_roll` not yet smoked (or a
/// copy of one, or any continuum whose `array` holds `numpoints` sorted
/// records); `key` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_get_server(key: *mut c_char, cont: ketama_continuum) -> *mut mcs {
    guard_value(null_mut(), || {
        let (Some(key), Some(c)) = (param!(arg_opt_cstr(key)), param!(arg_opt_ref(cont))) else {
            return null_mut();
        };
        if c.numpoints <= 0 || c.array.is_null() {
            return c.array.cast::<mcs>();
        }
        let key = key.to_bytes();
        if !compat_handles::contains(cont as usize) {
            // SAFETY: `array` holds `numpoints` sorted records (the
            // contract of `ketama_get_server` for a continuum it did not
            // hand out).
            return unsafe {
                search_records(
                    c.array.cast(),
                    c.numpoints as usize,
                    ketama_core::hash::ketama_hash(key),
                )
            };
        }
        // SAFETY: the registry holds `cont`: a handle `ketama_roll` handed
        // out and that is not smoked.
        let Some(handle) = (unsafe { handle_opt(cont, "cont") }) else {
            return null_mut();
        };
        // The search reads the bucket index and the records themselves (not
        // the ring's own point array), so the record returned is in cache.
        let snapshot = &handle.snapshot;
        let hash = snapshot.ring.hash_key(key);
        match snapshot
            .ring
            .continuum()
            .locate_in(hash, snapshot.records.as_slice(), |r| r.point)
        {
            Some(index) => c.array.cast::<mcs>().wrapping_add(index),
            None => null_mut(),
        }
    })
}

/// Prints the continuum to C's stdout: `Numpoints in continuum: N`, then
/// `<ip> (<point>)` per point, or `Continuum empty`.
///
/// # Safety
/// `c` is NULL or a continuum from `ketama_roll` not yet smoked.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_print_continuum(c: ketama_continuum) {
    guard_value((), || {
        let Some(c) = param!(arg_opt_ref(c)) else {
            return;
        };
        // SAFETY: printf with matching format arguments.
        unsafe { libc::printf(c"Numpoints in continuum: %d\n".as_ptr(), c.numpoints) };
        if c.array.is_null() {
            // SAFETY: constant format string without arguments.
            unsafe { libc::printf(c"Continuum empty\n".as_ptr()) };
            return;
        }
        let records = c.array.cast::<McsRecord>();
        for i in 0..c.numpoints.max(0) as usize {
            // SAFETY: array holds numpoints records, each NUL-terminated within its 24 bytes.
            unsafe {
                let record = &*records.add(i);
                libc::printf(
                    c"%s (%u)\n".as_ptr(),
                    record.ip.as_ptr().cast::<c_char>(),
                    record.point,
                );
            }
        }
    })
}

/// Compares two `mcs` by point: −1, 0 or 1 (the address is ignored).
///
/// # Safety
/// Each argument is NULL or points to an `mcs`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_compare(a: *mut mcs, b: *mut mcs) -> c_int {
    guard_value(0, || {
        let a = param!(arg_opt_ref(a)).map(|m| m.point);
        let b = param!(arg_opt_ref(b)).map(|m| m.point);
        match a.cmp(&b) {
            std::cmp::Ordering::Less => -1,
            std::cmp::Ordering::Equal => 0,
            std::cmp::Ordering::Greater => 1,
        }
    })
}

/// libketama's key hash: the first four bytes of MD5 of the NUL-terminated
/// string, little-endian. 0 for NULL.
///
/// # Safety
/// `inString` is NULL or NUL-terminated.
#[unsafe(no_mangle)]
#[allow(non_snake_case)]
pub unsafe extern "C" fn ketama_hashi(inString: *mut c_char) -> c_uint {
    guard_value(0, || {
        param!(arg_opt_cstr(inString))
            .map_or(0, |key| ketama_core::hash::ketama_hash(key.to_bytes()))
    })
}

/// Writes the MD5 digest of the NUL-terminated string into `md5pword[16]`.
/// Does nothing when either pointer is NULL.
///
/// # Safety
/// `inString` is NULL or NUL-terminated; `md5pword` is NULL or 16 writable bytes.
#[unsafe(no_mangle)]
#[allow(non_snake_case)]
pub unsafe extern "C" fn ketama_md5_digest(inString: *mut c_char, md5pword: *mut c_uchar) {
    guard_value((), || {
        let Some(text) = param!(arg_opt_cstr(inString)) else {
            return;
        };
        if md5pword.is_null() {
            return;
        }
        let digest = md5_digest(text.to_bytes());
        // SAFETY: `md5pword` has room for 16 bytes (the contract of
        // `ketama_md5_digest`).
        unsafe { ptr::copy_nonoverlapping(digest.as_ptr(), md5pword, 16) };
    })
}

/// The last error of this thread: `""` after a successful `ketama_roll`, the
/// reason after a failed one (also set by failing modern API calls). Like the
/// original's buffer, the pointer stays valid (a per-thread buffer
/// overwritten in place; it moves only for a message over 1,023 bytes).
#[unsafe(no_mangle)]
pub extern "C" fn ketama_error() -> *mut c_char {
    guard_value(c"".as_ptr() as *mut c_char, last_error_ptr)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_match_the_original_abi() {
        assert_eq!(std::mem::offset_of!(mcs, ip), 4);
        assert_eq!(std::mem::offset_of!(serverinfo, memory), 24);
        assert_eq!(std::mem::offset_of!(continuum, modtime), 8);
        assert_eq!(std::mem::offset_of!(continuum, array), 16);
    }
}
