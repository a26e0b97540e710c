//! Ring constructors that take the flavour, hash and reading by name and
//! hand over a whole request's worth in one call: for callers that pay per
//! call and per argument (PHP's FFI), where resolving three names first
//! cost three more crossings. The names mean what they mean everywhere
//! (`RingConfig::from_names`, the registry); the rings come from the same
//! process-wide ring cache as every `ketama_ring_new*`.

use std::ffi::{CStr, OsStr, c_char};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;
use std::sync::{Mutex, PoisonError};

use super::boundary::{
    arg_chars, arg_cstr, arg_opt_cstr, arg_opt_str, arg_out, guard_status, param,
};
use super::handle::arc_out;
use super::ring::ketama_ring;
use super::status::ketama_status;
use ketama_core::parser::ParseMode;
use ketama_core::registry::Named;
use ketama_core::ring_cache;
use ketama_core::{Error, RingConfig};

/// The configuration of a flavour's and a hash's names (a hash of NULL:
/// the flavour's own) and option text, with the reading `parse_mode` names
/// (NULL: strict), resolved once per process for names a caller keeps
/// giving ([`Resolved`]).
fn config_named(
    flavour: &CStr,
    hash: Option<&CStr>,
    options: Option<&str>,
    parse_mode: Option<&CStr>,
) -> Result<(RingConfig, ParseMode), Error> {
    let names = [
        Some(flavour.to_bytes()),
        hash.map(CStr::to_bytes),
        options.map(str::as_bytes),
        parse_mode.map(CStr::to_bytes),
    ];
    let mut resolved = RESOLVED.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(hit) = resolved
        .iter()
        .find(|r| r.names.each_ref().map(Option::as_deref) == names)
    {
        return Ok((hit.config, hit.mode));
    }
    drop(resolved);
    let lossy = |name: &CStr| String::from_utf8_lossy(name.to_bytes()).into_owned();
    let hash = hash.map(lossy);
    let config = RingConfig::from_names(&lossy(flavour), hash.as_deref(), options)?;
    let mode = match parse_mode {
        None => ParseMode::default(),
        Some(name) => ParseMode::named_variant(&lossy(name))?,
    };
    resolved = RESOLVED.lock().unwrap_or_else(PoisonError::into_inner);
    if resolved.len() == RESOLVED_KEPT {
        resolved.remove(0);
    }
    resolved.push(Resolved {
        names: names.map(|name| name.map(Box::from)),
        config,
        mode,
    });
    Ok((config, mode))
}

/// Names resolved: a web request that builds its ring by name (PHP's
/// `Ring::fromFile`) gives the same ones on every call, and resolving them
/// (the registry's names, the hash and option checks) was half of what a
/// call cost in a request's cold caches.
struct Resolved {
    /// Flavour, hash, options and reading as given (`None`: NULL).
    names: [Option<Box<[u8]>>; 4],
    config: RingConfig,
    mode: ParseMode,
}

/// The last [`RESOLVED_KEPT`] distinct names resolved, oldest first.
static RESOLVED: Mutex<Vec<Resolved>> = Mutex::new(Vec::new());
const RESOLVED_KEPT: usize = 16;

/// `ketama_ring_new_from_file_with_options` with names: `flavour` a
/// flavour's name or alias (`"libketama"`, `"php-memcached"`), `hash` a key
/// hash as the flavour's peer spells it or `"default"` (NULL: the
/// flavour's own), `parse_mode` a reading's name (`"strict"`,
/// `"libketama"`, `"peers"`, `"flavour"`, ...; NULL: strict), `options`
/// NULL (none) or option text. An unknown name fails with
/// `KETAMA_ERR_INVALID_ARGUMENT` listing the known ones. Shared through
/// the ring cache as `ketama_ring_new_from_file` is.
///
/// # Safety
/// `path` and `flavour` are NUL-terminated strings; `hash`, `parse_mode`
/// and `options` are NULL or NUL-terminated strings; `ring_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_new_from_file_named(
    path: *const c_char,
    flavour: *const c_char,
    hash: *const c_char,
    parse_mode: *const c_char,
    options: *const c_char,
    ring_out: *mut *const ketama_ring,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(ring_out))?;
        let path = param!(arg_cstr(path))?;
        let (config, mode) = config_named(
            param!(arg_cstr(flavour))?,
            param!(arg_opt_cstr(hash)),
            param!(arg_opt_str(options))?,
            param!(arg_opt_cstr(parse_mode)),
        )?;
        let path = Path::new(OsStr::from_bytes(path.to_bytes()));
        *out = arc_out(ring_cache::global().from_file(path, config, mode)?);
        Ok(())
    })
}

