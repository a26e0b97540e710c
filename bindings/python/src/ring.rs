//! `ketama.Ring`: an immutable ring of any flavour, with single and batch
//! lookups, failover and the multi-GET planner.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyList, PyString, PyTuple, PyType};

use ketama_core::flavour::{Flavour, Options};
use ketama_core::parser::ParseMode;
use ketama_core::ring::Location;
use ketama_core::ring_cache;
use ketama_core::{Error, RingConfig, ServerSpec, split_packed};

use crate::errors::{OrRaise, ketama_error, types};
use crate::keys::{Held, bytes_of, name_of};
use crate::names::{flavour_of, variant_of};
use crate::shared::{DETACH_KEYS, Shared, detach_when};

/// An immutable consistent-hashing ring of any flavour; thread-safe.
///
/// Ring(servers, flavour="libketama", hash=None, options=None): `servers`
/// is a list of addresses, (address, weight) or (address, weight, name)
/// tuples, or a dict address -> weight; `options` are placement options
/// ("points=100", "hash_tag={}"). Ring.from_file(path, ...) reads a server
/// file. Close it with close() or a `with` block.
#[pyclass(module = "ketama", name = "Ring", frozen)]
pub struct Ring {
    shared: Shared,
    flavour: &'static str,
}

/// The path of a file argument: `str`, `bytes` or `os.PathLike`, as
/// `os.fsencode` gives it.
pub fn fs_path(path: &Bound<'_, PyAny>) -> PyResult<Vec<u8>> {
    let encoded = path.py().import("os")?.call_method1("fsencode", (path,))?;
    Ok(encoded.cast::<PyBytes>()?.as_bytes().to_vec())
}

/// The `ServerSpec`s of a list of addresses or tuples, or a dict address -> weight.
fn server_specs(servers: &Bound<'_, PyAny>) -> PyResult<Vec<ServerSpec>> {
    let py = servers.py();
    if servers.is_instance_of::<PyString>() || servers.is_instance_of::<PyBytes>() {
        return Err(PyTypeError::new_err(
            "servers must be a list of servers or a dict address -> weight, not one string",
        ));
    }
    let entries = match servers.cast::<PyDict>() {
        Ok(dict) => dict.items().into_any(),
        Err(_) => servers.clone(),
    };
    let mut specs = Vec::new();
    for entry in entries.try_iter()? {
        let entry = entry?;
        let (address, weight, name) =
            if entry.is_instance_of::<PyString>() || entry.is_instance_of::<PyBytes>() {
                (entry, None, None)
            } else {
                let parts = py.get_type::<PyTuple>().call1((&entry,))?;
                let parts = parts.cast::<PyTuple>()?;
                if !(1..=3).contains(&parts.len()) {
                    return Err(PyValueError::new_err(format!(
                        "a server is ADDRESS, (ADDRESS, WEIGHT) or (ADDRESS, WEIGHT, NAME), not {}",
                        parts.repr()?
                    )));
                }
                let item = |i: usize| parts.get_item(i).ok().filter(|v| !v.is_none());
                (parts.get_item(0)?, item(1), item(2))
            };
        let weight = match weight {
            None => 0,
            Some(weight) => {
                let weight = py.get_type::<PyInt>().call1((weight,))?;
                if weight.lt(0)? {
                    return Err(PyValueError::new_err(format!(
                        "server {}: weight must not be negative",
                        address.repr()?
                    )));
                }
                weight.extract::<u64>()?
            }
        };
        let address = bytes_of(&address, "server address")?;
        let name = name
            .as_ref()
            .map(|n| bytes_of(n, "server name"))
            .transpose()?;
        let spec = ServerSpec::checked(&address, Some(weight), name.as_deref());
        specs.push(spec.or_raise(py)?);
    }
    Ok(specs)
}

