//! `ketama._ketama`: the native module of the Python package `ketama`,
//! linked against `ketama-core` (no libketama.so to find, no ctypes). The
//! package's `__init__.py` re-exports it; `ketama/_types.py` defines the
//! exception and the result tuples it raises and returns, and
//! `ketama/_ketama.pyi` its types.
//!
//! Built by maturin (`bindings/python/pyproject.toml`) into an abi3 wheel
//! for CPython 3.8 and later. Every name (flavour, hash, parse mode, the set
//! codec's) is resolved by the core's registry; errors are
//! `ketama.KetamaError` with the library's message and status, as the C ABI
//! reports them.

use pyo3::exceptions::PyImportError;
use pyo3::prelude::*;

mod cache;
mod continuum;
mod errors;
mod fast;
mod keys;
mod migration;
mod names;
mod ring;
mod set;
mod shared;
mod writer;

/// Consistent hashing (libketama and every major memcached client's
/// placement) and the memcached set codec.
#[pymodule]
fn _ketama(m: &Bound<'_, PyModule>) -> PyResult<()> {
    // src/shared.rs relies on the GIL; the stable ABI it is built for is
    // not loaded by free-threaded interpreters, but say so if one tries.
    let sys = m.py().import("sys")?;
    if let Ok(gil_enabled) = sys.getattr("_is_gil_enabled")
        && !gil_enabled.call0()?.is_truthy()?
    {
        return Err(PyImportError::new_err(
            "ketama._ketama needs the GIL: this interpreter runs without one",
        ));
    }
    m.add_class::<ring::Ring>()?;
    fast::install(&m.py().get_type::<ring::Ring>())?;
    m.add_class::<continuum::Continuum>()?;
    m.add_class::<set::Set>()?;
    m.add_class::<writer::SetWriter>()?;
    m.add_class::<migration::Migration>()?;
    m.add_class::<migration::MigrationOp>()?;
    m.add_function(wrap_pyfunction!(names::flavour_id, m)?)?;
    m.add_function(wrap_pyfunction!(names::flavour_name, m)?)?;
    m.add_function(wrap_pyfunction!(names::hash_id, m)?)?;
    m.add_function(wrap_pyfunction!(names::canonical_hash_id, m)?)?;
    m.add_function(wrap_pyfunction!(names::parse_mode_id, m)?)?;
    m.add_function(wrap_pyfunction!(names::hashi, m)?)?;
    m.add_function(wrap_pyfunction!(names::names, m)?)?;
    m.add_function(wrap_pyfunction!(cache::ring_cache_configure, m)?)?;
    m.add_function(wrap_pyfunction!(cache::ring_cache_stats, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("DETACH_KEYS", shared::DETACH_KEYS)?;
    Ok(())
}
