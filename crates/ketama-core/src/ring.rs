//! The ring: servers plus the one engine that places their keys (a
//! continuum with its search and key preparation, or a per-key placement),
//! immutable and shareable between threads. It is behind the compat ABI,
//! the modern API, the CLI and the Python module.

use std::ffi::CString;
use std::path::Path;
use std::sync::OnceLock;

use crate::continuum::{Continuum, TiePolicy};
use crate::flavour::{Flavour, Options, PerKey, PerKeyPlacement};
use crate::hash::HashAlgorithm;
use crate::parser::ParseMode;
use crate::placement::prepare::Preparation;
use crate::search::Search;
use crate::{Error, ServerSpec};

/// How to build a ring.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RingConfig {
    /// Placement flavour (default: [`Flavour::default`]).
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

    /// The explicit server name, when one was given (the name column).
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

/// How a ring places keys: on a continuum, or each key on its own.
#[derive(Debug, Clone)]
enum Engine {
    /// Sorted points, searched for the hash of the prepared key.
    Continuum {
        continuum: Continuum,
        search: Search,
        prepare: Option<&'static Preparation>,
    },
    /// A placement that scores or buckets each key (no points).
    PerKey(PerKey),
}

/// The continuum of a ring that has none.
fn no_points() -> &'static Continuum {
    static EMPTY: OnceLock<Continuum> = OnceLock::new();
    EMPTY.get_or_init(|| Continuum::new(Vec::new(), TiePolicy::FirstWins))
}

/// The point at `point_index` of `continuum`.
#[inline]
fn location_in(continuum: &Continuum, point_index: usize) -> Location {
    Location {
        point_index,
        point: continuum.points()[point_index],
        server_index: continuum.owners()[point_index] as usize,
    }
}

/// An immutable consistent-hashing ring. `Send + Sync`: share it freely.
#[derive(Debug, Clone)]
pub struct Ring {
    servers: Box<[Server]>,
    config: RingConfig,
    key_hash: HashAlgorithm,
    engine: Engine,
}

impl Ring {
    /// Builds a ring from a server list: the one place where a server list
    /// must not be empty.
    pub fn new(servers: Vec<ServerSpec>, config: RingConfig) -> Result<Ring, Error> {
        let key_hash = Ring::check(&servers, config)?;
        let engine = match config.flavour.per_key(&servers, &config.options)? {
            Some(per_key) => Engine::PerKey(per_key),
            None => {
                let generated = config
                    .flavour
                    .generate(&servers, key_hash, &config.options)?;
                Engine::Continuum {
                    continuum: Continuum::new(generated.points, generated.ties),
                    search: generated.search,
                    prepare: generated.prepare,
                }
            }
        };
        Ring::assemble(servers, config, key_hash, engine)
    }

    /// Checks what [`Ring::new`] checks before it builds: a server list
    /// that is not empty, a key hash and options the flavour offers. The
    /// key hash in use.
    pub(crate) fn check(
        servers: &[ServerSpec],
        config: RingConfig,
    ) -> Result<HashAlgorithm, Error> {
        if servers.is_empty() {
            return Err(Error::NoServers("the server list (it is empty)".into()));
        }
        let key_hash = config.hash.unwrap_or_else(|| config.flavour.default_hash());
        config.flavour.check_hash(key_hash)?;
        config.flavour.check_options(&config.options)?;
        Ok(key_hash)
    }

    /// The ring of `servers` on a continuum already built (from a shared
    /// image, [`crate::ring_cache::shared`]) with its search and key
    /// preparation; `key_hash` as [`Ring::check`] gave it. Every owner is
    /// below the number of servers (the caller has checked).
    pub(crate) fn with_continuum(
        servers: Vec<ServerSpec>,
        config: RingConfig,
        key_hash: HashAlgorithm,
        continuum: Continuum,
        search: Search,
        prepare: Option<&'static Preparation>,
    ) -> Result<Ring, Error> {
        let engine = Engine::Continuum {
            continuum,
            search,
            prepare,
        };
        Ring::assemble(servers, config, key_hash, engine)
    }

