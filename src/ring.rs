//! The modern ring API: an opaque, immutable, thread-safe `ketama_ring`
//! built from a file or an in-memory server list, for any flavour.

use std::ffi::{OsStr, c_char};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::Arc;

use super::boundary::{
    arg_bytes, arg_chars, arg_cstr, arg_out, arg_slice, guard_index, guard_status, guard_value,
};
use super::handle::{ArcHandle, Handle, arc_clone, arc_free, arc_out, arc_ref};
use super::status::ketama_status;
use ketama_core::ring::Location;
use ketama_core::{Error, Options, Ring, RingConfig, ServerSpec};

/// An immutable consistent-hashing ring. Opaque; create it with
/// `ketama_ring_new` or `ketama_ring_new_from_file`, release it with
/// `ketama_ring_free`. Safe to use from many threads at once.
pub struct ketama_ring {
    _private: [u8; 0],
}

impl Handle for ketama_ring {
    type Rust = Ring;
}
impl ArcHandle for ketama_ring {}

/// One server of an in-memory list.
#[repr(C)]
pub struct ketama_server {
    /// Address bytes as the peer spells them (`10.0.0.1:11211`, `[::1]:11211`, a hostname).
    pub address: *const c_char,
    /// Length of `address` in bytes (no NUL needed).
    pub address_len: usize,
    /// Weight; 0 means "not given" (the flavour's default).
    pub weight: u64,
    /// Optional explicit server name (twemproxy); NULL for none.
    pub name: *const c_char,
    /// Length of `name` in bytes.
    pub name_len: usize,
}

/// Where a key landed. `address` points into the ring and stays valid while
/// the ring is alive; it is NUL-terminated. For a flavour that is not a
/// continuum, `point_index` and `point` are the bucket and the key hash that
/// chose it (python-memcached, Cache::Memcached) or the server index and its
/// winning score (pymemcache).
#[repr(C)]
pub struct ketama_server_ref {
    /// Index of the server in input order.
    pub server_index: u32,
    /// The continuum point that was hit.
    pub point: u32,
    /// Index of that point in continuum order.
    pub point_index: usize,
    /// The server address (NUL-terminated).
    pub address: *const c_char,
    /// Length of `address` without the NUL.
    pub address_len: usize,
}

/// Information about one server of a ring.
#[repr(C)]
pub struct ketama_server_info {
    /// The server address (NUL-terminated, owned by the ring).
    pub address: *const c_char,
    /// Length of `address` without the NUL.
    pub address_len: usize,
    /// The explicit name, or NULL.
    pub name: *const c_char,
    /// Length of `name`.
    pub name_len: usize,
    /// The weight as given; 0 when none was given.
    pub weight: u64,
    /// Number of points the server owns (0 for a flavour that is not a continuum).
    pub point_count: u32,
}

pub(crate) fn config(flavour: u32, hash: u32) -> Result<RingConfig, Error> {
    Ok(RingConfig::new(
        crate::names::from_id(flavour)?,
        crate::names::hash_from_id(hash)?,
    ))
}

/// [`config`] with the options text `options` (NULL: none), checked
/// against the flavour.
///
/// # Safety
/// `options` is NULL or a NUL-terminated string.
pub(crate) unsafe fn config_with(
    flavour: u32,
    hash: u32,
    options: *const c_char,
) -> Result<RingConfig, Error> {
    let mut config = config(flavour, hash)?;
    if !options.is_null() {
        // SAFETY: per the caller, a NUL-terminated string.
        let text = unsafe { arg_cstr(options, "options") }?;
        let text = text
            .to_str()
            .map_err(|_| Error::InvalidArgument("options is not UTF-8".into()))?;
        config.options = Options::parse(text)?;
        config.flavour.check_options(&config.options)?;
    }
    Ok(config)
}

fn hand_out(ring: Ring) -> *const ketama_ring {
    arc_out(Arc::new(ring))
}

