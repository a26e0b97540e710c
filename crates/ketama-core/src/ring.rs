//! The ring: servers plus their continuum, immutable and shareable between
//! threads. This is the engine behind the compat ABI, the modern API and the CLI.

use std::ffi::CString;
use std::path::Path;

use crate::continuum::Continuum;
use crate::flavour::{Flavour, Options, PerKey, PerKeyPlacement};
use crate::hash::HashAlgorithm;
use crate::parser::ParseMode;
use crate::placement::prepare::Preparation;
use crate::search::Search;
use crate::{Error, ServerSpec};

/// How to build a ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RingConfig {
    /// Placement flavour (default: libketama).
    pub flavour: Flavour,
    /// Key hash; `None` uses the flavour's default.
    pub hash: Option<HashAlgorithm>,
    /// Points per server and hash tag, where the flavour's peer offers them.
    pub options: Options,
}

impl RingConfig {
    /// A configuration for `flavour` with its default key hash and options.
    pub fn flavour(flavour: Flavour) -> Self {
        RingConfig {
            flavour,
            ..RingConfig::default()
        }
    }

    /// A configuration for `flavour` with `hash` (`None`: the default).
    pub fn new(flavour: Flavour, hash: Option<HashAlgorithm>) -> Self {
        RingConfig {
            flavour,
            hash,
            ..RingConfig::default()
        }
    }
}

/// A server on a built ring.
#[derive(Debug, Clone)]
pub struct Server {
    address: CString,
    name: Option<CString>,
    weight: Option<u64>,
    points: u32,
}

impl Server {
    /// The address exactly as given.
    pub fn address(&self) -> &[u8] {
        self.address.to_bytes()
    }

    /// The address as a NUL-terminated C string.
    pub fn address_c(&self) -> &std::ffi::CStr {
        &self.address
    }

    /// The explicit server name, when one was given (twemproxy).
    pub fn name(&self) -> Option<&[u8]> {
        self.name.as_ref().map(|n| n.to_bytes())
    }

    /// The weight, when one was given.
    pub fn weight(&self) -> Option<u64> {
        self.weight
    }

    /// How many points this server owns on the continuum.
    pub fn point_count(&self) -> u32 {
        self.points
    }
}

pub use crate::flavour::Location;

/// An immutable consistent-hashing ring. `Send + Sync`: share it freely.
#[derive(Debug, Clone)]
pub struct Ring {
    servers: Box<[Server]>,
    continuum: Continuum,
    config: RingConfig,
    key_hash: HashAlgorithm,
    search: Search,
    prepare: Option<&'static Preparation>,
    /// The placement of a flavour that is not a continuum (then the
    /// continuum is empty).
    per_key: Option<PerKey>,
}

impl Ring {
    /// Builds a ring from a server list.
    pub fn new(servers: Vec<ServerSpec>, config: RingConfig) -> Result<Ring, Error> {
        if servers.is_empty() {
            return Err(Error::NoServers("the server list (it is empty)".into()));
        }
        let key_hash = config.hash.unwrap_or_else(|| config.flavour.default_hash());
        config.flavour.check_hash(key_hash)?;
        config.flavour.check_options(&config.options)?;
        let per_key = config.flavour.per_key(&servers, &config.options)?;
        let (continuum, search, prepare) = match per_key {
            Some(_) => (
                Continuum::new(Vec::new(), crate::continuum::TiePolicy::FirstWins),
                Search::AtOrAfter,
                None,
            ),
            None => {
                let generated = config
                    .flavour
                    .generate(&servers, key_hash, &config.options)?;
                let continuum = Continuum::new(generated.points, generated.ties);
                (continuum, generated.search, generated.prepare)
            }
        };
        // Count what each server holds on the continuum after the tie rule
        // (spymemcached drops the earlier of two equal points).
        let mut held = vec![0u32; servers.len()];
        for &owner in continuum.owners() {
            held[owner as usize] += 1;
        }
        let servers = servers
            .into_iter()
            .zip(held)
            .map(|(spec, points)| {
                Ok(Server {
                    address: to_c_string(spec.address, "server address")?,
                    name: spec
                        .name
                        .map(|n| to_c_string(n, "server name"))
                        .transpose()?,
                    weight: spec.weight,
                    points,
                })
            })
            .collect::<Result<Box<[Server]>, Error>>()?;
        Ok(Ring {
            servers,
            continuum,
            config,
            key_hash,
            search,
            prepare,
            per_key,
        })
    }

