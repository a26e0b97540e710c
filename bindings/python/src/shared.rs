//! What a `Ring` or `Continuum` holds: the core ring behind a lock that
//! `close()` empties, and its addresses as Python strings.

use std::sync::{Arc, PoisonError, RwLock};

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
pub struct Shared {
    ring: RwLock<Option<Arc<Ring>>>,
    addresses: Vec<Py<PyString>>,
    /// The kind of handle, for the message of a closed one (`"Ring"`).
    kind: &'static str,
}

impl Shared {
    /// Builds a ring with the interpreter detached (a large ring takes
    /// milliseconds; reading a file may wait for a writer to finish).
    pub fn build(
        py: Python<'_>,
        kind: &'static str,
        build: impl FnOnce() -> Result<Ring, Error> + Send,
    ) -> PyResult<Shared> {
        let ring = py.detach(build).or_raise(py)?;
        let addresses = ring
            .servers()
            .iter()
            .map(|server| decoded(py, server.address()))
            .collect::<PyResult<Vec<_>>>()?;
        Ok(Shared {
            ring: RwLock::new(Some(Arc::new(ring))),
            addresses,
            kind,
        })
    }

    /// Runs `read` on the ring; ValueError when it was closed. `read` runs
    /// under the lock `close()` takes, so it must not run Python code (which
    /// may hand the GIL to a thread waiting in `close()`): errors are
    /// raised by the caller, after it returns.
    #[inline]
    pub fn with<R>(&self, read: impl FnOnce(&Ring) -> R) -> PyResult<R> {
        let guard = self.ring.read().unwrap_or_else(PoisonError::into_inner);
        match guard.as_deref() {
            Some(ring) => Ok(read(ring)),
            None => Err(closed(self.kind)),
        }
    }

    /// `read` on the ring (pure Rust, as for [`Shared::with`]); `None` when
    /// it was closed (or `read` found nothing).
    #[inline]
    pub fn peek<R>(&self, read: impl FnOnce(&Ring) -> Option<R>) -> Option<R> {
        let guard = self.ring.read().unwrap_or_else(PoisonError::into_inner);
        guard.as_deref().and_then(read)
    }

    /// A reference to the ring for work done while detached: closing the
    /// handle meanwhile releases the ring after that work.
    pub fn arc(&self) -> PyResult<Arc<Ring>> {
        let guard = self.ring.read().unwrap_or_else(PoisonError::into_inner);
        guard.clone().ok_or_else(|| closed(self.kind))
    }

    /// Releases the ring (a second call does nothing).
    pub fn close(&self) {
        let ring = self
            .ring
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(ring);
    }

    /// Whether [`Shared::close`] was called.
    pub fn closed(&self) -> bool {
        self.ring
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
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