/// Borrows the ring behind a handle.
///
/// # Safety
/// `ring` is NULL or a live handle from this module.
pub(crate) unsafe fn ring_ref<'a>(ring: *const ketama_ring) -> Result<&'a Ring, Error> {
    // SAFETY: per the caller, NULL or a live handle.
    unsafe { arc_ref(ring, "ring") }
}

/// Builds a ring from `count` servers.
///
/// `flavour` is a `ketama_flavour`, `hash` a `ketama_hash` the flavour's
/// peer offers (`KETAMA_ERR_INVALID_ARGUMENT`, naming what it offers,
/// otherwise). On success
/// `*ring_out` receives a new ring to release with `ketama_ring_free`.
///
/// # Safety
/// `servers` points to `count` valid entries (or is NULL with `count` 0);
/// `ring_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_new(
    servers: *const ketama_server,
    count: usize,
    flavour: u32,
    hash: u32,
    ring_out: *mut *const ketama_ring,
) -> ketama_status {
    // SAFETY: the same contract, with no options.
    unsafe {
        ketama_ring_new_with_options(servers, count, flavour, hash, std::ptr::null(), ring_out)
    }
}

/// `ketama_ring_new` with placement options: `options` is NULL (none) or
/// text such as `"points=100"` or `"hash_tag={}"` (`NAME=VALUE` separated by
/// commas; names: `points` — also `replicas`, `vnodes`, `ketama_points` —
/// and `hash_tag`). An option the flavour's peer does not offer, or a bad
/// value, fails with `KETAMA_ERR_INVALID_ARGUMENT` naming it.
///
/// # Safety
/// As `ketama_ring_new`; `options` is NULL or a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_new_with_options(
    servers: *const ketama_server,
    count: usize,
    flavour: u32,
    hash: u32,
    options: *const c_char,
    ring_out: *mut *const ketama_ring,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(ring_out, "ring_out") }?;
        // SAFETY: per the contract above.
        let config = unsafe { config_with(flavour, hash, options) }?;
        // SAFETY: per the contract above.
        let entries = unsafe { arg_slice(servers, count, "servers") }?;
        let specs = entries
            .iter()
            .map(|entry| {
                // SAFETY: each entry's pointers are valid for their lengths.
                let address = unsafe {
                    arg_bytes(entry.address.cast(), entry.address_len, "servers[].address")
                }?;
                let name = if entry.name.is_null() {
                    None
                } else {
                    // SAFETY: as above.
                    Some(
                        unsafe { arg_bytes(entry.name.cast(), entry.name_len, "servers[].name") }?
                            .to_vec(),
                    )
                };
                if address.is_empty() {
                    return Err(Error::InvalidArgument("server address is empty".into()));
                }
                Ok(ServerSpec {
                    address: address.to_vec(),
                    weight: (entry.weight != 0).then_some(entry.weight),
                    name,
                })
            })
            .collect::<Result<Vec<_>, Error>>()?;
        *out = hand_out(Ring::new(specs, config)?);
        Ok(())
    })
}

/// Builds a ring from a server file (`ADDRESS<TAB>WEIGHT` lines, or a
/// peer-style list with `KETAMA_PARSE_PEERS`).
///
/// `parse_mode` is a `ketama_parse_mode`: strict (default) rejects every
/// line the original would misread, naming the line; libketama reads like
/// the original; peers reads `HOST:PORT[:WEIGHT] [NAME]` entries.
///
/// # Safety
/// `path` is a NUL-terminated string; `ring_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_new_from_file(
    path: *const c_char,
    flavour: u32,
    hash: u32,
    parse_mode: u32,
    ring_out: *mut *const ketama_ring,
) -> ketama_status {
    // SAFETY: the same contract, with no options.
    unsafe {
        ketama_ring_new_from_file_with_options(
            path,
            flavour,
            hash,
            parse_mode,
            std::ptr::null(),
            ring_out,
        )
    }
}

