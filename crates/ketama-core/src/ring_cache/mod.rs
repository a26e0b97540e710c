//! Rings that outlive their caller: building a ring from the same server
//! file, or from the same server list, with the same configuration,
//! returns the ring already built in this process, without reading or
//! rolling again. A short-lived caller (a PHP request, a C program's
//! connection) pays a lookup where it paid a roll.
//!
//! * **A file** is keyed by its path as given, the [`RingConfig`] and the
//!   [`ParseMode`], and followed as [`crate::file_ring`] follows it: a file
//!   read when it had settled whose path still names the same inode with
//!   the same size, mtime and ctime is answered with one `stat`
//!   ([`server_file::untouched`](crate::server_file::untouched)); a file
//!   changed in place is read once it has settled (until then, and while
//!   another thread reads it, the last good ring answers), and a read it
//!   disturbed is not taken, so a ring is never built from a torn read. A
//!   file that cannot be read or parsed now fails as a first read does
//!   (the last good ring stays kept for when it is good again).
//! * **A list** is keyed by its servers (address, weight, name, in order)
//!   and the configuration; a list handed over as PHP's `serialize()` of
//!   the array ([`crate::serialized_servers`]) also by those bytes, so that
//!   an equal string finds its ring without being read.
//! * **Bounded**: at most [`DEFAULT_BOUNDS`] rings and bytes
//!   ([`Ring::heap_bytes`]) are kept, the least recently used dropped first
//!   ([`Lru`]); [`set_bounds`], or the environment variables
//!   `KETAMA_RING_CACHE_RINGS` and `KETAMA_RING_CACHE_BYTES` read at the
//!   first use, change them (0 rings: nothing is kept). A ring handed out
//!   is shared ([`Arc`]): dropped from the cache, it stays valid for its
//!   holders.
//! * **Shared between processes**: a large continuum (1 MiB of points and
//!   more) rolled by one process is published as a file that the other
//!   processes of the user map instead of rolling ([`shared`]; the
//!   process's cache shares through `/dev/shm/ketama-<euid>` unless
//!   `KETAMA_SHARED_RINGS` or [`set_sharing`] says otherwise).

pub mod lru;
mod process;
pub mod shared;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

pub use lru::{Bounds, Lru};
pub use process::{DEFAULT_BOUNDS, global, set_bounds, set_sharing};
pub use shared::Sharing;

use crate::file_ring::{Followed, Refresh};
use crate::parser::ParseMode;
use crate::{Error, Ring, RingConfig, ServerSpec};

/// What a cached ring was built from.
#[derive(Debug, PartialEq, Eq)]
enum Source {
    File {
        path: PathBuf,
        mode: ParseMode,
        config: RingConfig,
    },
    List {
        servers: Vec<ServerSpec>,
        config: RingConfig,
    },
    /// A list as PHP's `serialize()` wrote it: the ring of its servers,
    /// found again by the bytes alone.
    Serialized { bytes: Vec<u8>, config: RingConfig },
}

/// A cached ring: a followed file's, or a list's.
#[derive(Debug, Clone)]
enum Cached {
    File(Arc<Followed<Ring>>),
    List(Arc<Ring>),
}

/// Rings by what they were built from (see the module docs).
#[derive(Debug)]
pub struct RingCache {
    rings: Lru<Source, Cached>,
    hits: AtomicU64,
    misses: AtomicU64,
    shared: shared::SharedRings,
    attached: AtomicU64,
    rolled: AtomicU64,
}

/// What a cache holds and has done, as [`RingCache::stats`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    /// Rings kept now.
    pub rings: usize,
    /// Bytes the kept rings weigh ([`Ring::heap_bytes`] and their keys).
    pub bytes: usize,
    /// The bounds in force.
    pub bounds: Bounds,
    /// Builds answered with a ring already built (a file looked at and
    /// found unchanged or not yet settled counts here).
    pub hits: u64,
    /// Builds that read or rolled: a first build, a changed file, a ring
    /// dropped earlier.
    pub misses: u64,
    /// Rings dropped to keep within the bounds.
    pub evictions: u64,
    /// Rings built with their continuum mapped from a shared image
    /// ([`shared`]): another process had rolled it.
    pub attached: u64,
    /// Rings built here (rolled, or placed per key).
    pub rolled: u64,
}

