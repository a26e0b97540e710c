//! The modern ring API: an opaque, immutable, thread-safe `ketama_ring`
//! built from a file or an in-memory server list, for any flavour.

use std::ffi::{OsStr, c_char};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use super::boundary::{
    arg_chars, arg_cstr, arg_opt_chars, arg_opt_str, arg_out, arg_slice, arg_slice_mut,
    guard_index, guard_status, guard_value, param,
};
use super::handle::{arc_out, handle_clone, handle_free, handle_opt, handle_ref};
use super::status::ketama_status;
use ketama_core::packed_servers::PackedView;
use ketama_core::parser::ParseMode;
use ketama_core::registry::Named;
use ketama_core::ring::Location;
use ketama_core::ring_cache;
use ketama_core::{Error, Ring, RingConfig, ServerSpec};

/// An immutable consistent-hashing ring. Opaque; create it with
/// `ketama_ring_new` or `ketama_ring_new_from_file`, release it with
/// `ketama_ring_free`. Safe to use from many threads at once.
pub struct ketama_ring {
    _private: [u8; 0],
}

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

/// The `ServerSpec`s of a `ketama_server` array, checked by the core.
///
/// # Safety
/// Each entry's `address` is valid for `address_len` bytes and its `name`
/// is NULL or valid for `name_len` bytes.
unsafe fn server_specs(entries: &[ketama_server]) -> Result<Vec<ServerSpec>, Error> {
    entries
        .iter()
        .map(|entry| {
            // SAFETY: the entry's address and name, valid for their lengths
            // (the caller's contract).
            let (address, name) = unsafe {
                (
                    arg_chars(entry.address, entry.address_len, "servers[].address")?,
                    arg_opt_chars(entry.name, entry.name_len, "servers[].name")?,
                )
            };
            ServerSpec::checked(address, Some(entry.weight), name)
        })
        .collect()
}

/// Builds a ring from `count` servers.
///
/// `flavour` is a `ketama_flavour`, `hash` a `ketama_hash` the flavour's
/// peer offers (`KETAMA_ERR_INVALID_ARGUMENT`, naming what it offers,
/// otherwise). On success `*ring_out` receives a reference to release with
/// `ketama_ring_free`: to the ring already built in this process from an
/// equal list (same addresses, weights and names in the same order) and
/// configuration, while the process's ring cache keeps it, else to a new
/// one. The cache keeps 64 rings and 256 MiB at most (least recently used
/// out; the environment variables `KETAMA_RING_CACHE_RINGS` and
/// `KETAMA_RING_CACHE_BYTES`, read at the first build, change that, 0
/// rings keeping none); a ring handed out stays valid until freed.
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
    // SAFETY: this call's own arguments, under the same contract, and no
    // options.
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
        let out = param!(arg_out(ring_out))?;
        let config = RingConfig::from_ids(flavour, hash, param!(arg_opt_str(options))?)?;
        let entries = param!(arg_slice(servers, count))?;
        // SAFETY: each entry's pointers are valid for their lengths (the
        // contract of `ketama_ring_new`).
        let specs = unsafe { server_specs(entries) }?;
        *out = arc_out(ring_cache::global().from_servers(specs, config)?);
        Ok(())
    })
}

/// `ketama_ring_new_with_options` for a list handed over as packed
/// columns, in one call whatever its length: `addresses` holds the `count`
/// addresses separated by NUL bytes (`"10.0.0.1:11211\0" "10.0.0.2:11211"`,
/// `addresses_len` bytes, no NUL after the last); `weights` is NULL (no
/// weights given) or `count` weights in decimal separated the same way (an
/// empty field or `0`: not given); `names` is NULL (no names) or `count`
/// names separated the same way (an empty field: none). A column with more
/// or fewer than `count` fields, a weight that is not a whole number, or a
/// server `ketama_ring_new` would refuse fails with
/// `KETAMA_ERR_INVALID_ARGUMENT` naming it. The ring is shared through the
/// ring cache as `ketama_ring_new` shares it (the same servers given either
/// way give the same ring).
///
/// # Safety
/// `addresses` is valid for `addresses_len` bytes (NULL only with 0);
/// `weights` and `names` are NULL or valid for their lengths; `options` is
/// NULL or a NUL-terminated string; `ring_out` is writable.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn ketama_ring_new_packed(
    count: usize,
    addresses: *const c_char,
    addresses_len: usize,
    weights: *const c_char,
    weights_len: usize,
    names: *const c_char,
    names_len: usize,
    flavour: u32,
    hash: u32,
    options: *const c_char,
    ring_out: *mut *const ketama_ring,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(ring_out))?;
        let config = RingConfig::from_ids(flavour, hash, param!(arg_opt_str(options))?)?;
        let packed = PackedView {
            count,
            addresses: param!(arg_chars(addresses, addresses_len))?,
            weights: param!(arg_opt_chars(weights, weights_len))?,
            names: param!(arg_opt_chars(names, names_len))?,
        };
        *out = arc_out(ring_cache::global().from_servers(packed.specs()?, config)?);
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
/// The ring is shared through the process's ring cache (as for
/// `ketama_ring_new`), keyed by the path as given, the reading and the
/// configuration: a file read when it had settled, whose path still names
/// the same inode with the same size, mtime and ctime, is not read again.
/// A file changed in place is read once it has been left alone for 100 ms
/// (until then the ring of its last good state is returned at once), and
/// never while a writer is at work; a file that cannot be read or parsed
/// now fails, naming the problem.
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
    // SAFETY: this call's own arguments, under the same contract, and no
    // options.
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
        let out = param!(arg_out(ring_out))?;
        let config = RingConfig::from_ids(flavour, hash, param!(arg_opt_str(options))?)?;
        let path = param!(arg_cstr(path))?;
        let path = Path::new(OsStr::from_bytes(path.to_bytes()));
        let mode = ParseMode::with_id(parse_mode)?;
        *out = arc_out(ring_cache::global().from_file(path, config, mode)?);
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
    guard_value(std::ptr::null(), || param!(handle_clone(ring)))
}