/// An optional argument: `None` when left out or given as None.
fn given<'a, 'py>(argument: Option<&'a Bound<'py, PyAny>>) -> Option<&'a Bound<'py, PyAny>> {
    argument.filter(|argument| !argument.is_none())
}

/// The ring configuration for a flavour argument (a name or an id; None:
/// the default), a hash name (None or `"default"`: the flavour's own) and
/// placement options (`"points=100"`, `"hash_tag={}"`; None: the peer's
/// defaults), built by the core ([`RingConfig::named`]).
fn config(
    py: Python<'_>,
    flavour: Option<&Bound<'_, PyAny>>,
    hash: Option<&Bound<'_, PyAny>>,
    options: Option<&Bound<'_, PyAny>>,
) -> PyResult<RingConfig> {
    let flavour = match given(flavour) {
        Some(flavour) => flavour_of(flavour)?,
        None => Flavour::default(),
    };
    let hash = given(hash).map(|h| name_of(h, "hash")).transpose()?;
    let options = match given(options) {
        Some(text) => Options::parse(&name_of(text, "options")?).or_raise(py)?,
        None => Options::default(),
    };
    RingConfig::named(flavour, hash.as_deref(), options).or_raise(py)
}

impl Ring {
    /// The shared ring (for `Continuum`).
    pub fn shared(&self) -> &Shared {
        &self.shared
    }

    /// A ring read from a file.
    pub fn read_file(
        py: Python<'_>,
        kind: &'static str,
        path: Vec<u8>,
        config: RingConfig,
        mode: ParseMode,
    ) -> PyResult<Ring> {
        let shared = Shared::build(py, kind, move || {
            ring_cache::global().from_file(Path::new(OsStr::from_bytes(&path)), config, mode)
        })?;
        Ok(Ring {
            shared,
            flavour: config.flavour.name(),
        })
    }

    /// A `Location` for where a key landed.
    pub fn location<'py>(&self, py: Python<'py>, at: Location) -> PyResult<Bound<'py, PyAny>> {
        let address = self.shared.address(py, at.server_index);
        types(py)?
            .location
            .bind(py)
            .call1((at.server_index, address, at.point, at.point_index))
    }

    /// Where `key` lands; `KetamaError` when no server can take it.
    pub fn locate(&self, key: &Bound<'_, PyAny>) -> PyResult<Location> {
        let py = key.py();
        let key = bytes_of(key, "key")?;
        self.shared
            .with(py, |ring| ring.locate(&key))?
            .ok_or_else(|| ketama_error(py, &Error::no_points()))
    }

    /// The index (input order) of the server for `key`: `Ring.server_index`
    /// and `Ring.server` (src/fast.rs) for what they do not answer directly.
    pub fn index_of(&self, key: &Bound<'_, PyAny>) -> PyResult<u32> {
        let py = key.py();
        let key = bytes_of(key, "key")?;
        self.shared
            .with(py, |ring| ring.server_index(&key))?
            .ok_or_else(|| ketama_error(py, &Error::no_points()))
    }

    fn indices(&self, py: Python<'_>, keys: &[&[u8]]) -> PyResult<Vec<u32>> {
        let ring = self.shared.arc(py)?;
        let mut out = vec![0u32; keys.len()];
        detach_when(py, keys.len() >= DETACH_KEYS, || {
            ring.find_server_indices(keys, &mut out)
        })
        .or_raise(py)?;
        Ok(out)
    }
}

