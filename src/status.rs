//! Status codes and the per-thread error message of the C ABI.

use std::cell::RefCell;
use std::ffi::c_char;

use ketama_core::Error;
use ketama_core::setcodec::{SetError, SetErrorKind};

/// Result of a modern API call. `KETAMA_OK` is 0; every other value comes
/// with a message readable through `ketama_error()` on the same thread.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ketama_status {
    /// Success.
    KETAMA_OK = 0,
    /// A required pointer argument was NULL.
    KETAMA_ERR_NULL_ARGUMENT = 1,
    /// An argument had a value the function does not accept.
    KETAMA_ERR_INVALID_ARGUMENT = 2,
    /// A file could not be opened or read.
    KETAMA_ERR_IO = 3,
    /// A server list line was rejected; the message names the line.
    KETAMA_ERR_PARSE = 4,
    /// The server list holds no usable server.
    KETAMA_ERR_NO_SERVERS = 5,
    /// An output buffer is too small.
    KETAMA_ERR_BUFFER_TOO_SMALL = 6,
    /// No server can take the key (empty continuum, or all servers down).
    KETAMA_ERR_NO_SERVER_AVAILABLE = 7,
    /// An index is past the end.
    KETAMA_ERR_OUT_OF_RANGE = 8,
    /// Not a failure: the output holds the last good ring of a server file
    /// whose current state cannot be used (`ketama_error()` says why).
    KETAMA_KEPT_LAST_GOOD = 9,
    /// A set value did not decode; the message names kind, byte offset and record.
    KETAMA_ERR_SET_DECODE = 100,
    /// A member cannot be encoded (empty, too long, whitespace or control byte).
    KETAMA_ERR_SET_MEMBER = 101,
    /// The set's value cannot grow: compact it or shard the set.
    KETAMA_ERR_SET_FULL = 102,
    /// Append and add kept failing while the key came and went.
    KETAMA_ERR_SET_CONTENDED = 103,
    /// The library hit an internal bug; the host process is unaffected.
    KETAMA_ERR_PANIC = 99,
}

impl ketama_status {
    /// The status an error maps to.
    pub fn of(error: &Error) -> Self {
        match error {
            Error::NullArgument(_) => ketama_status::KETAMA_ERR_NULL_ARGUMENT,
            Error::InvalidArgument(_) => ketama_status::KETAMA_ERR_INVALID_ARGUMENT,
            Error::Io { .. } => ketama_status::KETAMA_ERR_IO,
            Error::Parse { .. } => ketama_status::KETAMA_ERR_PARSE,
            Error::NoServers(_) => ketama_status::KETAMA_ERR_NO_SERVERS,
            Error::BufferTooSmall { .. } => ketama_status::KETAMA_ERR_BUFFER_TOO_SMALL,
            Error::NoServerAvailable(_) => ketama_status::KETAMA_ERR_NO_SERVER_AVAILABLE,
            Error::OutOfRange(_) => ketama_status::KETAMA_ERR_OUT_OF_RANGE,
            Error::Set(error) => Self::of_set_error(error),
        }
    }

    /// The status a set-codec error maps to.
    pub fn of_set_error(error: &SetError) -> Self {
        match error.kind {
            SetErrorKind::SetFull => ketama_status::KETAMA_ERR_SET_FULL,
            SetErrorKind::Contended => ketama_status::KETAMA_ERR_SET_CONTENDED,
            SetErrorKind::InvalidArgument => ketama_status::KETAMA_ERR_INVALID_ARGUMENT,
            _ if error.in_member => ketama_status::KETAMA_ERR_SET_MEMBER,
            _ => ketama_status::KETAMA_ERR_SET_DECODE,
        }
    }

    /// The status's name as a static NUL-terminated string.
    pub fn name(self) -> &'static std::ffi::CStr {
        match self {
            ketama_status::KETAMA_OK => c"KETAMA_OK",
            ketama_status::KETAMA_ERR_NULL_ARGUMENT => c"KETAMA_ERR_NULL_ARGUMENT",
            ketama_status::KETAMA_ERR_INVALID_ARGUMENT => c"KETAMA_ERR_INVALID_ARGUMENT",
            ketama_status::KETAMA_ERR_IO => c"KETAMA_ERR_IO",
            ketama_status::KETAMA_ERR_PARSE => c"KETAMA_ERR_PARSE",
            ketama_status::KETAMA_ERR_NO_SERVERS => c"KETAMA_ERR_NO_SERVERS",
            ketama_status::KETAMA_ERR_BUFFER_TOO_SMALL => c"KETAMA_ERR_BUFFER_TOO_SMALL",
            ketama_status::KETAMA_ERR_NO_SERVER_AVAILABLE => c"KETAMA_ERR_NO_SERVER_AVAILABLE",
            ketama_status::KETAMA_ERR_OUT_OF_RANGE => c"KETAMA_ERR_OUT_OF_RANGE",
            ketama_status::KETAMA_ERR_SET_DECODE => c"KETAMA_ERR_SET_DECODE",
            ketama_status::KETAMA_ERR_SET_MEMBER => c"KETAMA_ERR_SET_MEMBER",
            ketama_status::KETAMA_ERR_SET_FULL => c"KETAMA_ERR_SET_FULL",
            ketama_status::KETAMA_ERR_SET_CONTENDED => c"KETAMA_ERR_SET_CONTENDED",
            ketama_status::KETAMA_ERR_PANIC => c"KETAMA_ERR_PANIC",
            ketama_status::KETAMA_KEPT_LAST_GOOD => c"KETAMA_KEPT_LAST_GOOD",
        }
    }
}

/// Room reserved for a message: the buffer (and so the pointer
/// `ketama_error()` returned) only moves when a longer message comes.
const MESSAGE_CAPACITY: usize = 1024;

thread_local! {
    /// This thread's last error, NUL-terminated, overwritten in place.
    static LAST_ERROR: RefCell<Vec<u8>> = RefCell::new(empty_message());
}

fn empty_message() -> Vec<u8> {
    let mut buffer = Vec::with_capacity(MESSAGE_CAPACITY);
    buffer.push(0);
    buffer
}

/// Records `message` as this thread's last error (NUL bytes become `\0`
/// text). During thread teardown, when the slot is gone, it is dropped.
pub fn set_last_error(message: &str) {
    let _ = LAST_ERROR.try_with(|slot| {
        let mut buffer = slot.borrow_mut();
        buffer.clear();
        buffer.extend_from_slice(message.replace('\0', "\\0").as_bytes());
        buffer.push(0);
    });
}

/// Clears this thread's last error (as `ketama_roll` does on entry).
pub fn clear_last_error() {
    set_last_error("");
}

/// This thread's last error as a Rust string.
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

/// Returns the name of a status code (`"KETAMA_ERR_PARSE"`), or
/// `"KETAMA_UNKNOWN_STATUS"` for a value that is not one.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_status_name(status: u32) -> *const c_char {
    crate::boundary::guard_value(c"KETAMA_UNKNOWN_STATUS".as_ptr(), || {
        crate::boundary::status_from_u32(status)
            .map_or(c"KETAMA_UNKNOWN_STATUS".as_ptr(), |s| s.name().as_ptr())
    })
}
