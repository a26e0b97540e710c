//! Placement flavours: how each client family builds its continuum.
//!
//! A flavour turns a server list into `(point, server index)` pairs in
//! generation order, says how ties between equal points are resolved, how a
//! key hash becomes a lookup position and which key hashes its peer offers.
//! The ring and the lookup are shared. One file per peer; the building blocks
//! they share are in [`points`].
//!
//! Three flavours are not continuums: pymemcache scores every server per key
//! ([`rendezvous`]), python-memcached and Perl Cache::Memcached take a hash
//! modulo a weighted bucket list ([`modulo`]). They build a [`PerKey`]
//! placement instead of points ([`Flavour::is_continuum`]).

pub mod dalli;
pub mod libketama;
pub mod libketama_java;
pub mod libmemcached;
pub mod memcached_fast;
pub mod modulo;
pub mod nginx;
pub mod node_memcached;
pub mod pecl_memcache;
pub mod points;
pub mod rendezvous;
pub mod spymemcached;
pub mod twemproxy;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::{Error, ServerSpec};
use libmemcached::Distribution;
use spymemcached::NodeKeyFormat;

/// A placement flavour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Flavour {
    /// The original libketama (Last.fm), bit for bit.
    #[default]
    Libketama,
    /// spymemcached's `KetamaNodeLocator`, node-key format SPYMEMCACHED.
    Spymemcached,
    /// spymemcached's `KetamaNodeLocator`, node-key format LIBMEMCACHED.
    SpymemcachedLibmemcached,
    /// libmemcached KETAMA_WEIGHTED (php-memcached `OPT_LIBKETAMA_COMPATIBLE`).
    Libmemcached,
    /// libmemcached CONSISTENT / KETAMA: 100 hashed points per server.
    LibmemcachedConsistent,
    /// libmemcached CONSISTENT_KETAMA_SPY.
    LibmemcachedSpy,
    /// twemproxy (nutcracker) `distribution: ketama`.
    Twemproxy,
    /// pecl memcache `hash_strategy=consistent`.
    PeclMemcache,
    /// libketama's own Java port (`java_ketama/SockIOPool.java`).
    LibketamaJava,
    /// Ruby dalli's `Dalli::Ring`.
    Dalli,
    /// nginx `hash $key consistent` (ngx_http_upstream_hash_module).
    Nginx,
    /// The npm `memcached` client (its `hashring`, ketama compatibility).
    NodeMemcached,
    /// Perl Cache::Memcached::Fast with `ketama_points => 150`.
    MemcachedFast,
    /// pymemcache `HashClient`'s rendezvous hashing (not a continuum).
    Pymemcache,
    /// python-memcached: hash modulo the weighted bucket list (not a continuum).
    PythonMemcached,
    /// Perl Cache::Memcached: hash modulo the weighted bucket list (not a continuum).
    CacheMemcached,
}

/// A placement that is not a continuum: each key is placed on its own.
#[derive(Debug, Clone)]
pub enum PerKey {
    /// Highest score wins (pymemcache).
    Rendezvous(rendezvous::Rendezvous),
    /// `hash % buckets` over the weighted bucket list (python-memcached, Cache::Memcached).
    Modulo(modulo::Modulo),
}

/// How a key hash becomes the position searched on the continuum.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyLookup {
    /// The first point ≥ the hash, wrapping to the first point.
    Direct,
    /// pecl memcache: keys are prepared first; 1024 buckets; bucket
    /// `hash % 1024` holds the server of the first point ≥
    /// `bucket × (0xffffffff / 1024)`.
    PeclBuckets,
    /// dalli: keys are prepared first ([`dalli::prepare_key`]); the *last*
    /// point ≤ the hash, wrapping to the last point.
    Dalli,
    /// No continuum: the ring's [`PerKey`] placement places each key.
    PerKey,
}