/// A ring from a server list as PHP's `serialize()` writes an array of
/// servers, `serialized_len` bytes at `serialized`: a list of addresses
/// (`a:2:{i:0;s:14:"10.0.0.1:11211";i:1;...}`) or a map of address =>
/// integer weight (`a:1:{s:14:"10.0.0.1:11211";i:100;}`; 0: not given),
/// configured by names as `ketama_ring_new_from_file_named`. An equal
/// string with the same configuration is answered from the ring cache
/// without being read; an equal list given any other way shares the ring.
/// Another entry form (a nested array, a float, a negative weight) fails
/// with `KETAMA_ERR_INVALID_ARGUMENT` saying where; so does a server
/// `ketama_ring_new` would refuse.
///
/// # Safety
/// `serialized` is valid for `serialized_len` bytes (NULL only with 0);
/// `flavour` is a NUL-terminated string; `hash` and `options` are NULL or
/// NUL-terminated strings; `ring_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_new_serialized(
    serialized: *const c_char,
    serialized_len: usize,
    flavour: *const c_char,
    hash: *const c_char,
    options: *const c_char,
    ring_out: *mut *const ketama_ring,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(ring_out))?;
        let bytes = param!(arg_chars(serialized, serialized_len))?;
        let (config, _) = config_named(
            param!(arg_cstr(flavour))?,
            param!(arg_opt_cstr(hash)),
            param!(arg_opt_str(options))?,
            None,
        )?;
        *out = arc_out(ring_cache::global().from_serialized(bytes, config)?);
        Ok(())
    })
}

/// `ketama_ring_new_from_file_named` returning the ring: NULL on failure,
/// with `ketama_error()` saying why and `ketama_last_status()` giving the
/// status. For callers to whom an out-parameter costs: PHP's FFI parses a
/// C type to make one, on every request.
///
/// # Safety
/// As `ketama_ring_new_from_file_named`, which has `ring_out` besides.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_from_file_named(
    path: *const c_char,
    flavour: *const c_char,
    hash: *const c_char,
    parse_mode: *const c_char,
    options: *const c_char,
) -> *const ketama_ring {
    let mut ring = ptr::null();
    // SAFETY: the caller's pointers under this function's contract, which
    // is the callee's; `ring_out` is a local.
    unsafe { ketama_ring_new_from_file_named(path, flavour, hash, parse_mode, options, &mut ring) };
    ring
}

/// `ketama_ring_new_serialized` returning the ring: NULL on failure, with
/// `ketama_error()` saying why and `ketama_last_status()` giving the status.
///
/// # Safety
/// As `ketama_ring_new_serialized`, which has `ring_out` besides.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_from_serialized(
    serialized: *const c_char,
    serialized_len: usize,
    flavour: *const c_char,
    hash: *const c_char,
    options: *const c_char,
) -> *const ketama_ring {
    let mut ring = ptr::null();
    // SAFETY: the caller's pointers under this function's contract, which
    // is the callee's; `ring_out` is a local.
    unsafe {
        ketama_ring_new_serialized(
            serialized,
            serialized_len,
            flavour,
            hash,
            options,
            &mut ring,
        )
    };
    ring
}
