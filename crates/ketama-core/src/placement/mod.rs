//! The building blocks placements are made of, apart from the clients'
//! files in [`crate::flavour`]: what a flavour declares about itself
//! ([`Placement`]) and what its build returns ([`GeneratedPoints`] for a
//! continuum, a [`PerKeyPlacement`](per_key::PerKeyPlacement) otherwise),
//! and the rules several clients share:
//!
//! * [`points`]: point labels, the float weight formula, MD5 in lanes,
//!   CRC-32 labels; [`servers`]: weights, `HOST:PORT`, node names;
//!   [`budget`]: the most points a placement may hold;
//! * [`prepare`]: a client's key preparation as a value; [`hash_tags`]:
//!   the Redis clients' `{tag}` rules; [`options`]: the settings users
//!   choose (points, hash tag, Envoy's sizes);
//! * [`replica_rule`]: how a key's replicas are listed;
//! * [`wide_ring`]: rings of points wider than 32 bits; [`slot_map`]: Redis
//!   Cluster's 16384 slots and the masters serving them;
//! * the two modulo schemes: [`bucket_list`] (`hash % buckets` over a
//!   weighted bucket list) and [`server_modulo`] (`hash % n` over the
//!   server list), with [`remainder`] (what is taken modulo, and the
//!   division);
//! * [`jump`]: the jump consistent hash of a 64-bit key hash over `n`
//!   buckets; [`natural_order`]: server names in `natsort`'s order.
//!
//! The searches on a continuum are in [`crate::search`].

pub mod bucket_list;
pub mod budget;
pub mod hash_pick;
pub mod hash_tags;
pub mod jump;
pub mod natural_order;
pub mod options;
pub mod per_key;
pub mod points;
pub mod prepare;
pub mod remainder;
pub mod replica_rule;
pub mod server_modulo;
pub mod servers;
pub mod slot_map;
pub mod wide_ring;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::parser::ParseMode;
use crate::search::Search;
use crate::{Error, ServerSpec};

use options::{Options, PointsOption};
use per_key::PerKey;
use prepare::Preparation;
use replica_rule::ReplicaRule;

/// The points a flavour generated for a server list.
#[derive(Debug, Clone)]
pub struct GeneratedPoints {
    /// `(point, server index)` in generation order.
    pub points: Vec<(u32, u32)>,
    /// How equal points are resolved.
    pub ties: TiePolicy,
    /// How a key's hash becomes a point.
    pub search: Search,
    /// What the client does to a key before hashing it (`None`: nothing).
    pub prepare: Option<&'static Preparation>,
}

/// How a flavour builds its placement from a server list.
#[derive(Debug, Clone, Copy)]
pub enum Build {
    /// A continuum: `(point, server)` pairs generated for the servers, with
    /// the key hash in use (some peers hash their points with it too) and
    /// the options set (checked against the placement's declaration).
    Continuum(fn(&[ServerSpec], HashAlgorithm, &Options) -> Result<GeneratedPoints, Error>),
    /// Each key placed on its own (rendezvous, modulo): no points.
    PerKey(fn(&[ServerSpec], &Options) -> Result<PerKey, Error>),
}

/// Everything about a flavour but its names: declared once, in the
/// flavour's own file, as a `static` the registry row points at.
#[derive(Debug)]
pub struct Placement {
    /// The key hashes its peer offers, its default first.
    pub hashes: &'static [HashAlgorithm],
    /// Spellings of key hashes particular to its peer (twemproxy's `crc32`
    /// is the 15-bit crc), looked up before the canonical names.
    pub hash_spellings: &'static [(&'static str, HashAlgorithm)],
    /// How a server file is read for it by default (`ketama find FILE`).
    pub file_syntax: ParseMode,
    /// The syntax its users write server lists in (`--servers-file`,
    /// `KETAMA_PARSE_FLAVOUR`): a peer-style list, nginx `upstream` blocks,
    /// or SockIOPool lines.
    pub list_syntax: ParseMode,
    /// How it is built.
    pub build: Build,
    /// Whether users set its points per server, and the peer's default.
    pub points: Option<PointsOption>,
    /// Whether users set a hash tag (twemproxy `hash_tag`).
    pub hash_tag: bool,
    /// The further options its users set (names from
    /// [`SETTINGS`](options::SETTINGS): Envoy's ring and table sizes).
    pub settings: &'static [&'static str],
    /// How it lists a key's replicas ([`ReplicaRule::Walk`] unless said).
    pub replicas: ReplicaRule,
}

impl Placement {
    /// A continuum of `hashes` (default first) read from peer-style lists.
    pub const fn continuum(
        hashes: &'static [HashAlgorithm],
        generate: fn(&[ServerSpec], HashAlgorithm, &Options) -> Result<GeneratedPoints, Error>,
    ) -> Placement {
        Placement {
            hashes,
            hash_spellings: &[],
            file_syntax: ParseMode::Strict,
            list_syntax: ParseMode::Peers,
            build: Build::Continuum(generate),
            points: None,
            hash_tag: false,
            settings: &[],
            replicas: ReplicaRule::Walk,
        }
    }

    /// A per-key placement of `hashes` read from peer-style lists.
    pub const fn per_key(
        hashes: &'static [HashAlgorithm],
        build: fn(&[ServerSpec], &Options) -> Result<PerKey, Error>,
    ) -> Placement {
        Placement {
            hashes,
            hash_spellings: &[],
            file_syntax: ParseMode::Strict,
            list_syntax: ParseMode::Peers,
            build: Build::PerKey(build),
            points: None,
            hash_tag: false,
            settings: &[],
            replicas: ReplicaRule::Walk,
        }
    }

    /// The same, with peer spellings of its hashes.
    pub const fn with_spellings(
        self,
        hash_spellings: &'static [(&'static str, HashAlgorithm)],
    ) -> Placement {
        Placement {
            hash_spellings,
            ..self
        }
    }

    /// The same, read from server lists of `list_syntax` (and server files
    /// of `file_syntax`).
    pub const fn with_syntax(self, file_syntax: ParseMode, list_syntax: ParseMode) -> Placement {
        Placement {
            file_syntax,
            list_syntax,
            ..self
        }
    }

    /// The same, with points per server its users set (`--points`).
    pub const fn with_points(self, points: PointsOption) -> Placement {
        Placement {
            points: Some(points),
            ..self
        }
    }

    /// The same, taking a hash tag (`--hash-tag`).
    pub const fn with_hash_tag(self) -> Placement {
        Placement {
            hash_tag: true,
            ..self
        }
    }

    /// The same, taking these further options (`--options NAME=VALUE`).
    pub const fn with_settings(self, settings: &'static [&'static str]) -> Placement {
        Placement { settings, ..self }
    }

    /// The same, listing a key's replicas by `replicas`.
    pub const fn with_replicas(self, replicas: ReplicaRule) -> Placement {
        Placement { replicas, ..self }
    }
}