impl RingCache {
    /// An empty cache with these bounds.
    pub const fn new(bounds: Bounds) -> RingCache {
        RingCache {
            rings: Lru::new(bounds),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            shared: shared::SharedRings::off(),
            attached: AtomicU64::new(0),
            rolled: AtomicU64::new(0),
        }
    }

    /// Shares large continua with other processes through `sharing`
    /// ([`shared`]), publishing those whose points and owners weigh at
    /// least `threshold` bytes ([`shared::DEFAULT_THRESHOLD`] by default).
    /// A new cache does not share.
    pub fn set_sharing(&self, sharing: Sharing, threshold: usize) {
        self.shared.set(sharing, threshold);
    }

    /// Whether, and where, the cache shares rings, and its threshold.
    pub fn sharing(&self) -> (Sharing, usize) {
        self.shared.get()
    }

    /// The ring of `servers`, as [`Ring::new`] builds it, its continuum
    /// shared with other processes where the setting says so; counted as
    /// attached or rolled. Not kept: for the cache's own entries, and for a
    /// holder that follows its files itself (the compat roll's continua).
    pub fn build(&self, servers: Vec<ServerSpec>, config: RingConfig) -> Result<Ring, Error> {
        let (ring, origin) = self.shared.build(servers, config)?;
        let counter = match origin {
            shared::Origin::Attached => &self.attached,
            shared::Origin::Rolled => &self.rolled,
        };
        counter.fetch_add(1, Ordering::Relaxed);
        Ok(ring)
    }

    /// An array derived from the ring of `servers` with `config` (`count`
    /// records of `record` bytes; `fill(first, out)` writes records
    /// `first..` into `out`), shared between processes as a large ring is
    /// ([`shared::Mirror`]): mapped copy-on-write from the image another
    /// process published, or built, published and mapped. `None` when it
    /// is not shared (sharing off, under the threshold, no usable
    /// directory): the caller builds its own.
    pub fn mirror(
        &self,
        servers: &[ServerSpec],
        config: RingConfig,
        kind: &str,
        record: usize,
        count: usize,
        fill: impl Fn(usize, &mut [u8]),
    ) -> Option<shared::Mirror> {
        self.shared
            .mirror(servers, config, kind, record, count, fill)
    }

