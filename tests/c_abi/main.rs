//! The C ABI (`libketama.so.1`, the `ketama` package) as its users meet
//! it: the header, symbols and struct layouts from C and C++, every function
//! swept with bad arguments, the original API against the original C code
//! (and the SysV IPC it leaves), inputs that break the original, server
//! files read with bounds in every entry point, reloads under concurrent
//! writers, the ring cache (shared, counted, bounded; its continua shared
//! between processes), the multi-GET plan,
//! the set codec from C, and the C API beside libmemcached. One module per concept; shared helpers come from
//! `ketama_testkit`.

mod abi;
mod bad_input;
mod concurrency;
mod ffi_sweep;
mod ipc_hygiene;
mod libketama_oracle;
mod multiget;
mod peer_disagreements;
mod peer_libmemcached;
mod reload_races;
mod ring_cache;
mod server_files;
mod setcodec_c;
mod setcodec_flip;
mod shared_rings;

use std::path::Path;

/// `ketama_roll` on `path`: the continuum, or `ketama_error()`'s text.
fn compat_roll(path: &Path) -> Result<ketama::compat::ketama_continuum, String> {
    use ketama::compat::{ketama_error, ketama_roll};
    let name = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).unwrap();
    let mut cont = std::ptr::null_mut();
    // SAFETY: valid out-pointer and NUL-terminated file name.
    if unsafe { ketama_roll(&mut cont, name.as_ptr() as *mut std::ffi::c_char) } == 1 {
        Ok(cont)
    } else {
        // SAFETY: ketama_error returns a valid NUL-terminated string.
        Err(unsafe { std::ffi::CStr::from_ptr(ketama_error()) }
            .to_string_lossy()
            .into_owned())
    }
}
