//! Names and ids of the enums that cross the ABI, answered from their one
//! declaration in the core (`ketama_core::registry`): for each enum
//! `*_name` (id → canonical name), `*_from_name` (name or alias → id) and
//! `*_list` (every id). The bindings build their constants from these at
//! load time instead of keeping tables of their own.

use std::ffi::{CStr, c_char};

use super::boundary::{arg_cstr, arg_out, arg_slice_mut, guard_status, guard_value, param};
use super::status::ketama_status;
use ketama_core::Error;
use ketama_core::flavour::Flavour;
use ketama_core::hash::HashAlgorithm;
use ketama_core::parser::ParseMode;
use ketama_core::registry::Named;

/// The canonical name of the variant of `E` with C id `id` (the extra's
/// name for its id), or NULL for an id that names nothing.
pub(crate) fn name_of<E: Named>(id: u32) -> *const c_char {
    guard_value(std::ptr::null(), || match (E::from_id(id), E::C_EXTRA) {
        (Some(variant), _) => variant.name_c().as_ptr(),
        (None, Some(extra)) if extra.id == id => extra.name.as_ptr(),
        (None, _) => std::ptr::null(),
    })
}

/// Stores in `out` the C id of the variant of `E` called `name` (the
/// extra's id for its name): the body of every `*_from_name`.
pub(crate) fn id_of<E: Named>(name: &CStr, out: &mut u32) -> Result<(), Error> {
    let name = String::from_utf8_lossy(name.to_bytes());
    *out = match E::named(&name)? {
        Some(variant) => variant.id(),
        None => E::C_EXTRA.map_or(0, |extra| extra.id),
    };
    Ok(())
}

/// Writes every C id of `E` (the extra's too) into `ids` in ascending
/// order, as many as fit, and returns how many there are: the body of
/// every `*_list`. An `ids` that was refused (NULL with a capacity, a
/// capacity larger than memory) receives nothing.
pub(crate) fn list_of<E: Named>(ids: Result<&mut [u32], Error>) -> usize {
    let mut all: Vec<u32> = E::C_EXTRA
        .map(|extra| extra.id)
        .into_iter()
        .chain(E::ALL.iter().map(|v| v.id()))
        .collect();
    all.sort_unstable();
    for (slot, id) in ids.unwrap_or_default().iter_mut().zip(&all) {
        *slot = *id;
    }
    all.len()
}

/// The canonical name of flavour id `flavour` (a static NUL-terminated
/// string, e.g. `"libmemcached"`), or NULL for an unknown id.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_flavour_name(flavour: u32) -> *const c_char {
    name_of::<Flavour>(flavour)
}

/// Looks a flavour up by its name or an alias (`"libketama"`,
/// `"php-memcached"`, `"twemproxy"`, ...; case and `_`/`-` do not matter)
/// and stores its `ketama_flavour` id in `*out`. An unknown name is
/// `KETAMA_ERR_INVALID_ARGUMENT`, with the known names in the message.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_flavour_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<Flavour>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every flavour id, in order: writes at most `capacity` ids to `ids` and
/// returns how many there are (call with NULL and 0 to size the array).
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_flavour_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || {
        list_of::<Flavour>(param!(arg_slice_mut(ids, capacity)))
    })
}

/// Looks a key hash up by the spelling of flavour `flavour`'s peer
/// (twemproxy's `crc32` is the 15-bit crc, pecl's the full CRC-32, ...),
/// falling back to the canonical names, and stores its `ketama_hash` id in
/// `*out`. `"default"` gives `KETAMA_HASH_DEFAULT` (0). A name the peer does
/// not offer, or an unknown flavour id, is `KETAMA_ERR_INVALID_ARGUMENT`
/// naming the hashes the flavour offers.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_hash_from_name(
    flavour: u32,
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let name = param!(arg_cstr(name))?;
        let out = param!(arg_out(out))?;
        let flavour = Flavour::with_id(flavour)?;
        let name = String::from_utf8_lossy(name.to_bytes());
        *out = flavour.hash_named(&name)?.map_or(0, |hash| hash.id());
        Ok(())
    })
}

/// The canonical name of hash id `hash` (a static NUL-terminated string,
/// e.g. `"md5"`; `"default"` for `KETAMA_HASH_DEFAULT`), or NULL for an
/// unknown id.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_hash_name(hash: u32) -> *const c_char {
    name_of::<HashAlgorithm>(hash)
}

/// Looks a key hash up by its canonical name or a flavour-neutral alias
/// (`"md5"`, `"crc32a"`, `"oaat"`, ...; `"default"` is
/// `KETAMA_HASH_DEFAULT`) and stores its `ketama_hash` id in `*out`, for
/// callers with no flavour at hand (`ketama_hash_bytes`). A peer's own
/// spelling needs `ketama_hash_from_name`. An unknown name is
/// `KETAMA_ERR_INVALID_ARGUMENT`, with the known names in the message.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_hash_from_canonical_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<HashAlgorithm>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every hash id, `KETAMA_HASH_DEFAULT` first: writes at most `capacity`
/// ids to `ids` and returns how many there are. Which of them a flavour
/// offers, and under which spellings, `ketama_hash_from_name` answers.
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_hash_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || {
        list_of::<HashAlgorithm>(param!(arg_slice_mut(ids, capacity)))
    })
}