/// `ketama_ring_new_from_file` with placement options (NULL: none; see
/// `ketama_ring_new_with_options`).
///
/// # Safety
/// As `ketama_ring_new_from_file`; `options` is NULL or a NUL-terminated
/// string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_new_from_file_with_options(
    path: *const c_char,
    flavour: u32,
    hash: u32,
    parse_mode: u32,
    options: *const c_char,
    ring_out: *mut *const ketama_ring,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(ring_out, "ring_out") }?;
        // SAFETY: per the contract above.
        let config = unsafe { config_with(flavour, hash, options) }?;
        // SAFETY: per the contract above.
        let path = unsafe { arg_cstr(path, "path") }?;
        let path = Path::new(OsStr::from_bytes(path.to_bytes()));
        *out = hand_out(Ring::from_file(
            path,
            config,
            crate::names::from_id(parse_mode)?,
        )?);
        Ok(())
    })
}

/// Returns a new reference to the same ring (release each with
/// `ketama_ring_free`); NULL for NULL.
///
/// # Safety
/// `ring` is NULL or a live ring.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_clone(ring: *const ketama_ring) -> *const ketama_ring {
    guard_value(std::ptr::null(), || {
        // SAFETY: per the contract above.
        unsafe { arc_clone(ring) }
    })
}

/// Releases a ring reference. NULL is ignored.
///
/// # Safety
/// `ring` is NULL or a live ring, not used after this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_free(ring: *const ketama_ring) {
    guard_value((), || {
        // SAFETY: per the contract above.
        unsafe { arc_free(ring) }
    })
}

pub(crate) fn server_ref(ring: &Ring, at: Location) -> ketama_server_ref {
    let address = ring.servers()[at.server_index].address_c();
    ketama_server_ref {
        server_index: at.server_index as u32,
        point: at.point,
        point_index: at.point_index,
        address: address.as_ptr(),
        address_len: address.to_bytes().len(),
    }
}

/// Finds the server for `key_len` bytes at `key` (any bytes, NUL included).
///
/// # Safety
/// `ring` is a live ring; `key` is valid for `key_len` bytes (or NULL with
/// `key_len` 0); `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_find_server(
    ring: *const ketama_ring,
    key: *const c_char,
    key_len: usize,
    out: *mut ketama_server_ref,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let ring = unsafe { ring_ref(ring) }?;
        // SAFETY: per the contract above.
        let key = unsafe { arg_chars(key, key_len, "key") }?;
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        let at = ring.locate(key).ok_or_else(Error::no_points)?;
        *out = server_ref(ring, at);
        Ok(())
    })
}

/// The index (input order) of the server for `key_len` bytes at `key`: the
/// same server as `ketama_find_server`, returned directly for callers that
/// pay per argument and per struct read (PHP FFI, JNA). Returns the index
/// (0 or more) on success, or a failed `ketama_status` negated
/// (`-KETAMA_ERR_NULL_ARGUMENT`, `-KETAMA_ERR_NO_SERVER_AVAILABLE`, ...),
/// with the message readable through `ketama_error()`.
///
/// # Safety
/// `ring` is a live ring; `key` is valid for `key_len` bytes (or NULL with
/// `key_len` 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_find_server_index(
    ring: *const ketama_ring,
    key: *const c_char,
    key_len: usize,
) -> i64 {
    guard_index(|| {
        // SAFETY: per the contract above.
        let ring = unsafe { ring_ref(ring) }?;
        // SAFETY: per the contract above.
        let key = unsafe { arg_chars(key, key_len, "key") }?;
        ring.server_index(key).ok_or_else(Error::no_points)
    })
}