    /// The ring of `servers` placed by `engine`.
    fn assemble(
        servers: Vec<ServerSpec>,
        config: RingConfig,
        key_hash: HashAlgorithm,
        engine: Engine,
    ) -> Result<Ring, Error> {
        // Count what each server holds on the continuum after the tie rule
        // (the last-wins rule drops the earlier of two equal points).
        let mut held = vec![0u32; servers.len()];
        let continuum = match &engine {
            Engine::Continuum { continuum, .. } => continuum,
            Engine::PerKey(_) => no_points(),
        };
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
        let ring = Ring {
            servers,
            config,
            key_hash,
            engine,
        };
        // The roll's temporaries are freed by now: their pages go back.
        crate::prefault::return_freed_pages(ring.heap_bytes());
        Ok(ring)
    }

    /// Reads a server file and builds a ring from it.
    pub fn from_file(path: &Path, config: RingConfig, mode: ParseMode) -> Result<Ring, Error> {
        let mode = mode.for_flavour(config.flavour);
        Ring::new(crate::server_file::load(path, mode)?.servers, config)
    }

    /// The bytes the ring holds: its servers (addresses and names as C
    /// strings) and its continuum (its arrays counted whether its own or
    /// mapped from a shared image) or per-key placement. What the ring
    /// cache ([`crate::ring_cache`]) weighs it by.
    pub fn heap_bytes(&self) -> usize {
        let servers: usize = self
            .servers
            .iter()
            .map(|server| {
                size_of::<Server>()
                    + server.address.as_bytes_with_nul().len()
                    + server
                        .name
                        .as_ref()
                        .map_or(0, |n| n.as_bytes_with_nul().len())
            })
            .sum();
        servers
            + match &self.engine {
                Engine::Continuum { continuum, .. } => continuum.heap_bytes(),
                Engine::PerKey(per_key) => per_key.heap_bytes(),
            }
    }

    /// The configuration the ring was built with.
    pub fn config(&self) -> RingConfig {
        self.config
    }

    /// How a key's hash becomes a point on the continuum; `None` for a
    /// per-key placement.
    pub fn search(&self) -> Option<Search> {
        match &self.engine {
            Engine::Continuum { search, .. } => Some(*search),
            Engine::PerKey(_) => None,
        }
    }