/// The name of parse mode id `mode` (`"strict"`, `"libketama"`, `"peers"`,
/// `"sockiopool"`), or NULL for an unknown id.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_parse_mode_name(mode: u32) -> *const c_char {
    name_of::<ParseMode>(mode)
}

/// Looks a parse mode up by name and stores its `ketama_parse_mode` id in
/// `*out`; an unknown name is `KETAMA_ERR_INVALID_ARGUMENT`.
///
/// # Safety
/// `name` is a NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_parse_mode_from_name(
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| id_of::<ParseMode>(param!(arg_cstr(name))?, param!(arg_out(out))?))
}

/// Every parse mode id: writes at most `capacity` ids to `ids` and returns
/// how many there are.
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_parse_mode_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || {
        list_of::<ParseMode>(param!(arg_slice_mut(ids, capacity)))
    })
}

/// Returns the name of a status code (`"KETAMA_ERR_PARSE"`), or
/// `"KETAMA_UNKNOWN_STATUS"` for a value that is not one.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_status_name(status: u32) -> *const c_char {
    let name = name_of::<ketama_status>(status);
    if name.is_null() {
        c"KETAMA_UNKNOWN_STATUS".as_ptr()
    } else {
        name
    }
}

/// Every status code: writes at most `capacity` of them to `ids` and
/// returns how many there are.
///
/// # Safety
/// `ids` is NULL (with `capacity` 0) or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_status_list(ids: *mut u32, capacity: usize) -> usize {
    guard_value(0, || {
        list_of::<ketama_status>(param!(arg_slice_mut(ids, capacity)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{CStr, CString};

    fn text(name: *const c_char) -> &'static str {
        assert!(!name.is_null());
        // SAFETY: non-NULL names are static NUL-terminated strings.
        unsafe { CStr::from_ptr(name) }.to_str().unwrap()
    }

    /// Lists every id of an enum through its `*_list` function, checking the
    /// count call and that a short array is filled without overrun.
    fn listed(list: unsafe extern "C" fn(*mut u32, usize) -> usize) -> Vec<u32> {
        // SAFETY: NULL with capacity 0 only asks for the count.
        let count = unsafe { list(std::ptr::null_mut(), 0) };
        let mut ids = vec![u32::MAX; count + 1];
        // SAFETY: `ids` is writable for `count + 1` ids.
        assert_eq!(unsafe { list(ids.as_mut_ptr(), count + 1) }, count);
        assert_eq!(ids.pop(), Some(u32::MAX), "wrote past the count");
        let mut short = [u32::MAX; 1];
        // SAFETY: `short` is writable for one id.
        assert_eq!(unsafe { list(short.as_mut_ptr(), 1) }, count);
        assert_eq!(short[0], ids[0]);
        ids
    }

    #[test]
    fn every_listed_id_has_a_name_that_finds_it_again() {
        type FromName = unsafe extern "C" fn(*const c_char, *mut u32) -> ketama_status;
        type List = unsafe extern "C" fn(*mut u32, usize) -> usize;
        type NameOf = extern "C" fn(u32) -> *const c_char;
        let enums: [(&str, List, NameOf, Option<FromName>); 3] = [
            (
                "flavour",
                ketama_flavour_list,
                ketama_flavour_name,
                Some(ketama_flavour_from_name),
            ),
            (
                "hash",
                ketama_hash_list,
                ketama_hash_name,
                Some(ketama_hash_from_canonical_name),
            ),
            (
                "parse mode",
                ketama_parse_mode_list,
                ketama_parse_mode_name,
                Some(ketama_parse_mode_from_name),
            ),
        ];
        for (what, list, name_of, from_name) in enums {
            let ids = listed(list);
            assert!(ids.len() >= 4, "{what}: {ids:?}");
            assert!(ids.is_sorted(), "{what}: every id, in order: {ids:?}");
            for id in ids {
                let name = text(name_of(id));
                let Some(from_name) = from_name else { continue };
                let mut found = u32::MAX;
                let upper = CString::new(name.to_ascii_uppercase()).unwrap();
                // SAFETY: a NUL-terminated name and a writable id.
                let status = unsafe { from_name(upper.as_ptr(), &mut found) };
                assert_eq!(status, ketama_status::KETAMA_OK);
                assert_eq!(found, id, "{what} {name}");
            }
        }
        assert_eq!(listed(ketama_flavour_list).len(), Flavour::ALL.len());
        assert_eq!(listed(ketama_hash_list)[0], 0);
        assert_eq!(text(ketama_hash_name(0)), "default");
        assert_eq!(text(ketama_parse_mode_name(3)), "sockiopool");
        assert!(ketama_parse_mode_name(4000).is_null());
        let mut mode = 0;
        let bogus = CString::new("csv").unwrap();
        // SAFETY: a NUL-terminated name and a writable id.
        let status = unsafe { ketama_parse_mode_from_name(bogus.as_ptr(), &mut mode) };
        assert_eq!(status, ketama_status::KETAMA_ERR_INVALID_ARGUMENT);
        let message = crate::status::last_error();
        assert!(
            message.contains("unknown parse mode \"csv\"") && message.contains("sockiopool"),
            "{message}"
        );
    }
}
