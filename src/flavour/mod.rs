//! Placement flavours: how each client family builds its continuum.
//!
//! A flavour turns a server list into `(point, server index)` pairs in
//! generation order, says how ties between equal points are resolved and
//! which key hash it uses by default. The ring and the lookup are shared.

pub mod libketama;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::{Error, ServerSpec};

/// A placement flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Flavour {
    /// The original libketama (Last.fm), bit for bit.
    #[default]
    Libketama,
}

/// The points a flavour generated for a server list.
#[derive(Debug, Clone)]
pub struct GeneratedPoints {
    /// `(point, server index)` in generation order.
    pub points: Vec<(u32, u32)>,
    /// Points per server, in server order.
    pub per_server: Vec<u32>,
    /// How equal points are resolved.
    pub ties: TiePolicy,
}

impl Flavour {
    /// Every flavour, in the order of their C ids.
    pub const ALL: &'static [Flavour] = &[Flavour::Libketama];

    /// The canonical name (as accepted by `--flavor`).
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Libketama => "libketama",
        }
    }

    /// Looks a flavour up by name or alias.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "libketama" | "ketama" => Some(Flavour::Libketama),
            _ => None,
        }
    }

    /// The key hash the flavour's peer uses unless told otherwise.
    pub fn default_hash(self) -> HashAlgorithm {
        match self {
            Flavour::Libketama => HashAlgorithm::Md5,
        }
    }

    /// Generates the continuum points for `servers`.
    pub fn generate(self, servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
        match self {
            Flavour::Libketama => libketama::generate(servers),
        }
    }
}
