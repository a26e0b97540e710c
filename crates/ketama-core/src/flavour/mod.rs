//! Placement flavours: how each client family builds its continuum.
//!
//! A flavour turns a server list into `(point, server index)` pairs in
//! generation order, says how ties between equal points are resolved, how a
//! key hash becomes a lookup position and which key hashes its peer offers.
//! The ring and the lookup are shared. One file per peer; the building blocks
//! they share are in [`points`].
//!
//! Some flavours are not continuums: pymemcache scores every server per key
//! ([`rendezvous`]), python-memcached and Perl Cache::Memcached take a hash
//! modulo a weighted bucket list ([`modulo`]; pecl memcache's standard
//! strategy too, in [`pecl_memcache`]); the defaults of libmemcached
//! ([`modula`]), spymemcached, gomemcache, memjs and apr_memcache take it
//! modulo the server list ([`array_mod`]); twemproxy has a modula
//! distribution ([`twemproxy`]); mcrouter walks `furc_hash`'s decision tree
//! ([`mcrouter`]) and Envoy searches a ring of 64-bit positions or a maglev
//! table ([`envoy`]). They build a [`PerKey`] placement instead of points
//! ([`Flavour::is_continuum`]).

pub mod apr_memcache;
pub mod array_mod;
pub mod dalli;
pub mod django_redis;
pub mod envoy;
pub mod envoy_entry;
pub mod envoy_maglev;
pub mod envoy_ring;
pub mod gomemcache;
pub mod groupcache;
pub mod haproxy;
pub mod hash_tags;
pub mod libketama;
pub mod libketama_java;
pub mod libmemcached;
pub mod mcrouter;
pub mod memcached_fast;
pub mod memjs;
pub mod modula;
pub mod modulo;
pub mod named;
pub mod nginx;
pub mod node_memcached;
pub mod options;
pub mod pecl_memcache;
pub mod phpredis;
pub mod placement;
pub mod points;
pub mod predis;
pub mod redis_rb;
pub mod rendezvous;
pub mod spymemcached;
pub mod twemproxy;
pub mod uhashring;
pub mod varnish;
pub mod wide_ring;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::parser::ParseMode;
use crate::placement::prepare::Preparation;
use crate::search::Search;
use crate::{Error, ServerSpec};
use placement::{Build, Placement};

