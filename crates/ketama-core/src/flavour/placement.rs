//! What a flavour is, besides its names: the [`Placement`] each flavour's
//! file declares, and the registry row in [`super`] points at.

use std::borrow::Cow;
use std::sync::Arc;

use super::GeneratedPoints;
use super::options::{Options, PointsOption};
use crate::hash::HashAlgorithm;
use crate::parser::ParseMode;
use crate::{Error, ServerSpec};

/// Where a key landed: for a continuum the point (its index and value) and
/// its owner; for a modulo placement the bucket and the hash that chose it
/// (after any rehash); for rendezvous hashing the server and its winning
/// score.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// Index of the point in continuum order (the bucket, for modulo).
    pub point_index: usize,
    /// The point's value (the hash or score that chose the server).
    pub point: u32,
    /// Index of the owning server, in input order.
    pub server_index: usize,
}

/// A placement that is not a continuum: each key is placed on its own.
/// Its flavour's file implements it; the ring only calls these methods.
pub trait PerKeyPlacement: std::fmt::Debug + Send + Sync {
    /// What it does, as messages name it (`"rendezvous hashing"`).
    fn describe(&self) -> &'static str;

    /// Where `key` (whose key hash is `hash`) lands, skipping the servers
    /// that are down as its peer does; `None` when the peer gives up.
    fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location>;

    /// Where a key hash lands, for placements that place hashes (modulo);
    /// `None` for those that score keys.
    fn locate_hash(&self, _hash: u32) -> Option<Location> {
        None
    }

    /// Where `key` lands with every server up, in one call from the ring:
    /// its hash (after [`prepare_key`](Self::prepare_key)) placed by
    /// [`locate_hash`](Self::locate_hash), or else [`locate`](Self::locate).
    #[inline]
    fn locate_up(&self, key: &[u8], hash: HashAlgorithm) -> Option<Location> {
        self.locate_hash(hash.hash(&self.prepare_key(key)))
            .or_else(|| self.locate(key, hash, &|_| false))
    }

    /// The key as its peer hashes it (pecl memcache rewrites blanks and
    /// cuts at 250 bytes, gomemcache hashes the first 256): unchanged
    /// unless the placement says otherwise.
    fn prepare_key<'k>(&self, key: &'k [u8]) -> Cow<'k, [u8]> {
        Cow::Borrowed(key)
    }
}

/// A built per-key placement, shared by the clones of its ring.
pub type PerKey = Arc<dyn PerKeyPlacement>;

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
/// flavour's own file, as a `static`.
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
    /// [`SETTINGS`](super::options::SETTINGS): Envoy's ring and table sizes).
    pub settings: &'static [&'static str],
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
}
