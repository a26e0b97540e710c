//! Any enum of the C ABI by its C type name (`"ketama_migration_mode"`):
//! its ids, names and aliases, answered from the core's one list of the
//! ABI's enums (`ketama_core::abi::ENUMS`). An enum added to that list is
//! reachable here with no new export; the older enums keep their own
//! `*_name`, `*_from_name` and `*_list` functions too ([`crate::names`]).

use std::ffi::c_char;

use super::boundary::{arg_cstr, arg_out, arg_slice_mut, guard_status, guard_value, param};
use super::status::ketama_status;
use ketama_core::Error;
use ketama_core::abi::{self, ENUMS};
use ketama_core::registry::AbiEnum;

/// The enum of the ABI whose C type is `c_type`, or an error listing them.
fn enum_named(c_type: &[u8]) -> Result<&'static AbiEnum, Error> {
    let name = String::from_utf8_lossy(c_type);
    abi::find(&name).ok_or_else(|| {
        let known: Vec<&str> = ENUMS.iter().map(|e| e.c_type).collect();
        Error::InvalidArgument(format!(
            "unknown C enum {name:?} (known: {})",
            known.join(", ")
        ))
    })
}

/// The canonical name of id `id` of the enum whose C type is `c_type`
/// (`"ketama_migration_outcome"`, ...): a static NUL-terminated string, or
/// NULL for an unknown enum or an id that names nothing.
///
/// # Safety
/// `c_type` is a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_enum_name(c_type: *const c_char, id: u32) -> *const c_char {
    guard_value(std::ptr::null(), || {
        param!(arg_cstr(c_type))
            .and_then(|c_type| enum_named(c_type.to_bytes()))
            .ok()
            .and_then(|e| e.name_c(id))
            .map_or(std::ptr::null(), |name| name.as_ptr())
    })
}

/// Looks a name or an alias of the enum whose C type is `c_type` up (case
/// and `_`/`-` do not matter) and stores its id in `*out`. An unknown enum
/// or name is `KETAMA_ERR_INVALID_ARGUMENT`, with the known ones in the
/// message.
///
/// # Safety
/// `c_type` and `name` are NUL-terminated strings; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_enum_from_name(
    c_type: *const c_char,
    name: *const c_char,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let abi = enum_named(param!(arg_cstr(c_type))?.to_bytes())?;
        let name = String::from_utf8_lossy(param!(arg_cstr(name))?.to_bytes()).into_owned();
        let out = param!(arg_out(out))?;
        *out = abi.id_of(&name)?;
        Ok(())
    })
}

/// Every id of the enum whose C type is `c_type`, ascending: writes at most
/// `capacity` ids to `ids` and returns how many there are (call with NULL
/// and 0 to size the array); 0 for an unknown enum.
///
/// # Safety
/// `c_type` is a NUL-terminated string; `ids` is NULL (with `capacity` 0)
/// or writable for `capacity` ids.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_enum_list(
    c_type: *const c_char,
    ids: *mut u32,
    capacity: usize,
) -> usize {
    guard_value(0, || {
        let Ok(abi) = param!(arg_cstr(c_type)).and_then(|t| enum_named(t.to_bytes())) else {
            return 0;
        };
        let all: Vec<u32> = abi.constants().iter().map(|c| c.id).collect();
        if let Ok(ids) = param!(arg_slice_mut(ids, capacity)) {
            for (slot, id) in ids.iter_mut().zip(&all) {
                *slot = *id;
            }
        }
        all.len()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::{CStr, CString};

    #[test]
    fn every_enum_lists_names_and_finds_its_ids_again() {
        for abi in ENUMS {
            let c_type = CString::new(abi.c_type).unwrap();
            // SAFETY: a NUL-terminated type name; NULL with capacity 0 sizes.
            let count = unsafe { ketama_enum_list(c_type.as_ptr(), std::ptr::null_mut(), 0) };
            let mut ids = vec![u32::MAX; count];
            // SAFETY: `ids` is writable for `count` ids.
            let answer = unsafe { ketama_enum_list(c_type.as_ptr(), ids.as_mut_ptr(), count) };
            assert_eq!(answer, count);
            assert!(
                ids.windows(2).all(|p| p[0] < p[1]),
                "{}: {ids:?}",
                abi.c_type
            );
            for id in ids {
                // SAFETY: a NUL-terminated type name.
                let name = unsafe { ketama_enum_name(c_type.as_ptr(), id) };
                assert!(!name.is_null(), "{} {id}", abi.c_type);
                let mut found = u32::MAX;
                // SAFETY: NUL-terminated strings (the name is static); `found` is writable.
                let status = unsafe { ketama_enum_from_name(c_type.as_ptr(), name, &mut found) };
                assert_eq!(status, ketama_status::KETAMA_OK);
                assert_eq!(found, id, "{}", abi.c_type);
            }
        }
        let mode = c"ketama_migration_mode";
        let mut id = 9;
        // SAFETY: NUL-terminated strings; `id` is writable.
        let status = unsafe { ketama_enum_from_name(mode.as_ptr(), c"Warm-Up".as_ptr(), &mut id) };
        assert_eq!((status, id), (ketama_status::KETAMA_OK, 0));
        // SAFETY: NUL-terminated strings; `id` is writable.
        let status =
            unsafe { ketama_enum_from_name(c"ketama_colour".as_ptr(), c"red".as_ptr(), &mut id) };
        assert_eq!(status, ketama_status::KETAMA_ERR_INVALID_ARGUMENT);
        let message = crate::status::last_error();
        assert!(
            message.starts_with("unknown C enum \"ketama_colour\" (known: ketama_status, "),
            "{message}"
        );
        // SAFETY: a NUL-terminated type name.
        assert!(unsafe { ketama_enum_name(mode.as_ptr(), 77) }.is_null());
        // SAFETY: as above.
        let name = unsafe { CStr::from_ptr(ketama_enum_name(mode.as_ptr(), 2)) };
        assert_eq!(name.to_str().unwrap(), "gradual");
    }
}
