//! The one cast between a C handle and the Rust value behind it (after
//! rustls-ffi's `Castable`): each opaque handle type says what it stands for
//! and whether the library hands it out as an `Arc` (shared, cloneable) or a
//! `Box` (one owner). Every export goes through these functions; no other
//! module casts a handle pointer.

use std::sync::Arc;

use ketama_core::Error;

/// An opaque C handle type and the Rust value it stands for.
pub(crate) trait Handle {
    /// The value behind the handle.
    type Rust;
}

/// A handle handed out as `Arc::into_raw` (many owners: `*_clone`).
pub(crate) trait ArcHandle: Handle {}

/// A handle handed out as `Box::into_raw` (one owner).
pub(crate) trait BoxHandle: Handle {}

/// Hands `value` out as an `H` handle, to be released with [`arc_free`].
pub(crate) fn arc_out<H: ArcHandle>(value: Arc<H::Rust>) -> *const H {
    Arc::into_raw(value).cast()
}

/// The value behind `handle`; `None` for NULL.
///
/// # Safety
/// `handle` is NULL or a live handle from [`arc_out`], valid for `'a`.
pub(crate) unsafe fn arc_opt<'a, H: ArcHandle>(handle: *const H) -> Option<&'a H::Rust> {
    // SAFETY: a live handle is an `Arc<H::Rust>` pointer (per the caller).
    unsafe { handle.cast::<H::Rust>().as_ref() }
}

/// The value behind `handle`, or an error naming the NULL argument.
///
/// # Safety
/// As [`arc_opt`].
pub(crate) unsafe fn arc_ref<'a, H: ArcHandle>(
    handle: *const H,
    name: &'static str,
) -> Result<&'a H::Rust, Error> {
    // SAFETY: per the caller.
    unsafe { arc_opt(handle) }.ok_or(Error::NullArgument(name))
}

/// Another owner of the same value (NULL stays NULL).
///
/// # Safety
/// As [`arc_opt`].
pub(crate) unsafe fn arc_clone<H: ArcHandle>(handle: *const H) -> *const H {
    if !handle.is_null() {
        // SAFETY: a live handle is an `Arc<H::Rust>` pointer; the count
        // is raised for the copy handed back.
        unsafe { Arc::increment_strong_count(handle.cast::<H::Rust>()) };
    }
    handle
}

/// Releases one owner of the value; NULL is ignored.
///
/// # Safety
/// `handle` is NULL or a live handle from [`arc_out`]/[`arc_clone`], not
/// used afterwards.
pub(crate) unsafe fn arc_free<H: ArcHandle>(handle: *const H) {
    if !handle.is_null() {
        // SAFETY: a live handle is an `Arc<H::Rust>` pointer, released once.
        drop(unsafe { Arc::from_raw(handle.cast::<H::Rust>()) });
    }
}

/// Hands `value` out as an `H` handle, to be released with [`box_free`].
pub(crate) fn box_out<H: BoxHandle>(value: H::Rust) -> *mut H {
    Box::into_raw(Box::new(value)).cast()
}

/// The value behind `handle`; `None` for NULL.
///
/// # Safety
/// `handle` is NULL or a live handle from [`box_out`], valid for `'a` and
/// not mutated meanwhile.
pub(crate) unsafe fn box_opt<'a, H: BoxHandle>(handle: *const H) -> Option<&'a H::Rust> {
    // SAFETY: a live handle is a `Box<H::Rust>` pointer (per the caller).
    unsafe { handle.cast::<H::Rust>().as_ref() }
}

/// The value behind `handle`, or an error naming the NULL argument.
///
/// # Safety
/// As [`box_opt`].
pub(crate) unsafe fn box_ref<'a, H: BoxHandle>(
    handle: *const H,
    name: &'static str,
) -> Result<&'a H::Rust, Error> {
    // SAFETY: per the caller.
    unsafe { box_opt(handle) }.ok_or(Error::NullArgument(name))
}

/// The value behind `handle` for writing, or an error naming the NULL
/// argument.
///
/// # Safety
/// `handle` is NULL or a live handle from [`box_out`], valid for `'a` and
/// used by no one else meanwhile.
pub(crate) unsafe fn box_mut<'a, H: BoxHandle>(
    handle: *mut H,
    name: &'static str,
) -> Result<&'a mut H::Rust, Error> {
    // SAFETY: a live handle is a `Box<H::Rust>` pointer (per the caller).
    unsafe { handle.cast::<H::Rust>().as_mut() }.ok_or(Error::NullArgument(name))
}

/// Releases the value; NULL is ignored.
///
/// # Safety
/// `handle` is NULL or a live handle from [`box_out`], not used afterwards.
pub(crate) unsafe fn box_free<H: BoxHandle>(handle: *const H) {
    if !handle.is_null() {
        // SAFETY: a live handle is a `Box<H::Rust>` pointer, released once.
        drop(unsafe { Box::from_raw(handle.cast::<H::Rust>().cast_mut()) });
    }
}