/// Releases a ring reference. NULL is ignored.
///
/// # Safety
/// `ring` is NULL or a live ring, not used after this call.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_free(ring: *const ketama_ring) {
    guard_value((), || param!(handle_free(ring)))
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
        let ring = param!(handle_ref(ring))?;
        let key = param!(arg_chars(key, key_len))?;
        let out = param!(arg_out(out))?;
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
        let ring = param!(handle_ref(ring))?;
        let key = param!(arg_chars(key, key_len))?;
        ring.server_index(key).ok_or_else(Error::no_points)
    })
}

/// The address of the server for `key_len` bytes at `key`, as a
/// NUL-terminated string owned by the ring (valid while the ring is): the
/// same server as `ketama_find_server`, for callers that turn a returned
/// `const char *` into a string themselves (PHP's FFI) and would otherwise
/// read it out of a struct. NULL on failure, with the message readable
/// through `ketama_error()` (`ketama_find_server_index` gives its status).
///
/// # Safety
/// As `ketama_find_server_index`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_find_server_address(
    ring: *const ketama_ring,
    key: *const c_char,
    key_len: usize,
) -> *const c_char {
    let mut address = std::ptr::null();
    guard_status(|| {
        let ring = param!(handle_ref(ring))?;
        let key = param!(arg_chars(key, key_len))?;
        let at = ring.locate(key).ok_or_else(Error::no_points)?;
        address = ring.servers()[at.server_index].address_c().as_ptr();
        Ok(())
    });
    address
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
        let ring = param!(handle_ref(ring))?;
        let key = param!(arg_chars(key, key_len))?;
        let down = param!(arg_slice(down, down_count))?;
        let out = param!(arg_out(out))?;
        let at = ring.locate_avoiding(key, down)?;
        *out = server_ref(ring, at);
        Ok(())
    })
}

/// Replica list: the `n` distinct servers for `key_len` bytes at `key`,
/// the server `ketama_find_server` gives first, the others by the
/// flavour's replica rule (a ring walk; libmemcached's flavours and the
/// modulo clients take the next servers in list order; see
/// docs/flavours.md). Writes their indices (input order) to
/// `indices[0..*count]` and their number, `n` or the number of servers if
/// that is less, to `*count`; `n` 0 lists none. A `capacity` under that
/// number is `KETAMA_ERR_INVALID_ARGUMENT`, and nothing is written.
///
/// # Safety
/// `ring` is a live ring; `key` is valid for `key_len` bytes (or NULL with
/// `key_len` 0); `indices` has room for `capacity` values (or is NULL with
/// `capacity` 0); `count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_find_replicas(
    ring: *const ketama_ring,
    key: *const c_char,
    key_len: usize,
    n: usize,
    indices: *mut u32,
    capacity: usize,
    count: *mut usize,
) -> ketama_status {
    guard_status(|| {
        let ring = param!(handle_ref(ring))?;
        let key = param!(arg_chars(key, key_len))?;
        let indices = param!(arg_slice_mut(indices, capacity))?;
        let count = param!(arg_out(count))?;
        let list = ring.replicas(key, n)?;
        if list.len() > indices.len() {
            return Err(Error::InvalidArgument(format!(
                "capacity {capacity} is less than the {} replicas listed",
                list.len()
            )));
        }
        for (slot, &server) in indices.iter_mut().zip(&list) {
            *slot = server as u32;
        }
        *count = list.len();
        Ok(())
    })
}

/// Number of servers on the ring (0 for NULL).
///
/// # Safety
/// `ring` is NULL or a live ring.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_server_count(ring: *const ketama_ring) -> usize {
    guard_value(0, || {
        param!(handle_opt(ring)).map_or(0, |r| r.servers().len())
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
    guard_value(0, || {
        param!(handle_opt(ring)).map_or(0, |r| r.continuum().len())
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
        let ring = param!(handle_ref(ring))?;
        let out = param!(arg_out(out))?;
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
        let ring = param!(handle_ref(ring))?;
        let point = param!(arg_out(point))?;
        let server_index = param!(arg_out(server_index))?;
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
