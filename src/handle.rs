//! The only casts between a handle and the Rust value behind it (after
//! rustls-ffi's `Castable`): no other module calls `Box::into_raw`/
//! `from_raw` or `Arc::into_raw`/`from_raw`. Which handle stands for which
//! value, and who owns it, is declared once, in the crate root ("Handles"
//! in the crate documentation), with [`Castable`].
//!
//! The functions that take a handle pointer follow the argument helpers of
//! [`crate::boundary`] (a parameter is read with `param!`): the pointer is
//! NULL or what the library handed out as that handle and has not released.

use std::sync::Arc;

use ketama_core::Error;

/// An opaque C handle type: the Rust value it stands for and its owner.
pub(crate) trait Castable {
    /// [`OwnedBox`] or [`SharedArc`].
    type Ownership: Ownership;
    /// The value behind the handle.
    type Rust;
}

/// How a handle's value is released.
pub(crate) trait Ownership {
    /// Releases (one owner of) the value at `value`.
    ///
    /// # Safety
    /// `value` came from this ownership's hand-out and is released once.
    unsafe fn release<T>(value: *const T);
}

/// Handed out with `Box::into_raw`: one owner, released once.
pub(crate) enum OwnedBox {}

/// Handed out with `Arc::into_raw`: each clone is one more owner.
pub(crate) enum SharedArc {}

impl Ownership for OwnedBox {
    unsafe fn release<T>(value: *const T) {
        // SAFETY: from `Box::into_raw` in `box_out`, released once.
        drop(unsafe { Box::from_raw(value.cast_mut()) });
    }
}

impl Ownership for SharedArc {
    unsafe fn release<T>(value: *const T) {
        // SAFETY: from `Arc::into_raw` in `arc_out` (or a count added by
        // `handle_clone`), this owner released once.
        drop(unsafe { Arc::from_raw(value) });
    }
}

/// Hands `value` out as an `H` handle, to be released with [`handle_free`].
pub(crate) fn arc_out<H: Castable<Ownership = SharedArc>>(value: Arc<H::Rust>) -> *const H {
    Arc::into_raw(value).cast()
}

/// Hands `value` out as an `H` handle, to be released with [`handle_free`].
pub(crate) fn box_out<H: Castable<Ownership = OwnedBox>>(value: H::Rust) -> *mut H {
    Box::into_raw(Box::new(value)).cast()
}

/// The value behind `handle`; `None` for NULL (where NULL has a meaning:
/// a missing set, a count of 0).
///
/// # Safety
/// `handle` is NULL or a live `H` handed out by this library, valid for
/// `'a` and not written meanwhile.
pub(crate) unsafe fn handle_opt<'a, H: Castable>(
    handle: *const H,
    _name: &'static str,
) -> Option<&'a H::Rust> {
    // SAFETY: a live handle points to its value (`arc_out`, `box_out`).
    unsafe { handle.cast::<H::Rust>().as_ref() }
}

/// The value behind `handle`, or an error naming the NULL argument.
///
/// # Safety
/// As [`handle_opt`].
pub(crate) unsafe fn handle_ref<'a, H: Castable>(
    handle: *const H,
    name: &'static str,
) -> Result<&'a H::Rust, Error> {
    // SAFETY: the caller's contract is handle_opt's.
    unsafe { handle_opt(handle, name) }.ok_or(Error::NullArgument(name))
}

/// The value behind a handle with one owner, for writing, or an error
/// naming the NULL argument.
///
/// # Safety
/// `handle` is NULL or a live `H` handed out by this library, used by no
/// one else for `'a`.
pub(crate) unsafe fn handle_mut<'a, H: Castable<Ownership = OwnedBox>>(
    handle: *mut H,
    name: &'static str,
) -> Result<&'a mut H::Rust, Error> {
    // SAFETY: a live handle points to its boxed value, unshared (the
    // caller's contract).
    unsafe { handle.cast::<H::Rust>().as_mut() }.ok_or(Error::NullArgument(name))
}

/// Another owner of a shared value (NULL stays NULL).
///
/// # Safety
/// As [`handle_opt`].
pub(crate) unsafe fn handle_clone<H: Castable<Ownership = SharedArc>>(
    handle: *const H,
    _name: &'static str,
) -> *const H {
    if !handle.is_null() {
        // SAFETY: a live handle is an `Arc<H::Rust>` pointer; the count is
        // raised for the copy handed back.
        unsafe { Arc::increment_strong_count(handle.cast::<H::Rust>()) };
    }
    handle
}

/// One more owner of a shared value, as an `Arc` the library keeps (a
/// migration keeps its two rings), or an error naming the NULL argument.
///
/// # Safety
/// As [`handle_opt`].
pub(crate) unsafe fn handle_arc<H: Castable<Ownership = SharedArc>>(
    handle: *const H,
    name: &'static str,
) -> Result<Arc<H::Rust>, Error> {
    if handle.is_null() {
        return Err(Error::NullArgument(name));
    }
    let value = handle.cast::<H::Rust>();
    // SAFETY: a live handle is an `Arc<H::Rust>` pointer (`arc_out`): the
    // count is raised for the owner returned, so the caller's own stays.
    unsafe {
        Arc::increment_strong_count(value);
        Ok(Arc::from_raw(value))
    }
}

/// Releases the value (one owner of a shared one); NULL is ignored.
///
/// # Safety
/// `handle` is NULL or a live `H` handed out by this library, not used
/// afterwards (through this owner).
pub(crate) unsafe fn handle_free<H: Castable>(handle: *const H, _name: &'static str) {
    if !handle.is_null() {
        // SAFETY: a live handle, released once (the caller's contract).
        unsafe { H::Ownership::release(handle.cast::<H::Rust>()) }
    }
}

/// Hands bytes out as `(data, len)` for a `ketama_set_buffer`: `(NULL, 0)`
/// when empty, else a `Box<[u8]>` released by [`bytes_free`].
pub(crate) fn bytes_out(bytes: Vec<u8>) -> (*mut u8, usize) {
    if bytes.is_empty() {
        return (std::ptr::null_mut(), 0);
    }
    let boxed = bytes.into_boxed_slice();
    let len = boxed.len();
    (Box::into_raw(boxed).cast(), len)
}

/// Releases bytes from [`bytes_out`]; a NULL `data` is ignored.
///
/// # Safety
/// `(data, len)` is `(NULL, _)` or came from [`bytes_out`] and is released
/// once.
pub(crate) unsafe fn bytes_free(data: *mut u8, len: usize) {
    if !data.is_null() {
        // SAFETY: a boxed slice of `len` bytes (`bytes_out`), released once.
        drop(unsafe { Box::from_raw(std::ptr::slice_from_raw_parts_mut(data, len)) });
    }
}