    /// Reads a libketama server file and builds a ring from it.
    pub fn from_file(path: &Path, config: RingConfig, mode: ParseMode) -> Result<Ring, Error> {
        let mode = mode.for_flavour(config.flavour);
        Ring::new(crate::server_file::load(path, mode)?.servers, config)
    }

    /// The configuration the ring was built with.
    pub fn config(&self) -> RingConfig {
        self.config
    }

    /// How a key's hash becomes a point on the continuum; `None` for a
    /// per-key placement.
    pub fn search(&self) -> Option<Search> {
        self.per_key.is_none().then_some(self.search)
    }

    /// What the flavour's client does to a key before hashing it, on a
    /// continuum (`None`: nothing; a per-key placement prepares keys
    /// itself, [`PerKeyPlacement::prepare_key`]).
    pub fn preparation(&self) -> Option<&'static Preparation> {
        self.prepare
    }

    /// The key hash in use.
    pub fn key_hash(&self) -> HashAlgorithm {
        self.key_hash
    }

    /// The servers, in input order.
    pub fn servers(&self) -> &[Server] {
        &self.servers
    }

    /// The continuum (sorted points and their owners); empty for a flavour
    /// that is not a continuum (see [`Ring::is_continuum`]).
    pub fn continuum(&self) -> &Continuum {
        &self.continuum
    }

    /// True when keys are placed on a continuum; false for the per-key
    /// placements (pymemcache, python-memcached, Cache::Memcached).
    pub fn is_continuum(&self) -> bool {
        self.per_key.is_none()
    }

    /// The per-key placement, for a flavour that is not a continuum.
    pub fn per_key(&self) -> Option<&dyn PerKeyPlacement> {
        self.per_key.as_deref()
    }

    /// True when some server can take a key (a continuum with points, or a
    /// per-key placement).
    pub fn can_place(&self) -> bool {
        self.per_key.is_some() || !self.continuum.is_empty()
    }

    /// Fails with a message naming the flavour when the ring has no
    /// continuum (for point listings: dump, points).
    pub fn require_continuum(&self) -> Result<&Continuum, Error> {
        let placement = match self.per_key.as_deref() {
            None => return Ok(&self.continuum),
            Some(per_key) => per_key.describe(),
        };
        Err(Error::InvalidArgument(format!(
            "flavour {} places each key on its own ({placement}): it has no continuum points",
            self.config.flavour.name(),
        )))
    }

    /// Hashes `key` with the ring's key hash (after the hash tag and the
    /// flavour's key preparation, see [`Ring::preparation`] and
    /// [`PerKeyPlacement::prepare_key`]).
    #[inline]
    pub fn hash_key(&self, key: &[u8]) -> u32 {
        let key = self.config.options.tagged(key);
        match (self.prepare, self.per_key.as_deref()) {
            (None, None) => self.key_hash.hash(key),
            (Some(prepare), _) => self.key_hash.hash(&prepare.apply(key)),
            (None, Some(per_key)) => self.key_hash.hash(&per_key.prepare_key(key)),
        }
    }

    /// [`Ring::hash_key`] for many keys at once (MD5 in SIMD lanes).
    pub fn hash_keys(&self, keys: &[&[u8]], out: &mut [u32]) {
        match (self.prepare, self.per_key.as_deref()) {
            (None, None) if self.config.options.hash_tag.is_none() => {
                self.key_hash.hash_many(keys, out)
            }
            _ => out
                .iter_mut()
                .zip(keys)
                .for_each(|(hash, key)| *hash = self.hash_key(key)),
        }
    }

    /// Where a key hash lands (through the flavour's [`Search`]);
    /// `None` when no server owns any point. A modulo placement answers for
    /// its bucket hash; rendezvous hashing scores keys, not hashes: `None`.
    #[inline]
    pub fn locate_hash(&self, hash: u32) -> Option<Location> {
        match self.search.locate(&self.continuum, hash) {
            Some(point_index) => Some(self.location(point_index)),
            None => self.locate_hash_per_key(hash),
        }
    }

    #[cold]
    fn locate_hash_per_key(&self, hash: u32) -> Option<Location> {
        self.per_key.as_deref()?.locate_hash(hash)
    }

    /// Where `key` lands; `None` when no server owns any point.
    #[inline]
    pub fn locate(&self, key: &[u8]) -> Option<Location> {
        if self.per_key.is_some() {
            return self.locate_per_key_up(key);
        }
        self.locate_hash(self.hash_key(key))
    }

    /// The index (input order) of the server `key` lands on; `None` when
    /// no server owns any point. The same server as [`Ring::locate`].
    #[inline]
    pub fn server_index(&self, key: &[u8]) -> Option<u32> {
        self.locate(key).map(|at| at.server_index as u32)
    }

    /// The per-key placements' lookup, skipping servers that are down as
    /// their peer does (rendezvous: the best live score; modulo: the peer's
    /// rehashing, which gives up after 10 or 20 buckets).
    #[cold]
    fn locate_per_key(&self, key: &[u8], is_down: &dyn Fn(usize) -> bool) -> Option<Location> {
        let key = self.config.options.tagged(key);
        self.per_key.as_deref()?.locate(key, self.key_hash, is_down)
    }

    /// A per-key placement's lookup with every server up: by the key hash
    /// where the placement places hashes, else by the key.
    #[cold]
    fn locate_per_key_up(&self, key: &[u8]) -> Option<Location> {
        let key = self.config.options.tagged(key);
        self.per_key.as_deref()?.locate_up(key, self.key_hash)
    }

    /// The server that holds `key`.
    #[inline]
    pub fn find_server(&self, key: &[u8]) -> Option<&Server> {
        self.locate(key).map(|l| &self.servers[l.server_index])
    }

    /// Failover lookup: the first point at or after `key`'s position whose
    /// server is not down, walking the continuum (without rebuilding it);
    /// HAProxy's, the nearest point of a server that is up. The per-key placements skip down servers as their peer does:
    /// pymemcache scores only live servers; python-memcached and
    /// Cache::Memcached rehash the key and give up after 10 and 20 buckets.
    /// When no server can take the key, the error says why
    /// ([`Error::NoServerAvailable`]): the ring has no points, every server
    /// owning points is down, or the per-key placement found no live server.
    pub fn locate_live(
        &self,
        key: &[u8],
        is_down: impl Fn(usize) -> bool,
    ) -> Result<Location, Error> {
        if !self.can_place() {
            return Err(Error::no_points());
        }
        if self.per_key.is_some() {
            return self.locate_per_key(key, &is_down).ok_or_else(|| {
                Error::NoServerAvailable(format!(
                    "flavour {} found no live server for the key (every server is down, \
                     or its rehashing gave up as the client does)",
                    self.config.flavour.name()
                ))
            });
        }
        let owners = self.continuum.owners();
        self.search
            .locate_live(&self.continuum, self.hash_key(key), |i| {
                !is_down(owners[i] as usize)
            })
            .map(|i| self.location(i))
            .ok_or_else(|| {
                Error::NoServerAvailable("every server owning points is marked down".into())
            })
    }

    /// [`Ring::locate_live`] with the servers whose indices are listed in
    /// `down` skipped; an index past the last server is an error.
    pub fn locate_avoiding(&self, key: &[u8], down: &[u32]) -> Result<Location, Error> {
        let mut is_down = vec![false; self.servers.len()];
        for &index in down {
            *is_down.get_mut(index as usize).ok_or_else(|| {
                Error::InvalidArgument(format!("down server index {index} is out of range"))
            })? = true;
        }
        self.locate_live(key, |s| is_down[s])
    }

    /// The point at `point_index` in continuum order.
    pub fn location(&self, point_index: usize) -> Location {
        Location {
            point_index,
            point: self.continuum.points()[point_index],
            server_index: self.continuum.owners()[point_index] as usize,
        }
    }
}