#[pymethods]
impl Ring {
    #[new]
    #[pyo3(signature = (servers, flavour=None, hash=None, options=None))]
    fn new(
        py: Python<'_>,
        servers: &Bound<'_, PyAny>,
        flavour: Option<&Bound<'_, PyAny>>,
        hash: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Ring> {
        let specs = server_specs(servers)?;
        let config = config(py, flavour, hash, options)?;
        let shared = Shared::build(py, "Ring", move || {
            ring_cache::global().from_servers(specs, config)
        })?;
        Ok(Ring {
            shared,
            flavour: config.flavour.name(),
        })
    }

    /// Ring.from_file(path, flavour="libketama", hash=None, parse="strict",
    /// options=None): a ring from a server file read as `parse` says:
    /// "strict", "libketama", "peers", "sockiopool", "nginx", or "flavour"
    /// (the syntax the flavour's users write, as `ketama --servers-file`
    /// reads it). `options` are placement options as the library reads them
    /// ("points=100", "hash_tag={}"; None: the peer's defaults).
    #[classmethod]
    #[pyo3(signature = (path, flavour=None, hash=None, parse=None, options=None))]
    fn from_file(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        path: &Bound<'_, PyAny>,
        flavour: Option<&Bound<'_, PyAny>>,
        hash: Option<&Bound<'_, PyAny>>,
        parse: Option<&Bound<'_, PyAny>>,
        options: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Ring> {
        let mode = match parse {
            Some(parse) if !parse.is_none() => variant_of::<ParseMode>(parse, "parse mode")?,
            _ => ParseMode::Strict,
        };
        let config = config(py, flavour, hash, options)?;
        Ring::read_file(py, "Ring", fs_path(path)?, config, mode)
    }

    /// The canonical name of the ring's flavour.
    #[getter]
    fn flavour(&self) -> &'static str {
        self.flavour
    }

    /// The server addresses in input order.
    #[getter]
    fn servers<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        PyList::new(py, self.shared.addresses().iter().map(|a| a.bind(py)))
    }

    /// Points each server owns, in input order (0 for a flavour that is not a continuum).
    #[getter]
    fn point_counts(&self, py: Python<'_>) -> PyResult<Vec<u32>> {
        self.shared.with(py, |ring| {
            ring.servers().iter().map(|s| s.point_count()).collect()
        })
    }

    fn __len__(&self) -> usize {
        self.shared.addresses().len()
    }

    /// Number of points on the continuum.
    fn point_count(&self, py: Python<'_>) -> PyResult<usize> {
        self.shared.with(py, |ring| ring.continuum().len())
    }

    /// Every (point, server_index) in continuum order. A flavour that is not
    /// a continuum (pymemcache, python-memcached, cache-memcached...) raises
    /// KetamaError (KETAMA_ERR_INVALID_ARGUMENT) naming it.
    fn points(&self, py: Python<'_>) -> PyResult<Vec<(u32, u32)>> {
        self.shared
            .with(py, |ring| -> Result<Vec<(u32, u32)>, Error> {
                let continuum = ring.require_continuum()?;
                Ok(continuum
                    .points()
                    .iter()
                    .zip(continuum.owners())
                    .map(|(&point, &owner)| (point, owner))
                    .collect())
            })?
            .or_raise(py)
    }

