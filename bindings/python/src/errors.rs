//! The library's errors as Python exceptions, and the Python types the
//! module returns (`ketama/_types.py`: `KetamaError`, `Location`, `Stats`,
//! `Compaction`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

use ketama_core::setcodec::SetError;
use ketama_core::{Error, Status};

/// The classes of `ketama._types`, imported once.
pub struct Types {
    /// `ketama.KetamaError`.
    pub error: Py<PyType>,
    /// `ketama.Location`.
    pub location: Py<PyType>,
    /// `ketama.Stats`.
    pub stats: Py<PyType>,
    /// `ketama.Compaction`.
    pub compaction: Py<PyType>,
}

static TYPES: PyOnceLock<Types> = PyOnceLock::new();

/// The classes of `ketama._types` (imported on first use).
pub fn types(py: Python<'_>) -> PyResult<&Types> {
    TYPES.get_or_try_init(py, || {
        let module = py.import("ketama._types")?;
        let class = |name: &str| -> PyResult<Py<PyType>> {
            Ok(module.getattr(name)?.cast_into::<PyType>()?.unbind())
        };
        Ok(Types {
            error: class("KetamaError")?,
            location: class("Location")?,
            stats: class("Stats")?,
            compaction: class("Compaction")?,
        })
    })
}

/// `KetamaError(message, status, status_name)` for a library error: the
/// status and its name are the ones the C ABI reports for it.
pub fn ketama_error(py: Python<'_>, error: &Error) -> PyErr {
    let status = Status::of(error);
    let raised = raise(py, &error.to_string(), status);
    if let Error::Set(set_error) = error
        && let Err(failed) = add_set_error(py, &raised, set_error)
    {
        return failed;
    }
    raised
}

/// A `KetamaError` with `message` and `status`.
pub fn raise(py: Python<'_>, message: &str, status: Status) -> PyErr {
    match types(py).and_then(|types| {
        types
            .error
            .bind(py)
            .call1((message, status.id(), status.name()))
    }) {
        Ok(instance) => PyErr::from_value(instance),
        Err(failed) => failed,
    }
}

/// Where a set value failed to decode: `kind`, `offset` and `record` on the exception.
fn add_set_error(py: Python<'_>, raised: &PyErr, error: &SetError) -> PyResult<()> {
    let value = raised.value(py);
    let attributes = [
        ("kind", error.kind.name().into_pyobject(py)?.into_any()),
        ("offset", error.offset.into_pyobject(py)?.into_any()),
        ("record", error.record.into_pyobject(py)?.into_any()),
    ];
    for (name, attribute) in attributes {
        value.setattr(name, attribute)?;
    }
    Ok(())
}

/// Converts a core result, raising `KetamaError` for an error.
pub trait OrRaise<T> {
    /// The value, or the error as a `KetamaError`.
    fn or_raise(self, py: Python<'_>) -> PyResult<T>;
}

impl<T> OrRaise<T> for Result<T, Error> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|error| ketama_error(py, &error))
    }
}

impl<T> OrRaise<T> for Result<T, SetError> {
    fn or_raise(self, py: Python<'_>) -> PyResult<T> {
        self.map_err(|error| ketama_error(py, &Error::Set(error)))
    }
}

/// A name the library does not know, where the binding raises ValueError
/// (parse modes and the set codec's names): the library's message.
pub fn value_error(error: Error) -> PyErr {
    PyValueError::new_err(error.to_string())
}

/// The ValueError of a closed handle (`"Ring is closed"`).
pub fn closed(what: &str) -> PyErr {
    PyValueError::new_err(format!("{what} is closed"))
}