/// Failover lookup: like `ketama_find_server`, but servers whose indices are
/// listed in `down` are skipped by walking on along the continuum to the
/// next live server (the ring is not rebuilt). Fails with
/// `KETAMA_ERR_NO_SERVER_AVAILABLE` when every server is down.
///
/// # Safety
/// As `ketama_find_server`; `down` points to `down_count` indices (or NULL with 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_find_server_avoiding(
    ring: *const ketama_ring,
    key: *const c_char,
    key_len: usize,
    down: *const u32,
    down_count: usize,
    out: *mut ketama_server_ref,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let ring = unsafe { ring_ref(ring) }?;
        // SAFETY: per the contract above.
        let key = unsafe { arg_chars(key, key_len, "key") }?;
        // SAFETY: per the contract above.
        let down = unsafe { arg_slice(down, down_count, "down") }?;
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        let at = ring.locate_avoiding(key, down)?;
        *out = server_ref(ring, at);
        Ok(())
    })
}

/// Number of servers on the ring (0 for NULL).
///
/// # Safety
/// `ring` is NULL or a live ring.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_server_count(ring: *const ketama_ring) -> usize {
    // SAFETY: per the contract above.
    guard_value(0, || {
        // SAFETY: per the contract above.
        unsafe { ring_ref(ring) }.map_or(0, |r| r.servers().len())
    })
}

/// Number of points on the continuum (0 for NULL, and 0 for a flavour that
/// is not a continuum: `KETAMA_FLAVOUR_PYMEMCACHE`, `_PYTHON_MEMCACHED`,
/// `_CACHE_MEMCACHED`).
///
/// # Safety
/// `ring` is NULL or a live ring.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_point_count(ring: *const ketama_ring) -> usize {
    // SAFETY: per the contract above.
    guard_value(0, || {
        // SAFETY: per the contract above.
        unsafe { ring_ref(ring) }.map_or(0, |r| r.continuum().len())
    })
}

/// Describes server `index` (input order).
///
/// # Safety
/// `ring` is a live ring; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_server(
    ring: *const ketama_ring,
    index: usize,
    out: *mut ketama_server_info,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let ring = unsafe { ring_ref(ring) }?;
        // SAFETY: per the contract above.
        let out = unsafe { arg_out(out, "out") }?;
        let server = ring
            .servers()
            .get(index)
            .ok_or_else(|| out_of_range("server", index, ring.servers().len()))?;
        let (name, name_len) = match server.name() {
            Some(name) => (name.as_ptr().cast::<c_char>(), name.len()),
            None => (std::ptr::null(), 0),
        };
        *out = ketama_server_info {
            address: server.address_c().as_ptr(),
            address_len: server.address().len(),
            name,
            name_len,
            weight: server.weight().unwrap_or(0),
            point_count: server.point_count(),
        };
        Ok(())
    })
}

/// Reads point `index` in continuum order: its value and owning server.
/// A flavour that is not a continuum (`KETAMA_FLAVOUR_PYMEMCACHE`,
/// `_PYTHON_MEMCACHED`, `_CACHE_MEMCACHED`) has no points:
/// `KETAMA_ERR_INVALID_ARGUMENT`, naming the flavour.
///
/// # Safety
/// `ring` is a live ring; `point` and `server_index` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_point(
    ring: *const ketama_ring,
    index: usize,
    point: *mut u32,
    server_index: *mut u32,
) -> ketama_status {
    guard_status(|| {
        // SAFETY: per the contract above.
        let ring = unsafe { ring_ref(ring) }?;
        // SAFETY: per the contract above.
        let point = unsafe { arg_out(point, "point") }?;
        // SAFETY: per the contract above.
        let server_index = unsafe { arg_out(server_index, "server_index") }?;
        let len = ring.require_continuum()?.len();
        if index >= len {
            return Err(out_of_range("point", index, len));
        }
        let at = ring.location(index);
        *point = at.point;
        *server_index = at.server_index as u32;
        Ok(())
    })
}

fn out_of_range(what: &str, index: usize, len: usize) -> Error {
    Error::OutOfRange(format!(
        "{what} index {index} is out of range (the ring has {len})"
    ))
}

/// The library version, e.g. `"1.0.0"` (static string).
#[unsafe(no_mangle)]
pub extern "C" fn ketama_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}
