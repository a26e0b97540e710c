//! Status codes and the per-thread error message of the C ABI.

use std::cell::{Cell, RefCell};
use std::ffi::c_char;

/// Result of a modern API call: the status codes declared once in the core
/// (`ketama_core::Status`), where each error's code is decided.
pub use ketama_core::Status as ketama_status;

/// Room reserved for a message: the buffer (and so the pointer
/// `ketama_error()` returned) only moves when a longer message comes.
const MESSAGE_CAPACITY: usize = 1024;

thread_local! {
    /// This thread's last error, NUL-terminated, overwritten in place.
    static LAST_ERROR: RefCell<Vec<u8>> = RefCell::new(empty_message());
    /// The status that goes with [`LAST_ERROR`].
    static LAST_STATUS: Cell<ketama_status> = const { Cell::new(ketama_status::KETAMA_OK) };
}

fn empty_message() -> Vec<u8> {
    let mut buffer = Vec::with_capacity(MESSAGE_CAPACITY);
    buffer.push(0);
    buffer
}

/// Records `message` as this thread's last error, reported with `status`
/// (NUL bytes become `\0` text). During thread teardown, when the slots are
/// gone, both are dropped.
pub(crate) fn set_last_error(status: ketama_status, message: &str) {
    let _ = LAST_STATUS.try_with(|slot| slot.set(status));
    let _ = LAST_ERROR.try_with(|slot| {
        let mut buffer = slot.borrow_mut();
        buffer.clear();
        buffer.extend_from_slice(message.replace('\0', "\\0").as_bytes());
        buffer.push(0);
    });
}

/// Clears this thread's last error (as `ketama_roll` does on entry).
pub(crate) fn clear_last_error() {
    set_last_error(ketama_status::KETAMA_OK, "");
}

/// This thread's last error as a Rust string: what `ketama_error()` points
/// to, for Rust code that links the library's rlib (its tests).
pub fn last_error() -> String {
    LAST_ERROR
        .try_with(|slot| {
            let buffer = slot.borrow();
            String::from_utf8_lossy(&buffer[..buffer.len() - 1]).into_owned()
        })
        .unwrap_or_default()
}

/// Pointer to this thread's last error. It stays valid for the thread's
/// life; its text changes with the next failing call (or `ketama_roll`), and
/// the buffer moves only for a message longer than 1,023 bytes. During
/// thread teardown a static empty string.
pub(crate) fn last_error_ptr() -> *mut c_char {
    LAST_ERROR
        .try_with(|slot| slot.borrow().as_ptr() as *mut c_char)
        .unwrap_or(c"".as_ptr() as *mut c_char)
}

/// The status of the failure `ketama_error()` describes on this thread:
/// what the failed call returned (negated, for an index), or the failure
/// of a call that returns NULL instead (`ketama_ring_from_file_named`);
/// `KETAMA_KEPT_LAST_GOOD` when a last good ring or continuum was kept;
/// `KETAMA_OK` before any failure and after a successful `ketama_roll`.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_last_status() -> ketama_status {
    // Nothing here can panic (a thread-local `Cell` read, `try_with` during
    // teardown), so no panic boundary is needed.
    LAST_STATUS
        .try_with(Cell::get)
        .unwrap_or(ketama_status::KETAMA_OK)
}
