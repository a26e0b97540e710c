//! An enum of the C ABI read as data ([`AbiEnum`]): its C type, its
//! constants sorted by id, and its names by id and ids by name, for the
//! generator (`crates/ketama-gen`), the C ABI's `ketama_enum_*` functions
//! and the bindings.

use std::ffi::CStr;

use super::Named;
use crate::Error;

/// One C constant of an enum that crosses the ABI, as data: a variant, or
/// the extra id (`KETAMA_HASH_DEFAULT`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Constant {
    /// The C id.
    pub id: u32,
    /// The C constant (`KETAMA_FLAVOUR_NGINX`).
    pub c_name: &'static str,
    /// The canonical name (`"nginx"`; `"default"` for the extra id).
    pub name: &'static str,
    /// Other names the library accepts.
    pub aliases: &'static [&'static str],
    /// What it means, one line per doc line.
    pub doc: &'static str,
}

/// An enum that crosses the C ABI, as data: what the generator
/// (`crates/ketama-gen`) renders as C, PHP and Java, and what the bindings
/// list. [`crate::abi::ENUMS`] lists every one.
#[derive(Clone, Copy)]
pub struct AbiEnum {
    /// The C type name (`ketama_flavour`).
    pub c_type: &'static str,
    /// The C enum's documentation, one line per doc line.
    pub doc: &'static str,
    constants: fn() -> Vec<Constant>,
    name_c: fn(u32) -> Option<&'static CStr>,
    id_named: fn(&str) -> Result<u32, Error>,
}

impl AbiEnum {
    /// The enum `E`, documented for C by `doc`.
    pub const fn of<E: Named>(doc: &'static str) -> Self {
        AbiEnum {
            c_type: E::C_TYPE,
            doc,
            constants: constants_of::<E>,
            name_c: name_c_of::<E>,
            id_named: id_named::<E>,
        }
    }

    /// Every C constant, the extra id included, sorted by id whatever the
    /// order of the declaration.
    pub fn constants(&self) -> Vec<Constant> {
        (self.constants)()
    }

    /// The canonical name of C id `id` (the extra's name for its id),
    /// NUL-terminated; `None` for an id that names nothing.
    pub fn name_c(&self, id: u32) -> Option<&'static CStr> {
        (self.name_c)(id)
    }

    /// The C id called `name` (a canonical name or an alias, any case,
    /// `-` and `_` alike; the extra's name gives the extra's id), or the
    /// error of [`Named::named`] listing the known names.
    pub fn id_of(&self, name: &str) -> Result<u32, Error> {
        (self.id_named)(name)
    }
}

/// [`AbiEnum::name_c`] of `E`.
fn name_c_of<E: Named>(id: u32) -> Option<&'static CStr> {
    match (E::from_id(id), E::C_EXTRA) {
        (Some(variant), _) => Some(variant.name_c()),
        (None, Some(extra)) if extra.id == id => Some(extra.name),
        (None, _) => None,
    }
}

/// [`AbiEnum::id_of`] of `E`.
fn id_named<E: Named>(name: &str) -> Result<u32, Error> {
    Ok(match E::named(name)? {
        Some(variant) => variant.id(),
        None => E::C_EXTRA.map_or(0, |extra| extra.id),
    })
}

impl std::fmt::Debug for AbiEnum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AbiEnum")
            .field("c_type", &self.c_type)
            .field("constants", &self.constants())
            .finish()
    }
}

/// The constants of `E` sorted by id (for [`AbiEnum::of`]).
fn constants_of<E: Named>() -> Vec<Constant> {
    let extra = E::C_EXTRA.map(|extra| Constant {
        id: extra.id,
        c_name: extra.c_name,
        name: extra.name.to_str().unwrap_or_default(),
        aliases: &[],
        doc: extra.doc,
    });
    let mut constants: Vec<Constant> = extra
        .into_iter()
        .chain(E::ALL.iter().map(|v| Constant {
            id: v.id(),
            c_name: v.c_name(),
            name: v.name(),
            aliases: v.aliases(),
            doc: v.doc(),
        }))
        .collect();
    constants.sort_by_key(|c| c.id);
    constants
}