impl KeyLookup {
    /// The key as the peer hashes it: pecl memcache first rewrites it
    /// ([`pecl_memcache::prepare_key`]); the others hash it unchanged.
    #[inline]
    pub fn prepare_key(self, key: &[u8]) -> std::borrow::Cow<'_, [u8]> {
        match self {
            KeyLookup::Direct | KeyLookup::PerKey => std::borrow::Cow::Borrowed(key),
            KeyLookup::PeclBuckets => pecl_memcache::prepare_key(key),
            KeyLookup::Dalli => dalli::prepare_key(key),
        }
    }

    /// The continuum position searched for a key hash.
    #[inline]
    pub fn position(self, hash: u32) -> u32 {
        match self {
            KeyLookup::Direct | KeyLookup::Dalli | KeyLookup::PerKey => hash,
            KeyLookup::PeclBuckets => (hash % 1024) * (u32::MAX / 1024),
        }
    }

    /// The index of the point a key hash lands on: the first point at or
    /// after its [`position`](Self::position) (wrapping to the first), or
    /// for dalli the last point at or before it (wrapping to the last).
    #[inline]
    pub fn locate(self, continuum: &crate::continuum::Continuum, hash: u32) -> Option<usize> {
        match self {
            KeyLookup::Dalli => continuum.locate_at_or_before(hash),
            lookup => continuum.locate(lookup.position(hash)),
        }
    }
}

/// The points a flavour generated for a server list.
#[derive(Debug, Clone)]
pub struct GeneratedPoints {
    /// `(point, server index)` in generation order.
    pub points: Vec<(u32, u32)>,
    /// How equal points are resolved.
    pub ties: TiePolicy,
    /// How key hashes are looked up.
    pub lookup: KeyLookup,
}

use HashAlgorithm as H;

const SPY_HASHES: &[H] = &[
    H::Md5,
    H::SpyNative,
    H::Crc,
    H::SpyFnv1_64,
    H::SpyFnv1a64,
    H::SpyFnv1_32,
    H::SpyFnv1a32,
];
const LIBMEMCACHED_HASHES: &[H] = &[
    H::OneAtATime,
    H::Md5,
    H::Crc,
    H::Fnv1_64,
    H::Fnv1a64,
    H::Fnv1_32,
    H::Fnv1a32,
    H::Hsieh,
    H::Murmur,
    H::Jenkins,
    H::Murmur3,
];
const TWEMPROXY_HASHES: &[H] = &[
    H::Fnv1a64,
    H::Md5,
    H::Crc,
    H::Crc32,
    H::OneAtATime,
    H::Fnv1_64,
    H::Fnv1_32,
    H::Fnv1a32,
    H::Hsieh,
    H::Murmur,
    H::Jenkins,
    H::Crc16,
];
const PECL_HASHES: &[H] = &[H::Crc32, H::Fnv1a32];

