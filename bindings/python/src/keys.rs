//! Keys, members and values from Python objects: `bytes` as they are,
//! `str` as its UTF-8 bytes (read in place), `bytearray` and `memoryview`
//! copied.

use std::borrow::Cow;
use std::ffi::c_char;

use pyo3::exceptions::PyTypeError;
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyMemoryView, PyString};

unsafe extern "C" {
    /// CPython's UTF-8 view of a `str`, cached in the object: part of the C
    /// API since 3.3 and of the limited API from 3.10. PyO3 declares it
    /// only for 3.10 and later under abi3, and for 3.8 and 3.9 copies the
    /// bytes instead (about a third of a single lookup's cost).
    fn PyUnicode_AsUTF8AndSize(
        unicode: *mut ffi::PyObject,
        size: *mut ffi::Py_ssize_t,
    ) -> *const c_char;
}

/// The UTF-8 bytes of `text`, borrowed from the object.
pub fn utf8<'a>(text: &'a Bound<'_, PyString>) -> PyResult<&'a [u8]> {
    let mut size: ffi::Py_ssize_t = 0;
    // SAFETY: `text` is a live str (the caller holds a reference and the
    // interpreter is attached); the call returns NULL with an exception set
    // (a lone surrogate) or a pointer to `size` bytes owned by the object.
    let data = unsafe { PyUnicode_AsUTF8AndSize(text.as_ptr(), &mut size) };
    if data.is_null() {
        return Err(PyErr::fetch(text.py()));
    }
    let len = usize::try_from(size).unwrap_or(0);
    // SAFETY: the bytes belong to `text`, which is immutable and outlives
    // the borrow `'a` of the reference to it.
    Ok(unsafe { std::slice::from_raw_parts(data.cast::<u8>(), len) })
}

/// [`utf8`], or `None` with no exception left set (a lone surrogate).
pub fn utf8_or_clear<'a>(text: &'a Bound<'_, PyString>) -> Option<&'a [u8]> {
    utf8(text).ok()
}

/// A key (or member, value, name) as bytes: `bytes` and `str` without a
/// copy; `bytearray` and `memoryview` copied; anything else is TypeError
/// naming `what`.
pub fn bytes_of<'a>(object: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Cow<'a, [u8]>> {
    // Exact types first: a pointer comparison each (the checks below call
    // into the interpreter under abi3).
    if object.is_exact_instance_of::<PyString>() {
        // SAFETY: an exact str.
        return utf8(unsafe { object.cast_unchecked::<PyString>() }).map(Cow::Borrowed);
    }
    if object.is_exact_instance_of::<PyBytes>() {
        // SAFETY: an exact bytes.
        return Ok(Cow::Borrowed(
            unsafe { object.cast_unchecked::<PyBytes>() }.as_bytes(),
        ));
    }
    if let Ok(text) = object.cast::<PyString>() {
        return utf8(text).map(Cow::Borrowed);
    }
    if let Ok(bytes) = object.cast::<PyBytes>() {
        return Ok(Cow::Borrowed(bytes.as_bytes()));
    }
    if let Ok(array) = object.cast::<PyByteArray>() {
        return Ok(Cow::Owned(array.to_vec()));
    }
    if object.is_instance_of::<PyMemoryView>() {
        let copy = object.py().get_type::<PyBytes>().call1((object,))?;
        return Ok(Cow::Owned(copy.cast::<PyBytes>()?.as_bytes().to_vec()));
    }
    Err(PyTypeError::new_err(format!(
        "{what} must be str or bytes, not {}",
        object.get_type().name()?
    )))
}

/// Many keys taken from an iterable, each object held for as long as its
/// bytes are read (also while the interpreter is detached: another thread
/// may empty the list they came from meanwhile).
pub struct Held<'py> {
    objects: Vec<Bound<'py, PyAny>>,
}

impl<'py> Held<'py> {
    /// Holds every item of `keys` (a list, tuple or any iterable).
    pub fn collect(keys: &Bound<'py, PyAny>) -> PyResult<Self> {
        let objects = keys.try_iter()?.collect::<PyResult<Vec<_>>>()?;
        Ok(Held { objects })
    }

    /// The objects, in order.
    pub fn objects(&self) -> &[Bound<'py, PyAny>] {
        &self.objects
    }

    /// The keys' bytes, in order ([`bytes_of`]).
    pub fn bytes(&self, what: &str) -> PyResult<Vec<Cow<'_, [u8]>>> {
        self.objects.iter().map(|key| bytes_of(key, what)).collect()
    }

    /// Runs `work` on the keys' bytes, in order ([`bytes_of`]): read in
    /// place when every key is an exact `str` or `bytes` (the usual case,
    /// one pass and no copy), else through [`Held::bytes`].
    pub fn with_slices<R>(&self, what: &str, work: impl FnOnce(&[&[u8]]) -> R) -> PyResult<R> {
        let mut slices = Vec::with_capacity(self.objects.len());
        for key in &self.objects {
            if key.is_exact_instance_of::<PyString>() {
                // SAFETY: an exact str.
                slices.push(utf8(unsafe { key.cast_unchecked::<PyString>() })?);
            } else if key.is_exact_instance_of::<PyBytes>() {
                // SAFETY: an exact bytes.
                slices.push(unsafe { key.cast_unchecked::<PyBytes>() }.as_bytes());
            } else {
                let owned = self.bytes(what)?;
                let slices: Vec<&[u8]> = owned.iter().map(|key| key.as_ref()).collect();
                return Ok(work(&slices));
            }
        }
        Ok(work(&slices))
    }
}

/// A name argument (flavour, hash, parse mode, set encoding...): `str` or
/// `bytes`, as text.
pub fn name_of(object: &Bound<'_, PyAny>, what: &str) -> PyResult<String> {
    Ok(String::from_utf8_lossy(&bytes_of(object, what)?).into_owned())
}
