//! What a `Ring` or `Continuum` holds: the core ring, which `close()`
//! releases, and its addresses as Python strings.
//!
//! The ring is reached through a pointer guarded by the GIL instead of a
//! lock: an uncontended read lock costs some 35 ns on a virtual machine, a
//! fifth of a whole single-key lookup. The module is built for the stable
//! ABI, which only interpreters with a GIL load (`lib.rs` refuses any
//! other), so code running attached to the interpreter excludes every other
//! attached thread. Every method below takes the `Python` token that proves
//! it is attached; readers use the ring only in pure Rust, never running
//! Python code (which could hand the GIL over) before they are done with it;
//! work done detached holds its own `Arc`.

use std::sync::Arc;
use std::sync::atomic::{AtomicPtr, Ordering};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use ketama_core::{Error, Ring};

use crate::errors::{OrRaise, closed};

/// Batches of at least this many keys are placed with the interpreter
/// detached (the GIL released), so other Python threads run meanwhile;
/// smaller ones cost less than a release and re-acquisition.
pub const DETACH_KEYS: usize = 64;

/// Runs `work` with the interpreter detached when `detach` is true (work
/// large enough to be worth releasing the GIL for), attached otherwise.
pub fn detach_when<T: Send>(py: Python<'_>, detach: bool, work: impl FnOnce() -> T + Send) -> T {
    if detach { py.detach(work) } else { work() }
}

/// A ring and its addresses; immutable but for `close()`.
///
/// The one pointer this module casts: `ring` holds one owner of an
/// `Arc<Ring>` (`Arc::into_raw` in [`Shared::build`]), given back once by
/// [`release`] (from `close()` or `drop`), and borrowed without a count of
/// its own only by code attached to the interpreter.
pub struct Shared {
    /// `Arc::into_raw` of the ring; null once closed.
    ring: AtomicPtr<Ring>,
    addresses: Vec<Py<PyString>>,
    /// The kind of handle, for the message of a closed one (`"Ring"`).
    kind: &'static str,
}

impl Shared {
    /// Builds a ring, or finds it in the process's ring cache
    /// (`ketama_core::ring_cache`), with the interpreter detached (a large
    /// ring takes milliseconds; reading a file may wait for a writer to
    /// finish).
    pub fn build(
        py: Python<'_>,
        kind: &'static str,
        build: impl FnOnce() -> Result<Arc<Ring>, Error> + Send,
    ) -> PyResult<Shared> {
        let ring = py.detach(build).or_raise(py)?;
        let addresses = ring
            .servers()
            .iter()
            .map(|server| decoded(py, server.address()))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Shared {
            ring: AtomicPtr::new(Arc::into_raw(ring).cast_mut()),
            addresses,
            kind,
        })
    }

    /// The open ring, borrowed while the caller stays attached.
    #[inline]
    fn ring<'a>(&'a self, _attached: Python<'a>) -> Option<&'a Ring> {
        let ring = self.ring.load(Ordering::Acquire);
        // SAFETY: a non-null pointer came from `Arc::into_raw` and its
        // reference is released only by `close()` or `drop`, which cannot
        // run while this thread is attached and has not run Python code
        // since (module documentation); the borrow ends with the token's.
        unsafe { ring.as_ref() }
    }

    /// Runs `read` on the ring; ValueError when it was closed. `read` must
    /// not run Python code: errors are raised by the caller, after it returns.
    #[inline]
    pub fn with<R>(&self, py: Python<'_>, read: impl FnOnce(&Ring) -> R) -> PyResult<R> {
        match self.ring(py) {
            Some(ring) => Ok(read(ring)),
            None => Err(closed(self.kind)),
        }
    }

    /// `read` on the ring (pure Rust, as for [`Shared::with`]); `None` when
    /// it was closed (or `read` found nothing).
    #[inline]
    pub fn peek<R>(&self, py: Python<'_>, read: impl FnOnce(&Ring) -> Option<R>) -> Option<R> {
        self.ring(py).and_then(read)
    }

    /// A reference of its own to the ring, for work done detached: closing
    /// the handle meanwhile releases the ring after that work.
    pub fn arc(&self, _attached: Python<'_>) -> PyResult<Arc<Ring>> {
        let ring = self.ring.load(Ordering::Acquire);
        if ring.is_null() {
            return Err(closed(self.kind));
        }
        // SAFETY: as in `Shared::ring`, the pointer is live while attached;
        // the count taken here is given back by the `Arc` returned.
        unsafe {
            Arc::increment_strong_count(ring);
            Ok(Arc::from_raw(ring))
        }
    }

    /// Releases the ring (a second call does nothing).
    pub fn close(&self, _attached: Python<'_>) {
        let ring = self.ring.swap(std::ptr::null_mut(), Ordering::AcqRel);
        // SAFETY: taken out of `self.ring` once; no reader holds a borrow
        // of it, since none runs while this thread is attached (module
        // documentation).
        unsafe { release(ring) }
    }

    /// Whether [`Shared::close`] was called.
    pub fn closed(&self) -> bool {
        self.ring.load(Ordering::Acquire).is_null()
    }

    /// The server addresses in input order (also after `close()`).
    pub fn addresses(&self) -> &[Py<PyString>] {
        &self.addresses
    }

    /// The address of server `index`.
    #[inline]
    pub fn address<'py>(&self, py: Python<'py>, index: usize) -> Bound<'py, PyString> {
        self.addresses[index].bind(py).clone()
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        let ring = std::mem::replace(self.ring.get_mut(), std::ptr::null_mut());
        // SAFETY: not yet given back (`close()` nulls the pointer when it
        // does); `&mut self`: no reader left.
        unsafe { release(ring) }
    }
}

/// Gives back the owner `Shared::build` took; null is ignored.
///
/// # Safety
/// `ring` is null or the pointer of `Shared::ring`, taken out of it, with
/// no borrow of the ring left.
unsafe fn release(ring: *mut Ring) {
    if !ring.is_null() {
        // SAFETY: from `Arc::into_raw` in `Shared::build`, released once
        // (the caller's contract).
        drop(unsafe { Arc::from_raw(ring) });
    }
}

/// An address as text: UTF-8, invalid bytes replaced as Python's
/// `bytes.decode("utf-8", "replace")` does.
fn decoded(py: Python<'_>, address: &[u8]) -> PyResult<Py<PyString>> {
    match std::str::from_utf8(address) {
        Ok(text) => Ok(PyString::new(py, text).unbind()),
        Err(_) => Ok(PyBytes::new(py, address)
            .call_method1("decode", ("utf-8", "replace"))?
            .cast_into::<PyString>()?
            .unbind()),
    }
}
