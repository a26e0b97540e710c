//! `ketama.Continuum`: the drop-in for the original `python_ketama`
//! module's `Continuum(filename)`, `get_server` and `get_points`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString, PyTuple};

use ketama_core::flavour::Flavour;
use ketama_core::parser::ParseMode;
use ketama_core::{Error, RingConfig};

use crate::errors::OrRaise;
use crate::ring::{Ring, fs_path};

/// The longest file name the original accepts (its `char[256]`).
const MAX_FILENAME: usize = 255;

/// Drop-in for python_ketama's `ketama.Continuum(filename)`.
///
/// Reads the file exactly as the original libketama does; lookups take str
/// (UTF-8) or bytes keys. Failures raise KetamaError with the library's
/// message; a filename over 255 bytes raises ValueError.
#[pyclass(module = "ketama", name = "Continuum", frozen)]
pub struct Continuum {
    ring: Ring,
    filename: Py<PyAny>,
}

#[pymethods]
impl Continuum {
    #[new]
    fn new(py: Python<'_>, filename: &Bound<'_, PyAny>) -> PyResult<Continuum> {
        let path = fs_path(filename)?;
        if path.len() > MAX_FILENAME {
            return Err(PyValueError::new_err(format!(
                "filename must be at most {MAX_FILENAME} bytes"
            )));
        }
        let config = RingConfig::flavour(Flavour::Libketama);
        let ring = Ring::read_file(py, "Continuum", path, config, ParseMode::Libketama)?;
        Ok(Continuum {
            ring,
            filename: filename.clone().unbind(),
        })
    }

    /// The file the continuum was read from, as given.
    #[getter]
    fn filename(&self, py: Python<'_>) -> Py<PyAny> {
        self.filename.clone_ref(py)
    }

    /// (point, ip): the continuum point `key` maps to and its server.
    fn get_server<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
    ) -> PyResult<(u32, Bound<'py, PyString>)> {
        let at = self.ring.locate(key)?;
        Ok((at.point, self.ring.shared().address(py, at.server_index)))
    }

    /// Every (point, ip) in continuum order.
    fn get_points<'py>(&self, py: Python<'py>) -> PyResult<Vec<(u32, Bound<'py, PyString>)>> {
        let shared = self.ring.shared();
        let points: Result<Vec<(u32, u32)>, Error> = shared.with(py, |ring| {
            let continuum = ring.require_continuum()?;
            Ok(continuum
                .points()
                .iter()
                .copied()
                .zip(continuum.owners().iter().copied())
                .collect())
        })?;
        Ok(points
            .or_raise(py)?
            .into_iter()
            .map(|(point, owner)| (point, shared.address(py, owner as usize)))
            .collect())
    }

    /// Releases the continuum now (it is also released when collected).
    fn close(&self, py: Python<'_>) {
        self.ring.shared().close(py);
    }

    fn __enter__(slf: Bound<'_, Self>) -> Bound<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) {
        self.close(py);
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let filename = self.filename.bind(py);
        let shown = match filename.cast::<PyBytes>() {
            Ok(bytes) => String::from_utf8_lossy(bytes.as_bytes()).into_owned(),
            Err(_) => filename.str()?.to_string(),
        };
        Ok(format!("<ketama.Continuum from '{shown}'>"))
    }
}
