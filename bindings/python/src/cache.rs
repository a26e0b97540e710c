//! The process's ring cache (`ketama_core::ring_cache`), which `Ring`,
//! `Ring.from_file` and `Continuum` share rings through: its bounds set at
//! run time and what it holds and has done, as the C ABI's
//! `ketama_ring_cache_configure` and `ketama_ring_cache_get_stats` give them.

use pyo3::prelude::*;
use pyo3::types::PyDict;

use ketama_core::ring_cache::{self, Bounds};

/// ring_cache_configure(rings, bytes): keep at most `rings` rings and
/// `bytes` bytes (the least recently used dropped first, at once; 0 rings:
/// nothing is kept). Rings already made stay valid.
#[pyfunction]
pub fn ring_cache_configure(rings: usize, bytes: usize) {
    ring_cache::set_bounds(Bounds {
        entries: rings,
        weight: bytes,
    });
}

/// ring_cache_stats() -> dict with "rings", "bytes", "max_rings",
/// "max_bytes", "hits", "misses", "evictions", "attached" (rings mapped
/// from another process's image), "rolled" (rings built here), "sharing"
/// (whether large continua are shared between processes).
#[pyfunction]
pub fn ring_cache_stats(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let stats = ring_cache::global().stats();
    let dict = PyDict::new(py);
    dict.set_item("rings", stats.rings)?;
    dict.set_item("bytes", stats.bytes)?;
    dict.set_item("max_rings", stats.bounds.entries)?;
    dict.set_item("max_bytes", stats.bounds.weight)?;
    dict.set_item("hits", stats.hits)?;
    dict.set_item("misses", stats.misses)?;
    dict.set_item("evictions", stats.evictions)?;
    dict.set_item("attached", stats.attached)?;
    dict.set_item("rolled", stats.rolled)?;
    let (sharing, _) = ring_cache::global().sharing();
    dict.set_item("sharing", !matches!(sharing, ring_cache::Sharing::Off))?;
    Ok(dict)
}