crate::named_enum! {
    /// A placement flavour: how one client family places keys.
    #[non_exhaustive]
    pub enum Flavour: "ketama_flavour", data placement: Placement {
        /// The original libketama (Last.fm), bit for bit (the default).
        Libketama = 0, KETAMA_FLAVOUR_LIBKETAMA, "libketama", ["ketama", "last.fm"] => libketama::PLACEMENT;
        /// spymemcached's `KetamaNodeLocator`, node-key format SPYMEMCACHED.
        Spymemcached = 1, KETAMA_FLAVOUR_SPYMEMCACHED, "spymemcached", ["java", "spy", "spymemcached-ketama"] => spymemcached::SPYMEMCACHED;
        /// spymemcached's `KetamaNodeLocator`, node-key format LIBMEMCACHED.
        SpymemcachedLibmemcached = 2, KETAMA_FLAVOUR_SPYMEMCACHED_LIBMEMCACHED, "spymemcached-libmemcached", ["java-libmemcached", "spy-libmemcached"] => spymemcached::LIBMEMCACHED_KEYS;
        /// libmemcached KETAMA_WEIGHTED (php-memcached `OPT_LIBKETAMA_COMPATIBLE`).
        Libmemcached = 3, KETAMA_FLAVOUR_LIBMEMCACHED, "libmemcached", ["php-memcached", "libmemcached-weighted", "ketama-weighted"] => libmemcached::WEIGHTED;
        /// libmemcached CONSISTENT / KETAMA: 100 hashed points per server.
        LibmemcachedConsistent = 4, KETAMA_FLAVOUR_LIBMEMCACHED_CONSISTENT, "libmemcached-consistent", ["php-memcached-consistent", "libmemcached-ketama"] => libmemcached::CONSISTENT;
        /// libmemcached CONSISTENT_KETAMA_SPY.
        LibmemcachedSpy = 5, KETAMA_FLAVOUR_LIBMEMCACHED_SPY, "libmemcached-spy", ["libmemcached-ketama-spy"] => libmemcached::SPY;
        /// twemproxy (nutcracker) `distribution: ketama`; the server name column is honoured.
        Twemproxy = 6, KETAMA_FLAVOUR_TWEMPROXY, "twemproxy", ["nutcracker"] => twemproxy::PLACEMENT;
        /// pecl memcache `hash_strategy=consistent` (1024-bucket lookup).
        PeclMemcache = 7, KETAMA_FLAVOUR_PECL_MEMCACHE, "pecl-memcache", ["pecl", "php-memcache", "memcache"] => pecl_memcache::PLACEMENT;
        /// libketama's own Java port (`java_ketama/SockIOPool.java`): int weight
        /// arithmetic, later server wins equal points.
        LibketamaJava = 8, KETAMA_FLAVOUR_LIBKETAMA_JAVA, "libketama-java", ["sockiopool", "java-ketama", "ketama-java"] => libketama_java::PLACEMENT;
        /// Ruby dalli's `Dalli::Ring`: SHA-1 points, CRC-32 keys, last point ≤ the hash.
        Dalli = 9, KETAMA_FLAVOUR_DALLI, "dalli", ["ruby", "rails", "dalli-ring"] => dalli::PLACEMENT;
        /// nginx `hash $key consistent` (ngx_http_upstream_hash_module): CRC-32
        /// points, 160 per unit of weight.
        Nginx = 10, KETAMA_FLAVOUR_NGINX, "nginx", ["nginx-consistent", "ngx-http-upstream-hash"] => nginx::PLACEMENT;
        /// The npm `memcached` client (its `hashring`, ketama compatibility).
        NodeMemcached = 11, KETAMA_FLAVOUR_NODE_MEMCACHED, "node-memcached", ["node", "nodejs", "hashring", "npm-memcached"] => node_memcached::PLACEMENT;
        /// Perl Cache::Memcached::Fast with `ketama_points => 150`.
        MemcachedFast = 12, KETAMA_FLAVOUR_MEMCACHED_FAST, "memcached-fast", ["cache-memcached-fast", "perl-fast"] => memcached_fast::PLACEMENT;
        /// pymemcache `HashClient`'s rendezvous hashing (not a continuum: each
        /// key scores every server; no points to read).
        Pymemcache = 13, KETAMA_FLAVOUR_PYMEMCACHE, "pymemcache", ["pymemcache-hashclient", "rendezvous", "hrw"] => rendezvous::PLACEMENT;
        /// python-memcached (`memcache.Client`): `hash % buckets` over the
        /// weighted bucket list (not a continuum; no points to read).
        PythonMemcached = 14, KETAMA_FLAVOUR_PYTHON_MEMCACHED, "python-memcached", ["python-memcache", "memcache-py", "python3-memcache"] => modulo::PYTHON_MEMCACHED;
        /// Perl Cache::Memcached: `hash % buckets` over the weighted bucket list
        /// (not a continuum; no points to read).
        CacheMemcached = 15, KETAMA_FLAVOUR_CACHE_MEMCACHED, "cache-memcached", ["perl", "perl-memcached", "cache::memcached"] => modulo::CACHE_MEMCACHED;
        /// libmemcached MODULA, the default distribution of libmemcached,
        /// php-memcached and pylibmc: `hash % n`, weights ignored (not a
        /// continuum; no points to read).
        LibmemcachedModula = 16, KETAMA_FLAVOUR_LIBMEMCACHED_MODULA, "libmemcached-modula", ["modula", "php-memcached-modula", "pylibmc"] => modula::LIBMEMCACHED;
        /// twemproxy (nutcracker) `distribution: modula`: `hash % slots`,
        /// each server `weight` slots in list order (not a continuum).
        TwemproxyModula = 17, KETAMA_FLAVOUR_TWEMPROXY_MODULA, "twemproxy-modula", ["nutcracker-modula"] => twemproxy::MODULA;
        /// pecl memcache `hash_strategy=standard`: `(hash >> 16) & 0x7fff`
        /// (0 read as 1) modulo the weighted bucket list (not a continuum).
        PeclMemcacheStandard = 18, KETAMA_FLAVOUR_PECL_MEMCACHE_STANDARD, "pecl-memcache-standard", ["pecl-standard", "php-memcache-standard", "memcache-standard"] => pecl_memcache::STANDARD;
        /// spymemcached's `ArrayModNodeLocator`, `DefaultConnectionFactory`'s
        /// default: `hash % n`, Java's `String.hashCode` unless told
        /// otherwise (not a continuum).
        SpymemcachedArray = 19, KETAMA_FLAVOUR_SPYMEMCACHED_ARRAY, "spymemcached-array", ["spy-array", "spymemcached-default", "array-mod"] => spymemcached::ARRAY_MOD;
        /// Go's gomemcache `ServerList`: CRC-32 of the key's first 256 bytes
        /// modulo the list, a server listed twice counting twice (not a
        /// continuum).
        Gomemcache = 20, KETAMA_FLAVOUR_GOMEMCACHE, "gomemcache", ["go-memcache", "bradfitz-gomemcache"] => gomemcache::PLACEMENT;
        /// npm memjs: `Math.abs(hashCode(key)) % n` (not a continuum).
        Memjs = 21, KETAMA_FLAVOUR_MEMJS, "memjs", ["npm-memjs", "node-memjs"] => memjs::PLACEMENT;
        /// Apache apr-util's `apr_memcache`: `(crc32 >> 16) & 0x7fff`, 0
        /// read as 1, modulo the servers, dead servers skipped by `hash + 1`
        /// (not a continuum).
        AprMemcache = 22, KETAMA_FLAVOUR_APR_MEMCACHE, "apr-memcache", ["apr-util-memcache", "apr-memcache-default"] => apr_memcache::PLACEMENT;
        /// Predis client-side sharding with its default `HashRing`: CRC-32
        /// points of `host:port`, weights, the last point ≤ the key's hash.
        Predis = 23, KETAMA_FLAVOUR_PREDIS, "predis", ["predis-hashring", "php-predis"] => predis::HASH_RING;
        /// Predis client-side sharding with `KetamaRing`: libketama-style MD5
        /// points of `host:port`, weights.
        PredisKetama = 24, KETAMA_FLAVOUR_PREDIS_KETAMA, "predis-ketama", ["predis-ketamaring"] => predis::KETAMA_RING;
        /// phpredis `RedisArray`: CRC-32 of the key's `{tag}` over equal
        /// ranges, one per host (`crc32 × n / 0xffffffff`); no weights.
        Phpredis = 25, KETAMA_FLAVOUR_PHPREDIS, "phpredis", ["redisarray", "php-redis"] => phpredis::MODULO;
        /// phpredis `RedisArray` with `consistent`: 160 MD5 points per host
        /// string, keys at their CRC-32 register.
        PhpredisConsistent = 26, KETAMA_FLAVOUR_PHPREDIS_CONSISTENT, "phpredis-consistent", ["redisarray-consistent", "php-redis-consistent"] => phpredis::CONSISTENT;
        /// redis-rb `Redis::Distributed`: 160 CRC-32 points per node id
        /// (`redis://host:port/0`), keys' `{tag}` at the start of a line, the
        /// last point ≤ the key's hash.
        RedisRb = 27, KETAMA_FLAVOUR_REDIS_RB, "redis-rb", ["redis-distributed", "ruby-redis"] => redis_rb::PLACEMENT;
        /// Python uhashring's default ring: 160 points per unit of weight,
        /// each the whole 128-bit MD5 of `name-w`, the first point greater
        /// than the key's MD5 (not a 32-bit continuum).
        Uhashring = 28, KETAMA_FLAVOUR_UHASHRING, "uhashring", ["uhashring-md5", "python-uhashring"] => uhashring::PLACEMENT;
        /// Python uhashring with `hash_fn='ketama'`: libketama-style MD5
        /// points, the first point greater than the key's hash.
        UhashringKetama = 29, KETAMA_FLAVOUR_UHASHRING_KETAMA, "uhashring-ketama", ["python-uhashring-ketama"] => uhashring::KETAMA;
        /// django-redis `ShardClient`: 128 SHA-256 points per `LOCATION`
        /// name, keys made `:1:<key>` and tagged, the last point ≤ the key's
        /// SHA-256 (not a 32-bit continuum).
        DjangoRedis = 30, KETAMA_FLAVOUR_DJANGO_REDIS, "django-redis", ["django-redis-shard", "shardclient"] => django_redis::PLACEMENT;
        /// Go groupcache `consistenthash` as `HTTPPool` builds it: 50 CRC-32
        /// points per peer name (`"<i><name>"`), no weights.
        Groupcache = 31, KETAMA_FLAVOUR_GROUPCACHE, "groupcache", ["groupcache-consistenthash", "consistenthash"] => groupcache::PLACEMENT;
        /// mcrouter's Ch3 (`furc_hash` of the routing key over the pool;
        /// not a continuum).
        McrouterCh3 = 34, KETAMA_FLAVOUR_MCROUTER_CH3, "mcrouter-ch3", ["mcrouter", "ch3"] => mcrouter::CH3;
        /// mcrouter's WeightedCh3: Ch3 with per-server weights in [0, 1],
        /// the weight column over its largest (not a continuum).
        McrouterWch3 = 35, KETAMA_FLAVOUR_MCROUTER_WCH3, "mcrouter-wch3", ["mcrouter-weighted-ch3", "weighted-ch3", "wch3"] => mcrouter::WEIGHTED_CH3;
        /// mcrouter's Crc32: `(crc32 & 0x7fffffff) % n` of the routing key
        /// (not a continuum).
        McrouterCrc32 = 36, KETAMA_FLAVOUR_MCROUTER_CRC32, "mcrouter-crc32", [] => mcrouter::CRC32;
        /// Envoy's ring_hash load balancer: a ring of 64-bit xxHash64
        /// positions, keys hashed with xxHash64 (not a 32-bit continuum).
        EnvoyRingHash = 37, KETAMA_FLAVOUR_ENVOY_RING_HASH, "envoy-ring-hash", ["envoy", "ring-hash", "envoy-ring"] => envoy::RING_HASH;
        /// Envoy's maglev load balancer: a 65537-slot table, keys hashed with
        /// xxHash64 (not a continuum).
        EnvoyMaglev = 38, KETAMA_FLAVOUR_ENVOY_MAGLEV, "envoy-maglev", ["maglev"] => envoy::MAGLEV;
        /// HAProxy `hash-type consistent`: points from each server's `id`
        /// and weight, the nearest point on either side wins.
        Haproxy = 32, KETAMA_FLAVOUR_HAPROXY, "haproxy", ["haproxy-consistent", "hash-type-consistent"] => haproxy::PLACEMENT;
        /// The Varnish shard director (`directors.shard()`): SHA-256 points
        /// per backend ident, 67 replicas, no wrap-around.
        VarnishShard = 33, KETAMA_FLAVOUR_VARNISH_SHARD, "varnish-shard", ["varnish", "vmod-directors-shard", "shard-director"] => varnish::PLACEMENT;
    }
}