/// Reads a server file's bytes, bounded and stable (see
/// [`crate::server_file`]), with errors that name the path and the reason
/// (missing file, permission, directory, device, size).
pub fn read_server_file(path: &Path) -> Result<Vec<u8>, Error> {
    crate::server_file::read_bytes(path)
}

fn to_c_string(bytes: Vec<u8>, what: &str) -> Result<CString, Error> {
    CString::new(bytes).map_err(|e| {
        Error::InvalidArgument(format!(
            "{what} contains a NUL byte at offset {}",
            e.nul_position()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_servers() -> Ring {
        let servers = vec![
            ServerSpec::new("127.0.0.1:11211", 600),
            ServerSpec::new("127.0.0.1:11212", 400),
        ];
        Ring::new(servers, RingConfig::default()).unwrap()
    }

    #[test]
    fn python_binding_vector() {
        let ring = two_servers();
        let at = ring.locate(b"test").unwrap();
        assert_eq!(at.point, 3_454_255_383);
        assert_eq!(
            ring.servers()[at.server_index].address(),
            b"127.0.0.1:11211"
        );
    }

    #[test]
    fn a_point_label_hashes_onto_its_point() {
        let ring = two_servers();
        let at = ring.locate(b"127.0.0.1:11212-7").unwrap();
        assert_eq!(at.point, ring.hash_key(b"127.0.0.1:11212-7"));
        assert_eq!(at.server_index, 1);
    }

    #[test]
    fn failover_skips_down_servers() {
        let ring = two_servers();
        for key in ["a", "b", "c", "user:1", "user:2"] {
            let live = ring.locate_live(key.as_bytes(), |s| s == 0).unwrap();
            assert_eq!(live.server_index, 1);
            assert_eq!(
                ring.locate_live(key.as_bytes(), |_| false).ok(),
                ring.locate(key.as_bytes())
            );
        }
        let why = ring.locate_live(b"x", |_| true).unwrap_err().to_string();
        assert!(
            why.contains("every server owning points is marked down"),
            "{why}"
        );
    }

    #[test]
    fn nul_in_address_is_rejected() {
        let err = Ring::new(vec![ServerSpec::new("a\0b", 1)], RingConfig::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "server address contains a NUL byte at offset 1"
        );
    }

    #[test]
    fn point_counts_add_up_to_the_continuum_after_the_tie_rule() {
        // 2,000 spymemcached servers: some equal points are dropped (later wins).
        let servers: Vec<ServerSpec> = (0..2000)
            .map(|i| ServerSpec::unweighted(format!("10.{}.{}.1:11211", i / 250, i % 250)))
            .collect();
        let ring = Ring::new(servers, RingConfig::flavour(Flavour::Spymemcached)).unwrap();
        let total: usize = ring
            .servers()
            .iter()
            .map(|s| s.point_count() as usize)
            .sum();
        assert_eq!(total, ring.continuum().len());
    }

    #[test]
    fn a_short_pecl_list_cannot_ask_for_unbounded_points() {
        let servers = vec![
            ServerSpec::new("a:1", 104_857),
            ServerSpec::new("b:1", 104_857),
        ];
        let err = Ring::new(servers, RingConfig::flavour(Flavour::PeclMemcache)).unwrap_err();
        assert!(err.to_string().contains("more than 16777216"), "{err}");
    }
}
