//! Placements that are not continuums: each key is placed on its own
//! (scored, bucketed, taken modulo the servers), behind one trait the ring
//! calls; and [`Location`], where a key landed, for both kinds.

use std::borrow::Cow;
use std::sync::Arc;

use crate::hash::HashAlgorithm;

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

    /// The bytes it holds on the heap (tables, names): what a cached ring
    /// of it weighs.
    fn heap_bytes(&self) -> usize;

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

    /// For a placement that is a fixed table looked up by the low bits of
    /// the key hash (a slot map of 16384 slots: `hash & 0x3fff`): the
    /// owner of each entry, the table's length a power of two. Capacity
    /// planning counts entries instead of sampling keys (each entry is an
    /// equal share of the keyspace); `None` (the default) for the others.
    fn hash_table(&self) -> Option<&[u32]> {
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