// Written out: named_enum! derives only what every declared enum has.
#[allow(clippy::derivable_impls)]
impl Default for Flavour {
    fn default() -> Self {
        Flavour::Libketama
    }
}

pub use options::{Options, PointsOption};
pub use placement::{Location, PerKey, PerKeyPlacement};

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

impl Flavour {
    /// The key hash the flavour's peer uses unless told otherwise.
    pub fn default_hash(self) -> HashAlgorithm {
        self.hashes()[0]
    }

    /// The key hashes the flavour's peer offers, its default first.
    pub fn hashes(self) -> &'static [HashAlgorithm] {
        self.placement().hashes
    }

    /// How a server file is read for this flavour by default.
    pub fn file_syntax(self) -> ParseMode {
        self.placement().file_syntax
    }

    /// The syntax this flavour's users write server lists in.
    pub fn list_syntax(self) -> ParseMode {
        self.placement().list_syntax
    }

    /// The spellings of key hashes that mean something particular to this
    /// flavour's peer (twemproxy `crc32` is the 15-bit crc; python-memcached
    /// `crc32` is binascii's; spymemcached `fnv1_64` runs over UTF-16).
    pub fn hash_spellings(self) -> &'static [(&'static str, HashAlgorithm)] {
        self.placement().hash_spellings
    }

    /// Every spelling of a key hash this flavour accepts: its peer's own
    /// ([`Flavour::hash_spellings`]), then the canonical names and aliases
    /// of the hashes it offers that no peer spelling shadows.
    pub fn hash_names(self) -> Vec<&'static str> {
        use crate::registry::Named;
        let mut names: Vec<&'static str> = self.hash_spellings().iter().map(|s| s.0).collect();
        for hash in self.hashes() {
            for name in std::iter::once(hash.name()).chain(hash.aliases().iter().copied()) {
                if self.hash_from_name(name) == Some(*hash) && !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        names
    }

    /// Looks a key hash up by the flavour's peer's own spelling
    /// ([`Flavour::hash_spellings`]; a `_hash` suffix and `-`/`_` do not
    /// matter), falling back to the canonical names and aliases. `None`
    /// when the peer has no such hash.
    pub fn hash_from_name(self, name: &str) -> Option<HashAlgorithm> {
        let lower = name.to_ascii_lowercase().replace('-', "_");
        let lower = lower.strip_suffix("_hash").unwrap_or(&lower);
        let peer = self
            .hash_spellings()
            .iter()
            .find(|(spelling, _)| *spelling == lower)
            .map(|(_, hash)| *hash);
        peer.or_else(|| HashAlgorithm::from_name(lower))
            .filter(|h| self.hashes().contains(h))
    }

    /// [`Flavour::hash_from_name`] for a caller's argument: `"default"` (any
    /// case) is `None`, the flavour's own hash; a name the peer does not
    /// offer is an error naming the flavour and the hashes it offers.
    pub fn hash_named(self, name: &str) -> Result<Option<HashAlgorithm>, Error> {
        if name.eq_ignore_ascii_case("default") {
            return Ok(None);
        }
        self.hash_from_name(name).map(Some).ok_or_else(|| {
            let offered: Vec<&str> = self.hashes().iter().map(|h| h.name()).collect();
            Error::InvalidArgument(format!(
                "flavour {} has no key hash {name:?} (it offers: {})",
                self.name(),
                offered.join(", ")
            ))
        })
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

    /// The points per server its users may set, with the peer's default;
    /// `None` when the flavour's points are fixed.
    pub fn points_option(self) -> Option<PointsOption> {
        self.placement().points
    }

    /// True when its users may set a hash tag (twemproxy `hash_tag`).
    pub fn takes_hash_tag(self) -> bool {
        self.placement().hash_tag
    }

    /// The further options its users set (Envoy's ring and table sizes):
    /// names from [`options::SETTINGS`].
    pub fn settings(self) -> &'static [&'static str] {
        self.placement().settings
    }

    /// Fails, naming the flavour and the flavours that take it, when an
    /// option is set that the flavour's peer does not offer or out of range.
    pub fn check_options(self, options: &Options) -> Result<(), Error> {
        let takers = |takes: fn(Flavour) -> bool| -> String {
            let names: Vec<&str> = Flavour::ALL
                .iter()
                .filter(|f| takes(**f))
                .map(|f| f.name())
                .collect();
            names.join(", ")
        };
        if let Some(points) = options.points {
            match self.points_option() {
                None => {
                    return Err(Error::InvalidArgument(format!(
                        "flavour {} has a fixed number of points per server; points are set \
                         for: {}",
                        self.name(),
                        takers(|f| f.points_option().is_some())
                    )));
                }
                Some(rule) if points > rule.max => {
                    return Err(Error::InvalidArgument(format!(
                        "flavour {}: points={points} is more than its peer's {} allows ({})",
                        self.name(),
                        rule.peer_name,
                        rule.max
                    )));
                }
                Some(_) => {}
            }
        }
        if options.hash_tag.is_some() && !self.takes_hash_tag() {
            return Err(Error::InvalidArgument(format!(
                "flavour {} takes no hash tag; hash tags are set for: {}",
                self.name(),
                takers(Flavour::takes_hash_tag)
            )));
        }
        for setting in options.settings() {
            if !self.settings().contains(&setting) {
                let names: Vec<&str> = Flavour::ALL
                    .iter()
                    .filter(|f| f.settings().contains(&setting))
                    .map(|f| f.name())
                    .collect();
                return Err(Error::InvalidArgument(format!(
                    "flavour {} takes no option {setting}; it is set for: {}",
                    self.name(),
                    names.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// Generates the continuum points for `servers`; `hash` is the key hash
    /// (some peers hash their points with it too); `options` as checked by
    /// [`Flavour::check_options`]. A flavour that places each key on its
    /// own has no points: an error naming it.
    pub fn generate(
        self,
        servers: &[ServerSpec],
        hash: HashAlgorithm,
        options: &Options,
    ) -> Result<GeneratedPoints, Error> {
        match self.placement().build {
            Build::Continuum(generate) => generate(servers, hash, options),
            Build::PerKey(_) => Err(Error::InvalidArgument(format!(
                "flavour {} places each key on its own: it generates no continuum points",
                self.name()
            ))),
        }
    }

    /// True when the flavour builds a continuum (points a key hash is looked
    /// up on); false for the per-key placements (pymemcache, python-memcached,
    /// Cache::Memcached), which have no points to dump.
    pub fn is_continuum(self) -> bool {
        matches!(self.placement().build, Build::Continuum(_))
    }

    /// The per-key placement of `servers` for a flavour that is not a
    /// continuum; `None` for a continuum flavour.
    pub fn per_key(
        self,
        servers: &[ServerSpec],
        options: &Options,
    ) -> Result<Option<PerKey>, Error> {
        match self.placement().build {
            Build::PerKey(build) => build(servers, options).map(Some),
            Build::Continuum(_) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use HashAlgorithm as H;

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
