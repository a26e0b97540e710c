//! Flavour, hash, parse-mode and set-codec names, resolved by the core's
//! registry (`named_enum!`): the binding keeps no table of its own, so a
//! flavour or hash added to the core is known here with no edit.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyInt};

use ketama_core::Error;
use ketama_core::flavour::Flavour;
use ketama_core::hash::HashAlgorithm;
use ketama_core::parser::ParseMode;
use ketama_core::registry::{AbiEnum, Named};

use crate::errors::{OrRaise, value_error};
use crate::keys::{bytes_of, name_of};

/// A flavour given by name or alias (`str` or `bytes`) or by id; an unknown
/// one is `KetamaError` with the registry's message.
pub fn flavour_of(flavour: &Bound<'_, PyAny>) -> PyResult<Flavour> {
    let py = flavour.py();
    if let Ok(id) = flavour.cast::<PyInt>() {
        return c_id::<Flavour>(id).and_then(Flavour::with_id).or_raise(py);
    }
    Flavour::named_variant(&name_of(flavour, "flavour")?).or_raise(py)
}

/// An int as a C id of `E`; one that is no C id at all (negative, too
/// large) is the registry's unknown id, shown as it was given.
fn c_id<E: Named>(id: &Bound<'_, PyInt>) -> Result<u32, Error> {
    id.extract::<u32>().map_err(|_| E::unknown_id(id))
}

/// A key hash as `flavour`'s peer spells it; `None` or `"default"` is the
/// flavour's own (`None`). A hash the peer does not offer is `KetamaError`.
pub fn hash_of(
    flavour: Flavour,
    hash: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<HashAlgorithm>> {
    match hash {
        None => Ok(None),
        Some(hash) if hash.is_none() => Ok(None),
        Some(hash) => flavour
            .hash_named(&name_of(hash, "hash")?)
            .or_raise(hash.py()),
    }
}

/// A value of a set-codec or parse-mode enum given by name (any case, `-`
/// and `_` alike) or, where `ids` allows it, by C id. `None` is the extra
/// name (`"auto"`). An unknown name is ValueError with the library's
/// message; a name that is not `str`/`bytes` is ValueError too.
pub fn enum_of<E: Named>(value: &Bound<'_, PyAny>, what: &str, ids: bool) -> PyResult<Option<E>> {
    if ids && let Ok(id) = value.cast::<PyInt>() {
        return c_id::<E>(id)
            .and_then(E::with_id_or_extra)
            .or_raise(value.py());
    }
    if bytes_of(value, what).is_err() {
        return Err(PyValueError::new_err(format!(
            "{what} must be a name, not {}",
            value.repr()?
        )));
    }
    E::named(&name_of(value, what)?).map_err(value_error)
}

/// A value of an enum given by name where its extra name means nothing
/// ([`Named::named_variant`]); errors as [`enum_of`]'s.
pub fn variant_of<E: Named>(value: &Bound<'_, PyAny>, what: &str) -> PyResult<E> {
    if bytes_of(value, what).is_err() {
        return Err(PyValueError::new_err(format!(
            "{what} must be a name, not {}",
            value.repr()?
        )));
    }
    E::named_variant(&name_of(value, what)?).map_err(value_error)
}

/// flavour_id(flavour) -> int: the id of a flavour name or alias
/// ("libmemcached", "php-memcached", ...); an id is checked and returned.
#[pyfunction]
pub fn flavour_id(flavour: &Bound<'_, PyAny>) -> PyResult<u32> {
    Ok(flavour_of(flavour)?.id())
}

/// flavour_name(flavour) -> str: the canonical name of a flavour given by name, alias or id.
#[pyfunction]
pub fn flavour_name(flavour: &Bound<'_, PyAny>) -> PyResult<&'static str> {
    Ok(flavour_of(flavour)?.name())
}

/// hash_id(flavour, hash_name=None) -> int: the id of a key hash as the
/// flavour's peer spells it (None or "default": the flavour's own, 0).
#[pyfunction]
#[pyo3(signature = (flavour, hash_name=None))]
pub fn hash_id(flavour: &Bound<'_, PyAny>, hash_name: Option<&Bound<'_, PyAny>>) -> PyResult<u32> {
    let flavour = flavour_of(flavour)?;
    Ok(hash_of(flavour, hash_name)?.map_or(0, HashAlgorithm::id))
}

/// canonical_hash_id(hash_name) -> int: the id of a canonical hash name or
/// flavour-neutral alias ("md5", "crc32a"; "default" is 0).
#[pyfunction]
pub fn canonical_hash_id(hash_name: &Bound<'_, PyAny>) -> PyResult<u32> {
    let name = name_of(hash_name, "hash")?;
    Ok(HashAlgorithm::named(&name)
        .or_raise(hash_name.py())?
        .map_or(0, HashAlgorithm::id))
}

/// parse_mode_id(parse) -> int: the id of a server-file reading ("strict",
/// "libketama", "peers", "sockiopool", "nginx", "flavour"...); ValueError
/// naming the known ones otherwise.
#[pyfunction]
pub fn parse_mode_id(parse: &Bound<'_, PyAny>) -> PyResult<u32> {
    Ok(variant_of::<ParseMode>(parse, "parse mode")?.id())
}

/// hashi(key) -> int: libketama's key hash (ketama_hashi): word 0 of MD5(key), little-endian.
#[pyfunction]
pub fn hashi(key: &Bound<'_, PyAny>) -> PyResult<u32> {
    Ok(HashAlgorithm::Md5.hash(&bytes_of(key, "key")?))
}

/// names(kind) -> dict[str, int]: every name of one of the library's enums
/// and its id, by id: "flavour", "hash", "parse_mode", "status",
/// "set_encoding", "set_op", "set_reply", "set_side", "set_action",
/// "set_error_kind", "reload_policy" (the C enum's name without `ketama_`;
/// the core's list of the C ABI's enums, `ketama_core::abi::ENUMS`).
#[pyfunction]
pub fn names<'py>(py: Python<'py>, kind: &str) -> PyResult<Bound<'py, PyDict>> {
    let kind_of = |abi: &AbiEnum| abi.c_type.trim_start_matches("ketama_");
    let Some(abi) = ketama_core::abi::ENUMS
        .iter()
        .find(|abi| kind_of(abi) == kind)
    else {
        let kinds: Vec<&str> = ketama_core::abi::ENUMS.iter().map(kind_of).collect();
        return Err(PyValueError::new_err(format!(
            "unknown kind {kind:?} (known: {})",
            kinds.join(", ")
        )));
    };
    let dict = PyDict::new(py);
    for constant in abi.constants() {
        dict.set_item(constant.name, constant.id)?;
    }
    Ok(dict)
}