    /// The Location of `key` (str is hashed as UTF-8).
    fn find<'py>(&self, py: Python<'py>, key: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
        let at = self.locate(key)?;
        self.location(py, at)
    }

    /// Like find(), skipping servers (indices or addresses) listed in `down`.
    fn find_avoiding<'py>(
        &self,
        py: Python<'py>,
        key: &Bound<'py, PyAny>,
        down: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut indices = Vec::new();
        for server in down.try_iter()? {
            let server = server?;
            if server.is_instance_of::<PyInt>() {
                indices.push(server.extract::<u32>()?);
                continue;
            }
            let mut found = None;
            for (index, address) in self.shared.addresses().iter().enumerate() {
                if PyAnyMethods::eq(address.bind(py).as_any(), &server)? {
                    found = Some(index as u32);
                    break;
                }
            }
            indices.push(found.ok_or_else(|| {
                let shown = server.repr().map(|r| r.to_string()).unwrap_or_default();
                PyValueError::new_err(format!("{shown} is not a server of this ring"))
            })?);
        }
        let key = bytes_of(key, "key")?;
        let at = self
            .shared
            .with(py, |ring| ring.locate_avoiding(&key, &indices))?
            .or_raise(py)?;
        self.location(py, at)
    }

    /// The indices (input order) of `n` distinct servers for `key`: its own
    /// server first, the others by the flavour's replica rule (all servers
    /// when `n` exceeds them, none for 0).
    fn replicas(&self, py: Python<'_>, key: &Bound<'_, PyAny>, n: usize) -> PyResult<Vec<usize>> {
        let key = bytes_of(key, "key")?;
        self.shared
            .with(py, |ring| ring.replicas(&key, n))?
            .or_raise(py)
    }

    /// Server indices for many keys in one native call (same answers as
    /// server_index()); from 64 keys on the GIL is released meanwhile.
    fn server_indices(&self, py: Python<'_>, keys: &Bound<'_, PyAny>) -> PyResult<Vec<u32>> {
        let held = Held::collect(keys)?;
        held.with_slices("key", |keys| self.indices(py, keys))?
    }

    /// Server indices for keys stored back to back in `packed`, key i being `lengths[i]` bytes.
    fn server_indices_packed(
        &self,
        py: Python<'_>,
        packed: &Bound<'_, PyAny>,
        lengths: &Bound<'_, PyAny>,
    ) -> PyResult<Vec<u32>> {
        let packed = bytes_of(packed, "packed keys")?;
        let lengths = lengths
            .try_iter()?
            .map(|length| length?.extract::<u32>())
            .collect::<PyResult<Vec<u32>>>()?;
        let keys = split_packed(&packed, &lengths).or_raise(py)?;
        self.indices(py, &keys)
    }

    /// The multi-GET plan: [(address, [key, ...]), ...], one entry per server
    /// holding any of `keys`, servers in ring order and keys in input order,
    /// so a client sends one multi-get per server.
    fn group_keys<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyList>> {
        let held = Held::collect(keys)?;
        let ring = self.shared.arc(py)?;
        let groups = held.with_slices("key", |keys| {
            detach_when(py, keys.len() >= DETACH_KEYS, || ring.group_keys(keys))
        })?;
        let groups = groups.or_raise(py)?;
        let plan = PyList::empty(py);
        for group in groups {
            let members = PyList::new(py, group.key_indices.iter().map(|&i| &held.objects()[i]))?;
            plan.append((self.shared.address(py, group.server_index), members))?;
        }
        Ok(plan)
    }

    /// Server addresses for many keys: a list in key order, or for a dict
    /// of keys a dict of addresses under the same names.
    fn servers_for<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if let Ok(dict) = keys.cast::<PyDict>() {
            let names = dict.keys();
            let values = PyList::new(py, dict.values())?;
            let indices = self.server_indices(py, values.as_any())?;
            let out = PyDict::new(py);
            for (name, index) in names.iter().zip(indices) {
                out.set_item(name, self.shared.address(py, index as usize))?;
            }
            return Ok(out.into_any());
        }
        let indices = self.server_indices(py, keys)?;
        let addresses = indices
            .into_iter()
            .map(|index| self.shared.address(py, index as usize));
        Ok(PyList::new(py, addresses)?.into_any())
    }

    /// Whether close() was called.
    #[getter]
    fn closed(&self) -> bool {
        self.shared.closed()
    }

    /// Releases the ring now (lookups running in other threads finish
    /// first); a second call does nothing.
    fn close(&self, py: Python<'_>) {
        self.shared.close(py);
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().shared.with(slf.py(), |_| ())?;
        Ok(slf)
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, py: Python<'_>, _exc: &Bound<'_, PyTuple>) {
        self.close(py);
    }

    fn __repr__(&self) -> String {
        let state = if self.shared.closed() {
            "closed".to_string()
        } else {
            format!("{} servers", self.shared.addresses().len())
        };
        format!("<ketama.Ring {}, {state}>", self.flavour)
    }
}