impl Flavour {
    /// Every flavour, in the order of their C ids.
    pub const ALL: &'static [Flavour] = &[
        Flavour::Libketama,
        Flavour::Spymemcached,
        Flavour::SpymemcachedLibmemcached,
        Flavour::Libmemcached,
        Flavour::LibmemcachedConsistent,
        Flavour::LibmemcachedSpy,
        Flavour::Twemproxy,
        Flavour::PeclMemcache,
        Flavour::LibketamaJava,
        Flavour::Dalli,
        Flavour::Nginx,
        Flavour::NodeMemcached,
        Flavour::MemcachedFast,
        Flavour::Pymemcache,
        Flavour::PythonMemcached,
        Flavour::CacheMemcached,
    ];

    /// The canonical name (as accepted by `--flavor`).
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Libketama => "libketama",
            Flavour::Spymemcached => "spymemcached",
            Flavour::SpymemcachedLibmemcached => "spymemcached-libmemcached",
            Flavour::Libmemcached => "libmemcached",
            Flavour::LibmemcachedConsistent => "libmemcached-consistent",
            Flavour::LibmemcachedSpy => "libmemcached-spy",
            Flavour::Twemproxy => "twemproxy",
            Flavour::PeclMemcache => "pecl-memcache",
            Flavour::LibketamaJava => "libketama-java",
            Flavour::Dalli => "dalli",
            Flavour::Nginx => "nginx",
            Flavour::NodeMemcached => "node-memcached",
            Flavour::MemcachedFast => "memcached-fast",
            Flavour::Pymemcache => "pymemcache",
            Flavour::PythonMemcached => "python-memcached",
            Flavour::CacheMemcached => "cache-memcached",
        }
    }

    /// Looks a flavour up by name or alias (`php-memcached`, `java`, ...).
    pub fn from_name(name: &str) -> Option<Self> {
        let lower = name.to_ascii_lowercase().replace('_', "-");
        let found = match lower.as_str() {
            "ketama" | "last.fm" => Flavour::Libketama,
            "java" | "spy" | "spymemcached-ketama" => Flavour::Spymemcached,
            "java-libmemcached" | "spy-libmemcached" => Flavour::SpymemcachedLibmemcached,
            "php-memcached" | "libmemcached-weighted" | "ketama-weighted" => Flavour::Libmemcached,
            "php-memcached-consistent" | "libmemcached-ketama" => Flavour::LibmemcachedConsistent,
            "libmemcached-ketama-spy" => Flavour::LibmemcachedSpy,
            "nutcracker" => Flavour::Twemproxy,
            "pecl" | "php-memcache" | "memcache" => Flavour::PeclMemcache,
            "sockiopool" | "java-ketama" | "ketama-java" => Flavour::LibketamaJava,
            "ruby" | "rails" | "dalli-ring" => Flavour::Dalli,
            "nginx-consistent" | "ngx-http-upstream-hash" => Flavour::Nginx,
            "node" | "nodejs" | "hashring" | "npm-memcached" => Flavour::NodeMemcached,
            "cache-memcached-fast" | "perl-fast" => Flavour::MemcachedFast,
            "pymemcache-hashclient" | "rendezvous" | "hrw" => Flavour::Pymemcache,
            "python-memcache" | "memcache-py" | "python3-memcache" => Flavour::PythonMemcached,
            "perl" | "perl-memcached" | "cache::memcached" => Flavour::CacheMemcached,
            other => *Flavour::ALL.iter().find(|f| f.name() == other)?,
        };
        Some(found)
    }

    /// The key hash the flavour's peer uses unless told otherwise.
    pub fn default_hash(self) -> HashAlgorithm {
        self.hashes()[0]
    }

    /// The key hashes the flavour's peer offers, its default first.
    pub fn hashes(self) -> &'static [HashAlgorithm] {
        match self {
            Flavour::Libketama | Flavour::LibketamaJava => &[H::Md5],
            Flavour::Spymemcached | Flavour::SpymemcachedLibmemcached => SPY_HASHES,
            Flavour::Libmemcached => &LIBMEMCACHED_HASHES_MD5_FIRST,
            Flavour::LibmemcachedConsistent | Flavour::LibmemcachedSpy => LIBMEMCACHED_HASHES,
            Flavour::Twemproxy => TWEMPROXY_HASHES,
            Flavour::PeclMemcache => PECL_HASHES,
            Flavour::Dalli | Flavour::Nginx | Flavour::MemcachedFast => &[H::Crc32],
            Flavour::NodeMemcached => &[H::Md5],
            Flavour::Pymemcache => &[H::Murmur3Seed0],
            Flavour::PythonMemcached => &[H::Cmemcache, H::Crc32],
            Flavour::CacheMemcached => &[H::Crc],
        }
    }

    /// Looks a key hash up by the flavour's peer's own spelling
    /// (twemproxy `crc32` is the 15-bit crc and `crc32a` the full CRC-32;
    /// pecl `crc32` is the full one; spymemcached `fnv1_64` runs over UTF-16),
    /// falling back to the canonical names. `None` when the peer has no such hash.
    pub fn hash_from_name(self, name: &str) -> Option<HashAlgorithm> {
        let lower = name.to_ascii_lowercase().replace('-', "_");
        let lower = lower.strip_suffix("_hash").unwrap_or(&lower);
        let peer = match (self, lower) {
            (Flavour::Twemproxy, "crc32") => Some(H::Crc),
            (Flavour::PythonMemcached, "crc32" | "binascii.crc32" | "old") => Some(H::Crc32),
            (Flavour::PythonMemcached, "crc") => Some(H::Cmemcache),
            (Flavour::Spymemcached | Flavour::SpymemcachedLibmemcached, spelled) => match spelled {
                "fnv1_64" => Some(H::SpyFnv1_64),
                "fnv1a_64" => Some(H::SpyFnv1a64),
                "fnv1_32" => Some(H::SpyFnv1_32),
                "fnv1a_32" => Some(H::SpyFnv1a32),
                _ => None,
            },
            _ => None,
        };
        peer.or_else(|| HashAlgorithm::from_name(lower))
            .filter(|h| self.hashes().contains(h))
    }

    /// Fails, naming the flavour and what it offers, when its peer has no `hash`.
    pub fn check_hash(self, hash: HashAlgorithm) -> Result<(), Error> {
        if self.hashes().contains(&hash) {
            return Ok(());
        }
        let offered: Vec<&str> = self.hashes().iter().map(|h| h.name()).collect();
        Err(Error::InvalidArgument(format!(
            "flavour {} has no key hash {} (it offers: {})",
            self.name(),
            hash.name(),
            offered.join(", ")
        )))
    }

    /// Generates the continuum points for `servers`; `hash` is the key hash
    /// (some peers hash their points with it too).
    pub fn generate(
        self,
        servers: &[ServerSpec],
        hash: HashAlgorithm,
    ) -> Result<GeneratedPoints, Error> {
        match self {
            Flavour::Libketama => libketama::generate(servers),
            Flavour::Spymemcached => {
                spymemcached::generate(servers, hash, NodeKeyFormat::Spymemcached)
            }
            Flavour::SpymemcachedLibmemcached => {
                spymemcached::generate(servers, hash, NodeKeyFormat::Libmemcached)
            }
            Flavour::Libmemcached => libmemcached::generate(servers, hash, Distribution::Weighted),
            Flavour::LibmemcachedConsistent => {
                libmemcached::generate(servers, hash, Distribution::Consistent)
            }
            Flavour::LibmemcachedSpy => libmemcached::generate(servers, hash, Distribution::Spy),
            Flavour::Twemproxy => twemproxy::generate(servers),
            Flavour::PeclMemcache => pecl_memcache::generate(servers, hash),
            Flavour::LibketamaJava => libketama_java::generate(servers),
            Flavour::Dalli => dalli::generate(servers),
            Flavour::Nginx => nginx::generate(servers),
            Flavour::NodeMemcached => node_memcached::generate(servers),
            Flavour::MemcachedFast => memcached_fast::generate(servers),
            Flavour::Pymemcache | Flavour::PythonMemcached | Flavour::CacheMemcached => {
                Ok(GeneratedPoints {
                    points: Vec::new(),
                    ties: TiePolicy::FirstWins,
                    lookup: KeyLookup::PerKey,
                })
            }
        }
    }

    /// True when the flavour builds a continuum (points a key hash is looked
    /// up on); false for the per-key placements (pymemcache, python-memcached,
    /// Cache::Memcached), which have no points to dump.
    pub fn is_continuum(self) -> bool {
        !matches!(
            self,
            Flavour::Pymemcache | Flavour::PythonMemcached | Flavour::CacheMemcached
        )
    }

    /// The per-key placement of `servers` for a flavour that is not a
    /// continuum; `None` for a continuum flavour.
    pub fn per_key(self, servers: &[ServerSpec]) -> Result<Option<PerKey>, Error> {
        Ok(Some(match self {
            Flavour::Pymemcache => PerKey::Rendezvous(rendezvous::Rendezvous::new(servers)?),
            Flavour::PythonMemcached => PerKey::Modulo(modulo::Modulo::new(
                servers,
                modulo::Rehash::PythonMemcached,
            )?),
            Flavour::CacheMemcached => PerKey::Modulo(modulo::Modulo::new(
                servers,
                modulo::Rehash::CacheMemcached,
            )?),
            _ => return Ok(None),
        }))
    }
}

