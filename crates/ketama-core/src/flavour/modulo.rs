//! Modulo placements over a weighted bucket list: not a continuum. A server
//! of weight `w` fills `w` consecutive buckets, in list order, and a key goes
//! to bucket `hash % buckets`. Two peers place keys so, with their own key
//! hash and their own way of trying again when the chosen server is down:
//!
//! * python-memcached (Debian 1.59-5; `memcache.Client._init_buckets`, `_get_server`):
//!   the hash is `cmemcache_hash` = `((crc32(key) >> 16) & 0x7fff) or 1`
//!   (`useOldServerHashFunction()` switches to the full `binascii.crc32`);
//!   when the server is down the hash becomes `hash(str(hash) + str(i))`
//!   for `i` = 0, 1, …, and the client gives up after 10 buckets.
//! * Perl Cache::Memcached 1.30 (`init_buckets`, `get_sock`, `_hashfunc`):
//!   the hash is `(crc32(key) >> 16) & 0x7fff`, without python-memcached's
//!   `or 1`; when the server is down `hv += _hashfunc($tries . $key)` for
//!   `$tries` = 1, 2, …, and it gives up after 20 buckets.
//!
//! The two agree on every key except those whose 15-bit hash is 0:
//! python-memcached takes them to bucket `1 % n`, Cache::Memcached to
//! bucket 0.

use crate::hash::HashAlgorithm;
use crate::{Error, ServerSpec};

use super::placement::Placement;
use super::placement::{Location, PerKey, PerKeyPlacement};

/// python-memcached: `cmemcache_hash` (its `crc32` is binascii's), 10 tries.
pub static PYTHON_MEMCACHED: Placement = Placement::per_key(
    &[HashAlgorithm::Cmemcache, HashAlgorithm::Crc32],
    |servers, _| Ok(std::sync::Arc::new(Modulo::new(servers, Rehash::PythonMemcached)?) as PerKey),
)
.with_spellings(&[
    ("crc32", HashAlgorithm::Crc32),
    ("binascii.crc32", HashAlgorithm::Crc32),
    ("old", HashAlgorithm::Crc32),
    ("crc", HashAlgorithm::Cmemcache),
]);

/// Perl Cache::Memcached: `(crc32 >> 16) & 0x7fff`, 20 tries.
pub static CACHE_MEMCACHED: Placement = Placement::per_key(&[HashAlgorithm::Crc], |servers, _| {
    Ok(std::sync::Arc::new(Modulo::new(servers, Rehash::CacheMemcached)?) as PerKey)
});

/// Most buckets a list may ask for (the sum of its weights).
const MAX_BUCKETS: u64 = 1 << 24;

/// Whose bucket search: how the hash is rehashed when a server is down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rehash {
    /// python-memcached: `hash = hash(str(hash) + str(i))`, 10 buckets tried.
    PythonMemcached,
    /// Perl Cache::Memcached: `hv += hash($tries . $key)`, 20 buckets tried.
    CacheMemcached,
    /// twemproxy `distribution: modula` with `auto_eject_hosts`: no rehash;
    /// the down servers leave the bucket list, which is rebuilt over the
    /// live ones in list order (`modula_update`), and the same hash picks
    /// from it.
    Eject,
}

/// The weighted bucket list: bucket → server index.
#[derive(Debug, Clone)]
pub struct Modulo {
    buckets: Box<[u32]>,
    rehash: Rehash,
}

impl Modulo {
    /// Fills the bucket list: each server `weight` times (1 when none is
    /// given), in list order. A weight of 0 gives a server no bucket, as in
    /// both peers; a list with no bucket at all is refused.
    pub fn new(servers: &[ServerSpec], rehash: Rehash) -> Result<Self, Error> {
        Self::in_order(servers, 0..servers.len(), rehash)
    }