    /// What the flavour's client does to a key before hashing it, on a
    /// continuum (`None`: nothing; a per-key placement prepares keys
    /// itself, [`PerKeyPlacement::prepare_key`]).
    pub fn preparation(&self) -> Option<&'static Preparation> {
        match &self.engine {
            Engine::Continuum { prepare, .. } => *prepare,
            Engine::PerKey(_) => None,
        }
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
        match &self.engine {
            Engine::Continuum { continuum, .. } => continuum,
            Engine::PerKey(_) => no_points(),
        }
    }

    /// True when keys are placed on a continuum; false for the per-key
    /// placements.
    pub fn is_continuum(&self) -> bool {
        matches!(self.engine, Engine::Continuum { .. })
    }

    /// The per-key placement, for a flavour that is not a continuum.
    pub fn per_key(&self) -> Option<&dyn PerKeyPlacement> {
        match &self.engine {
            Engine::Continuum { .. } => None,
            Engine::PerKey(per_key) => Some(&**per_key),
        }
    }

    /// True when some server can take a key (a continuum with points, or a
    /// per-key placement).
    pub fn can_place(&self) -> bool {
        match &self.engine {
            Engine::Continuum { continuum, .. } => !continuum.is_empty(),
            Engine::PerKey(_) => true,
        }
    }

    /// Fails with a message naming the flavour when the ring has no
    /// continuum (for point listings: dump, points).
    pub fn require_continuum(&self) -> Result<&Continuum, Error> {
        match &self.engine {
            Engine::Continuum { continuum, .. } => Ok(continuum),
            Engine::PerKey(per_key) => Err(Error::InvalidArgument(format!(
                "flavour {} places each key on its own ({}): it has no continuum points",
                self.config.flavour.name(),
                per_key.describe(),
            ))),
        }
    }

    /// Hashes `key` with the ring's key hash (after the hash tag and the
    /// flavour's key preparation, see [`Ring::preparation`] and
    /// [`PerKeyPlacement::prepare_key`]).
    #[inline]
    pub fn hash_key(&self, key: &[u8]) -> u32 {
        match &self.engine {
            Engine::Continuum { prepare, .. } => self.hash_prepared(key, *prepare),
            Engine::PerKey(per_key) => {
                let key = self.config.options.tagged(key);
                self.key_hash.hash(&per_key.prepare_key(key))
            }
        }
    }

    /// The key hash of `key` after the hash tag and `prepare`.
    #[inline]
    fn hash_prepared(&self, key: &[u8], prepare: Option<&'static Preparation>) -> u32 {
        let key = self.config.options.tagged(key);
        match prepare {
            None => self.key_hash.hash(key),
            Some(prepare) => self.key_hash.hash(&prepare.apply(key)),
        }
    }

    /// [`Ring::hash_key`] for many keys at once (MD5 in SIMD lanes).
    pub fn hash_keys(&self, keys: &[&[u8]], out: &mut [u32]) {
        match &self.engine {
            Engine::Continuum { prepare: None, .. } if self.config.options.hash_tag.is_none() => {
                self.key_hash.hash_many(keys, out)
            }
            _ => out
                .iter_mut()
                .zip(keys)
                .for_each(|(hash, key)| *hash = self.hash_key(key)),
        }
    }

    /// Where a key hash lands (through the flavour's [`Search`]);
    /// `None` when no server owns any point. A per-key placement answers
    /// where it places hashes (a modulo answers for its bucket hash), and
    /// `None` where it places keys (scores, rings wider than 32 bits).
    #[inline]
    pub fn locate_hash(&self, hash: u32) -> Option<Location> {
        match &self.engine {
            Engine::Continuum {
                continuum, search, ..
            } => search
                .locate(continuum, hash)
                .map(|i| location_in(continuum, i)),
            Engine::PerKey(per_key) => Self::locate_hash_per_key(&**per_key, hash),
        }
    }

    #[cold]
    fn locate_hash_per_key(per_key: &dyn PerKeyPlacement, hash: u32) -> Option<Location> {
        per_key.locate_hash(hash)
    }

    /// Where `key` lands; `None` when no server owns any point.
    #[inline]
    pub fn locate(&self, key: &[u8]) -> Option<Location> {
        match &self.engine {
            Engine::Continuum {
                continuum,
                search,
                prepare,
            } => search
                .locate(continuum, self.hash_prepared(key, *prepare))
                .map(|i| location_in(continuum, i)),
            Engine::PerKey(per_key) => self.locate_per_key_up(&**per_key, key),
        }
    }

    /// The index (input order) of the server `key` lands on; `None` when
    /// no server owns any point. The same server as [`Ring::locate`].
    #[inline]
    pub fn server_index(&self, key: &[u8]) -> Option<u32> {
        self.locate(key).map(|at| at.server_index as u32)
    }

    /// A per-key placement's lookup with every server up: by the key hash
    /// where the placement places hashes, else by the key.
    #[cold]
    fn locate_per_key_up(&self, per_key: &dyn PerKeyPlacement, key: &[u8]) -> Option<Location> {
        let key = self.config.options.tagged(key);
        per_key.locate_up(key, self.key_hash)
    }

    /// The server that holds `key`.
    #[inline]
    pub fn find_server(&self, key: &[u8]) -> Option<&Server> {
        self.locate(key).map(|l| &self.servers[l.server_index])
    }

    /// Failover lookup: where `key` lands when the servers `is_down` names
    /// are down, without rebuilding the ring. On a continuum the flavour's
    /// search says how ([`Search::locate_live`]: most walk on to the next
    /// point of a live server); a per-key placement skips down servers as
    /// its client does ([`PerKeyPlacement::locate`]: scoring only the live
    /// servers, rehashing the key and giving up after so many tries, or not
    /// at all). When no server can take the key, the error says why
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
        match &self.engine {
            Engine::Continuum {
                continuum,
                search,
                prepare,
            } => {
                let owners = continuum.owners();
                let hash = self.hash_prepared(key, *prepare);
                search
                    .locate_live(continuum, hash, |i| !is_down(owners[i] as usize))
                    .map(|i| location_in(continuum, i))
                    .ok_or_else(|| {
                        Error::NoServerAvailable("every server owning points is marked down".into())
                    })
            }
            Engine::PerKey(per_key) => {
                let key = self.config.options.tagged(key);
                per_key.locate(key, self.key_hash, &is_down).ok_or_else(|| {
                    Error::NoServerAvailable(format!(
                        "flavour {} found no live server for the key (every server is \
                             down, or its rehashing gave up as the client does)",
                        self.config.flavour.name()
                    ))
                })
            }
        }
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
        location_in(self.continuum(), point_index)
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
}