/// libmemcached's hash list with MD5 (KETAMA_WEIGHTED's key hash) first.
const LIBMEMCACHED_HASHES_MD5_FIRST: [H; 11] = [
    H::Md5,
    H::OneAtATime,
    H::Crc,
    H::Fnv1_64,
    H::Fnv1a64,
    H::Fnv1_32,
    H::Fnv1a32,
    H::Hsieh,
    H::Murmur,
    H::Jenkins,
    H::Murmur3,
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases() {
        for &f in Flavour::ALL {
            assert_eq!(Flavour::from_name(f.name()), Some(f));
        }
        assert_eq!(
            Flavour::from_name("php-memcached"),
            Some(Flavour::Libmemcached)
        );
        assert_eq!(Flavour::from_name("Java"), Some(Flavour::Spymemcached));
        assert_eq!(
            Flavour::from_name("SockIOPool"),
            Some(Flavour::LibketamaJava)
        );
        assert_eq!(Flavour::from_name("HRW"), Some(Flavour::Pymemcache));
        assert_eq!(
            Flavour::from_name("python_memcache"),
            Some(Flavour::PythonMemcached)
        );
        assert_eq!(
            Flavour::from_name("Cache::Memcached"),
            Some(Flavour::CacheMemcached)
        );
        assert!(!Flavour::Pymemcache.is_continuum() && Flavour::Dalli.is_continuum());
        assert_eq!(Flavour::from_name("nope"), None);
    }

    #[test]
    fn peer_spellings_of_hashes() {
        assert_eq!(Flavour::Twemproxy.hash_from_name("crc32"), Some(H::Crc));
        assert_eq!(Flavour::Twemproxy.hash_from_name("crc32a"), Some(H::Crc32));
        assert_eq!(
            Flavour::PeclMemcache.hash_from_name("crc32"),
            Some(H::Crc32)
        );
        assert_eq!(
            Flavour::PeclMemcache.hash_from_name("fnv"),
            Some(H::Fnv1a32)
        );
        assert_eq!(
            Flavour::Spymemcached.hash_from_name("FNV1_64_HASH"),
            Some(H::SpyFnv1_64)
        );
        assert_eq!(
            Flavour::Spymemcached.hash_from_name("native"),
            Some(H::SpyNative)
        );
        assert_eq!(
            Flavour::Libmemcached.hash_from_name("fnv1_64"),
            Some(H::Fnv1_64)
        );
        assert_eq!(Flavour::Libmemcached.hash_from_name("crc"), Some(H::Crc));
        assert_eq!(Flavour::PeclMemcache.hash_from_name("md5"), None);
        assert_eq!(
            Flavour::PythonMemcached.hash_from_name("crc32"),
            Some(H::Crc32)
        );
        assert_eq!(Flavour::PythonMemcached.default_hash(), H::Cmemcache);
        assert_eq!(
            Flavour::Pymemcache.hash_from_name("murmur3_32"),
            Some(H::Murmur3Seed0)
        );
        assert_eq!(Flavour::CacheMemcached.hash_from_name("murmur3"), None);
        assert_eq!(Flavour::Twemproxy.default_hash(), H::Fnv1a64);
        assert_eq!(
            Flavour::LibmemcachedConsistent.default_hash(),
            H::OneAtATime
        );
        let err = Flavour::Libketama
            .check_hash(H::Crc)
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "flavour libketama has no key hash crc (it offers: md5)"
        );
    }
}