    /// Counts one build, answered from the cache (`hit`) or not.
    fn count(&self, hit: bool) {
        let counter = if hit { &self.hits } else { &self.misses };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// What the cache holds and has done so far.
    pub fn stats(&self) -> Stats {
        Stats {
            rings: self.len(),
            bytes: self.bytes(),
            bounds: self.bounds(),
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            evictions: self.evictions(),
            attached: self.attached.load(Ordering::Relaxed),
            rolled: self.rolled.load(Ordering::Relaxed),
        }
    }

    /// The ring of the server file at `path` read with `mode`, as
    /// [`Ring::from_file`] builds it: the one already built when the file
    /// is as it was (see the module docs).
    pub fn from_file(
        &self,
        path: &Path,
        config: RingConfig,
        mode: ParseMode,
    ) -> Result<Arc<Ring>, Error> {
        // `ParseMode::Flavour` names the flavour's own syntax, as Ring::from_file reads it.
        let mode = mode.for_flavour(config.flavour);
        let same = |source: &Source| {
            // The path's bytes as given (cheaper than comparing components).
            matches!(source, Source::File { path: p, mode: m, config: c }
                if p.as_os_str() == path.as_os_str() && *m == mode && *c == config)
        };
        let build = |servers, _: &_| self.build(servers, config);
        if let Some(Cached::File(followed)) = self.rings.find(same) {
            let refreshed = followed.look(build);
            self.count(!matches!(refreshed, Refresh::Changed(_)));
            return match refreshed {
                Refresh::Changed(good) => {
                    self.rings
                        .reweigh(same, weight_of(path.as_os_str().len(), &good.value));
                    Ok(good.value)
                }
                Refresh::Unchanged(good) | Refresh::Pending(good) => Ok(good.value),
                Refresh::KeptLastGood { problem, .. } => Err(problem),
            };
        }
        self.count(false);
        let followed = Followed::open(path, mode, build)?;
        let ring = followed.last_good().value;
        let source = Source::File {
            path: path.to_path_buf(),
            mode,
            config,
        };
        let weight = weight_of(path.as_os_str().len(), &ring);
        self.rings
            .insert(source, Cached::File(Arc::new(followed)), weight);
        Ok(ring)
    }

    /// The ring of `servers`, as [`Ring::new`] builds it: the one already
    /// built from an equal list with this configuration.
    pub fn from_servers(
        &self,
        servers: Vec<ServerSpec>,
        config: RingConfig,
    ) -> Result<Arc<Ring>, Error> {
        let (ring, hit) = self.list_ring(servers, config)?;
        self.count(hit);
        Ok(ring)
    }

    /// The ring of the servers PHP's `serialize()` wrote into `bytes`
    /// ([`crate::serialized_servers`]), as [`RingCache::from_servers`]
    /// gives it: found by the bytes alone when an equal string was read
    /// before with this configuration.
    pub fn from_serialized(&self, bytes: &[u8], config: RingConfig) -> Result<Arc<Ring>, Error> {
        let same = |source: &Source| matches!(source, Source::Serialized { bytes: b, config: c } if b.as_slice() == bytes && *c == config);
        if let Some(Cached::List(ring)) = self.rings.find(same) {
            self.count(true);
            return Ok(ring);
        }
        let servers = crate::serialized_servers::specs(bytes)?;
        let (ring, hit) = self.list_ring(servers, config)?;
        self.count(hit);
        // Weighed with its ring although the list's entry may hold the same
        // ring: the bytes bound is kept, never overrun.
        let weight = weight_of(bytes.len(), &ring);
        let source = Source::Serialized {
            bytes: bytes.to_vec(),
            config,
        };
        self.rings
            .insert(source, Cached::List(Arc::clone(&ring)), weight);
        Ok(ring)
    }

    /// The ring of `servers` and whether it was already built.
    fn list_ring(
        &self,
        servers: Vec<ServerSpec>,
        config: RingConfig,
    ) -> Result<(Arc<Ring>, bool), Error> {
        let same = |source: &Source| matches!(source, Source::List { servers: s, config: c } if *s == servers && *c == config);
        if let Some(Cached::List(ring)) = self.rings.find(same) {
            return Ok((ring, true));
        }
        let ring = Arc::new(self.build(servers.clone(), config)?);
        let key_bytes: usize = servers
            .iter()
            .map(|s| {
                size_of::<ServerSpec>() + s.address.len() + s.name.as_ref().map_or(0, Vec::len)
            })
            .sum();
        let weight = weight_of(key_bytes, &ring);
        let source = Source::List { servers, config };
        self.rings
            .insert(source, Cached::List(Arc::clone(&ring)), weight);
        Ok((ring, false))
    }

    /// Changes the bounds, dropping the least recently used rings over them.
    pub fn set_bounds(&self, bounds: Bounds) {
        self.rings.set_bounds(bounds);
    }

    /// The bounds in force.
    pub fn bounds(&self) -> Bounds {
        self.rings.bounds()
    }

    /// How many rings are kept.
    pub fn len(&self) -> usize {
        self.rings.len()
    }

    /// True when no ring is kept.
    pub fn is_empty(&self) -> bool {
        self.rings.is_empty()
    }

    /// The bytes the kept rings weigh ([`Ring::heap_bytes`] and their keys).
    pub fn bytes(&self) -> usize {
        self.rings.weight()
    }

    /// How many rings were dropped to keep within the bounds.
    pub fn evictions(&self) -> u64 {
        self.rings.evictions()
    }

    /// Drops every ring (rings handed out stay valid).
    pub fn clear(&self) {
        self.rings.clear();
    }
}

/// What a cached ring weighs: its heap bytes and those of its key.
fn weight_of(key_bytes: usize, ring: &Ring) -> usize {
    key_bytes + ring.heap_bytes()
}

#[cfg(test)]
mod tests;
