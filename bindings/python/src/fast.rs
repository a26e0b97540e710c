//! `Ring.server_index(key)` and `Ring.server(key)` as `METH_O` methods.
//!
//! Under abi3 for CPython 3.8 and 3.9 PyO3 declares methods
//! `METH_VARARGS | METH_KEYWORDS` (`METH_FASTCALL` entered the limited API in
//! 3.10): every call builds an argument tuple and parses it, which costs
//! about as much as the lookup itself. `METH_O`, in the limited API of every
//! version, passes the one argument as it is. These two methods are what a
//! client calls once per key, so they take the direct path: a `str` or
//! `bytes` key on an open ring is answered here; anything else (another
//! key type, a closed ring, an error) goes through the general code
//! (`Ring::index_of`), which raises as every other method does.

use std::ffi::{CStr, c_ulong};
use std::panic::{AssertUnwindSafe, catch_unwind};

use pyo3::exceptions::PyRuntimeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyType};

use crate::keys;
use crate::ring::Ring;

/// The bytes of an exact `str` or `bytes` key, read in place; `None` for
/// any other object, or a `str` without UTF-8 form (the general path
/// raises for it).
fn plain_key<'a>(key: &'a Bound<'_, PyAny>) -> Option<&'a [u8]> {
    if key.is_exact_instance_of::<PyString>() {
        // SAFETY: an exact str.
        keys::utf8_or_clear(unsafe { key.cast_unchecked::<PyString>() })
    } else if key.is_exact_instance_of::<PyBytes>() {
        // SAFETY: an exact bytes.
        Some(unsafe { key.cast_unchecked::<PyBytes>() }.as_bytes())
    } else {
        None
    }
}

/// A result for the interpreter: a new reference, or NULL with the error raised.
fn hand_back(py: Python<'_>, result: PyResult<Py<PyAny>>) -> *mut ffi::PyObject {
    match result {
        Ok(object) => object.into_ptr(),
        Err(error) => {
            error.restore(py);
            std::ptr::null_mut()
        }
    }
}

/// Runs one of the methods: `answer` turns the server index of a plain key
/// on an open ring into the result; `general` answers everything else.
///
/// # Safety
/// Called by the interpreter, attached, with `slf` a `Ring` (the method
/// descriptor checks the type of `self` before the call) and `key` a live
/// object, both borrowed for the call.
unsafe fn call(
    slf: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
    answer: fn(Python<'_>, &Ring, u32) -> *mut ffi::PyObject,
    general: fn(&Ring, &Bound<'_, PyAny>) -> PyResult<Py<PyAny>>,
) -> *mut ffi::PyObject {
    // SAFETY: the interpreter calls this attached (`call`'s contract).
    let py = unsafe { Python::assume_attached() };
    // SAFETY: `slf` and `key` are live borrowed references (contract above).
    let (slf, key) = unsafe { (Borrowed::from_ptr(py, slf), Borrowed::from_ptr(py, key)) };
    // SAFETY: the descriptor only calls this for instances of `Ring`.
    let ring = unsafe { slf.cast_unchecked::<Ring>() }.get();
    let key: &Bound<'_, PyAny> = &key;
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        let index =
            plain_key(key).and_then(|bytes| ring.shared().peek(py, |r| r.server_index(bytes)));
        index.map(|index| answer(py, ring, index))
    }));
    match outcome {
        Ok(Some(result)) => result,
        Ok(None) => Python::attach(|py| hand_back(py, general(ring, key))),
        Err(_) => Python::attach(|py| {
            let message = "internal error in ketama (please report): a lookup panicked";
            hand_back(py, Err(PyRuntimeError::new_err(message)))
        }),
    }
}

unsafe extern "C" fn server_index(
    slf: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    fn answer(_: Python<'_>, _: &Ring, index: u32) -> *mut ffi::PyObject {
        // SAFETY: attached (the caller's contract); returns a new
        // reference, or NULL with MemoryError raised.
        unsafe { ffi::PyLong_FromUnsignedLong(c_ulong::from(index)) }
    }
    fn general(ring: &Ring, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let index = ring.index_of(key)?;
        Ok(index.into_pyobject(key.py())?.into_any().unbind())
    }
    // SAFETY: the interpreter calls this as the METH_O method it is declared as.
    unsafe { call(slf, key, answer, general) }
}

unsafe extern "C" fn server(
    slf: *mut ffi::PyObject,
    key: *mut ffi::PyObject,
) -> *mut ffi::PyObject {
    fn answer(py: Python<'_>, ring: &Ring, index: u32) -> *mut ffi::PyObject {
        ring.shared()
            .address(py, index as usize)
            .into_any()
            .into_ptr()
    }
    fn general(ring: &Ring, key: &Bound<'_, PyAny>) -> PyResult<Py<PyAny>> {
        let index = ring.index_of(key)?;
        Ok(ring
            .shared()
            .address(key.py(), index as usize)
            .into_any()
            .unbind())
    }
    // SAFETY: the interpreter calls this as the METH_O method it is declared as.
    unsafe { call(slf, key, answer, general) }
}

/// The methods: name, C function, documentation (its first line the text
/// signature `inspect.signature` reads).
const METHODS: [(&CStr, ffi::PyCFunction, &CStr); 2] = [
    (
        c"server_index",
        server_index,
        c"server_index($self, key, /)\n--\n\nThe index (input order) of the server for `key` (str is hashed as UTF-8).",
    ),
    (
        c"server",
        server,
        c"server($self, key, /)\n--\n\nThe address of the server for `key`.",
    ),
];

/// Adds the methods to the `Ring` type.
pub fn install(ring_type: &Bound<'_, PyType>) -> PyResult<()> {
    for (name, function, doc) in METHODS {
        // The interpreter keeps a pointer to the definition: it lives as long as the process.
        let definition: &'static mut ffi::PyMethodDef = Box::leak(Box::new(ffi::PyMethodDef {
            ml_name: name.as_ptr(),
            ml_meth: ffi::PyMethodDefPointer {
                PyCFunction: function,
            },
            ml_flags: ffi::METH_O,
            ml_doc: doc.as_ptr(),
        }));
        // SAFETY: a live type object and a definition that outlives it.
        let descriptor = unsafe { ffi::PyDescr_NewMethod(ring_type.as_type_ptr(), definition) };
        // SAFETY: a new reference, or NULL with an exception set.
        let descriptor = unsafe { Bound::from_owned_ptr_or_err(ring_type.py(), descriptor) }?;
        ring_type.setattr(name.to_string_lossy().as_ref(), descriptor)?;
    }
    Ok(())
}