    /// The same, the buckets filled in the server `order` given (indices
    /// into `servers`; twemproxy sorts its servers by name first).
    pub fn in_order(
        servers: &[ServerSpec],
        order: impl Iterator<Item = usize> + Clone,
        rehash: Rehash,
    ) -> Result<Self, Error> {
        let total = servers
            .iter()
            .try_fold(0u64, |sum, s| sum.checked_add(s.weight.unwrap_or(1)))
            .filter(|&t| t <= MAX_BUCKETS)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "the weights ask for more than {MAX_BUCKETS} buckets (one per unit of weight)"
                ))
            })?;
        if total == 0 {
            return Err(Error::InvalidArgument(
                "every server has weight 0: the bucket list is empty".into(),
            ));
        }
        let mut buckets = Vec::with_capacity(total as usize);
        for index in order {
            let weight = servers[index].weight.unwrap_or(1) as usize;
            buckets.extend(std::iter::repeat_n(index as u32, weight));
        }
        Ok(Modulo {
            buckets: buckets.into_boxed_slice(),
            rehash,
        })
    }

    /// Number of buckets (the sum of the weights).
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    /// The bucket and server for a key hash.
    #[inline]
    pub fn bucket(&self, hash: u64) -> (usize, usize) {
        let bucket = (hash % self.buckets.len() as u64) as usize;
        (bucket, self.buckets[bucket] as usize)
    }

    /// The bucket, server and hash a key with hash `first` lands on, trying
    /// again as the peer does while the server is down; `None` when the
    /// peer would give up.
    pub fn locate(
        &self,
        key: &[u8],
        first: u32,
        hash: HashAlgorithm,
        is_down: impl Fn(usize) -> bool,
    ) -> Option<(usize, usize, u64)> {
        let mut current = u64::from(first);
        let tries = match self.rehash {
            Rehash::PythonMemcached => 10,
            Rehash::CacheMemcached => 20,
            Rehash::Eject => return self.locate_live(current, is_down),
        };
        let mut text = Vec::with_capacity(key.len() + 24);
        for attempt in 0..tries {
            let (bucket, server) = self.bucket(current);
            if !is_down(server) {
                return Some((bucket, server, current));
            }
            text.clear();
            current = match self.rehash {
                Rehash::PythonMemcached => {
                    text.extend_from_slice(format!("{current}{attempt}").as_bytes());
                    u64::from(hash.hash(&text))
                }
                Rehash::CacheMemcached => {
                    text.extend_from_slice(format!("{}", attempt + 1).as_bytes());
                    text.extend_from_slice(key);
                    current + u64::from(hash.hash(&text))
                }
                Rehash::Eject => unreachable!("answered above"),
            };
        }
        None
    }

    /// [`Rehash::Eject`]: the bucket of `hash` in the list rebuilt from the
    /// live servers' buckets (every key moves when a server is ejected, as
    /// the slot count changes).
    fn locate_live(
        &self,
        hash: u64,
        is_down: impl Fn(usize) -> bool,
    ) -> Option<(usize, usize, u64)> {
        let live: Vec<u32> = self
            .buckets
            .iter()
            .copied()
            .filter(|&s| !is_down(s as usize))
            .collect();
        let bucket = (hash % live.len().max(1) as u64) as usize;
        live.get(bucket).map(|&s| (bucket, s as usize, hash))
    }
}

impl PerKeyPlacement for Modulo {
    fn describe(&self) -> &'static str {
        "hash modulo the weighted bucket list"
    }

    fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        let first = hash.hash(key);
        let (bucket, server_index, chosen) = Modulo::locate(self, key, first, hash, is_down)?;
        Some(Location {
            point_index: bucket,
            point: chosen as u32,
            server_index,
        })
    }

    fn locate_hash(&self, hash: u32) -> Option<Location> {
        let (bucket, server_index) = self.bucket(u64::from(hash));
        Some(Location {
            point_index: bucket,
            point: hash,
            server_index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ejected_server_leaves_the_slots_of_the_live_ones() {
        let servers = [
            ServerSpec::new("a:1", 1),
            ServerSpec::new("b:1", 2),
            ServerSpec::new("c:1", 1),
        ];
        let m = Modulo::new(&servers, Rehash::Eject).unwrap();
        for hash in 0..40u32 {
            let (_, up, _) = m
                .locate(b"k", hash, HashAlgorithm::Crc32, |_| false)
                .unwrap();
            assert_eq!(up, [0, 1, 1, 2][hash as usize % 4]);
            let (_, live, _) = m
                .locate(b"k", hash, HashAlgorithm::Crc32, |s| s == 1)
                .unwrap();
            assert_eq!(
                live,
                if up == 1 {
                    [0, 2][hash as usize % 2]
                } else {
                    up
                }
            );
        }
        assert_eq!(m.locate(b"k", 7, HashAlgorithm::Crc32, |_| true), None);
    }

    #[test]
    fn buckets_follow_weights_in_list_order() {
        let servers = [
            ServerSpec::new("a:1", 2),
            ServerSpec::unweighted("b:1"),
            ServerSpec::new("c:1", 0),
            ServerSpec::new("d:1", 3),
        ];
        let m = Modulo::new(&servers, Rehash::PythonMemcached).unwrap();
        assert_eq!(&*m.buckets, &[0, 0, 1, 3, 3, 3]);
        assert_eq!(m.bucket(7), (1, 0));
        assert!(Modulo::new(&[ServerSpec::new("a:1", 0)], Rehash::CacheMemcached).is_err());
        assert!(Modulo::new(&[ServerSpec::new("a:1", u64::MAX)], Rehash::CacheMemcached).is_err());
    }

    #[test]
    fn a_down_server_sends_the_key_elsewhere_or_nowhere() {
        let servers: Vec<ServerSpec> = (0..4)
            .map(|i| ServerSpec::unweighted(format!("s{i}:1")))
            .collect();
        for rehash in [Rehash::PythonMemcached, Rehash::CacheMemcached] {
            let m = Modulo::new(&servers, rehash).unwrap();
            let h = HashAlgorithm::Crc;
            let first = h.hash(b"k");
            let (_, up, _) = m.locate(b"k", first, h, |_| false).unwrap();
            let (_, other, _) = m.locate(b"k", first, h, |s| s == up).unwrap();
            assert_ne!(up, other);
            assert_eq!(m.locate(b"k", first, h, |_| true), None);
        }
    }
}
