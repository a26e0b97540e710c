//! pymemcache's `HashClient` with its default hasher, `RendezvousHash`
//! (pymemcache 3.5, `client/rendezvous.py`, `client/hash.py`,
//! `client/murmur3.py`): not a continuum. Every key scores every server and
//! the highest score wins:
//!
//! * a server's node name is `'%s:%s' % (host, port)` after
//!   `normalize_server_spec`: `host:port` with the port read as an integer,
//!   `[v6]:port` loses its brackets, a host without a port gets 11211, and
//!   `unix:PATH` (or `/PATH`) is the path itself;
//! * the score is `murmur3_32("%s-%s" % (node, key), seed=0)`, where the
//!   pure-Python murmur3 reads each *character* of the string and keeps the
//!   low byte of its code point (the length is counted in characters);
//! * the first server with the highest score wins; an equal score goes to
//!   the node whose name is greater (`max(str(node), str(winner))`).
//!
//! Keys are taken as the `str` keys pymemcache users pass: UTF-8 bytes are
//! decoded to characters (a byte that is not valid UTF-8 counts as one
//! character with that byte's value). pymemcache refuses non-ASCII keys
//! unless `allow_unicode_keys=True`; with bytes keys it hashes their
//! `repr` (`b'...'`), so give the library that text. Servers marked down are
//! left out of the scoring, as `HashClient` removes a dead node.

use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::{Error, ServerSpec};

/// pymemcache `HashClient`: murmur3_32 scores, not a continuum.
pub static PLACEMENT: Placement =
    Placement::per_key(&[HashAlgorithm::Murmur3Seed0], |servers, _| {
        Ok(std::sync::Arc::new(Rendezvous::new(servers)?) as PerKey)
    });

/// The servers' node names, prepared for scoring.
#[derive(Debug, Clone)]
pub struct Rendezvous {
    /// Each server's node name as the low bytes of its characters, followed by `-`.
    prefixes: Box<[Box<[u8]>]>,
    /// The node names as pymemcache's `str` compares them (code point order = UTF-8 byte order).
    names: Box<[Box<[u8]>]>,
}

/// The node name pymemcache gives a server written as `address`.
pub fn node_name(address: &[u8]) -> Result<Vec<u8>, Error> {
    let text = std::str::from_utf8(address).map_err(|_| {
        Error::InvalidArgument(format!(
            "pymemcache: server {:?} is not UTF-8 text",
            String::from_utf8_lossy(address)
        ))
    })?;
    if let Some(path) = text.strip_prefix("unix:") {
        return Ok(path.as_bytes().to_vec());
    }
    if text.starts_with('/') {
        return Ok(address.to_vec());
    }
    let (host, port) = if !text.contains(':') || text.ends_with(']') {
        (text, 11211u64)
    } else {
        let (host, port) = text.rsplit_once(':').expect("contains ':'");
        let digits = port.trim_matches(|c: char| c.is_ascii_whitespace());
        let port = digits
            .strip_prefix('+')
            .unwrap_or(digits)
            .parse::<u64>()
            .map_err(|_| {
                Error::InvalidArgument(format!(
                    "pymemcache: server {text:?} has a port int() cannot read"
                ))
            })?;
        (host, port)
    };
    let host = if host.starts_with('[') {
        host.trim_matches(|c| c == '[' || c == ']')
    } else {
        host
    };
    Ok(format!("{host}:{port}").into_bytes())
}

/// The low byte of each character of `text` read as UTF-8 (an invalid byte
/// is one character of its own value), as pymemcache's murmur3 reads a `str`.
pub fn low_bytes(text: &[u8], out: &mut Vec<u8>) {
    for chunk in text.utf8_chunks() {
        out.extend(chunk.valid().chars().map(|c| c as u32 as u8));
        out.extend_from_slice(chunk.invalid());
    }
}

impl Rendezvous {
    /// Prepares the node names of `servers`. pymemcache has no weights: a
    /// weight other than 1 is refused.
    pub fn new(servers: &[ServerSpec]) -> Result<Self, Error> {
        let mut prefixes = Vec::with_capacity(servers.len());
        let mut names = Vec::with_capacity(servers.len());
        for server in servers {
            if server.weight.is_some_and(|w| w != 1) {
                return Err(Error::InvalidArgument(format!(
                    "pymemcache: server {:?} has weight {}, but HashClient has no weights",
                    String::from_utf8_lossy(&server.address),
                    server.weight.unwrap_or(1)
                )));
            }
            let name = node_name(&server.address)?;
            let mut prefix = Vec::with_capacity(name.len() + 1);
            low_bytes(&name, &mut prefix);
            prefix.push(b'-');
            prefixes.push(prefix.into_boxed_slice());
            names.push(name.into_boxed_slice());
        }
        Ok(Rendezvous {
            prefixes: prefixes.into_boxed_slice(),
            names: names.into_boxed_slice(),
        })
    }

    /// The winning server for `key` and its score, among servers not down;
    /// `None` when every server is down.
    pub fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: impl Fn(usize) -> bool,
    ) -> Option<(usize, u32)> {
        let mut key_bytes = Vec::with_capacity(key.len());
        low_bytes(key, &mut key_bytes);
        let mut scored = Vec::with_capacity(64 + key_bytes.len());
        let mut winner: Option<(usize, u32)> = None;
        for (index, prefix) in self.prefixes.iter().enumerate() {
            if is_down(index) {
                continue;
            }
            scored.clear();
            scored.extend_from_slice(prefix);
            scored.extend_from_slice(&key_bytes);
            let score = hash.hash(&scored);
            winner = match winner {
                None => Some((index, score)),
                Some((_, best)) if score > best => Some((index, score)),
                Some((held, best)) if score == best && self.names[index] > self.names[held] => {
                    Some((index, score))
                }
                kept => kept,
            };
        }
        winner
    }
}

impl PerKeyPlacement for Rendezvous {
    fn describe(&self) -> &'static str {
        "rendezvous hashing"
    }

    fn heap_bytes(&self) -> usize {
        self.prefixes
            .iter()
            .chain(self.names.iter())
            .map(|bytes| size_of::<Box<[u8]>>() + bytes.len())
            .sum()
    }

    fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        let (server_index, score) = Rendezvous::locate(self, key, hash, is_down)?;
        Some(Location {
            point_index: server_index,
            point: score,
            server_index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn node_names_follow_normalize_server_spec() {
        let name = |a: &str| String::from_utf8(node_name(a.as_bytes()).unwrap()).unwrap();
        assert_eq!(name("10.0.0.1:11211"), "10.0.0.1:11211");
        assert_eq!(name("cache:011212"), "cache:11212");
        assert_eq!(name("cache"), "cache:11211");
        assert_eq!(name("[::1]:11211"), "::1:11211");
        assert_eq!(name("[::1]"), "::1:11211");
        assert_eq!(name("unix:/tmp/mc.sock"), "/tmp/mc.sock");
        assert!(node_name(b"cache:port").is_err());
    }

    #[test]
    fn characters_keep_their_low_byte() {
        let mut out = Vec::new();
        low_bytes("aé鍵".as_bytes(), &mut out);
        assert_eq!(out, [b'a', 0xe9, 0x75]);
        out.clear();
        low_bytes(&[b'x', 0xff, b'y'], &mut out);
        assert_eq!(out, [b'x', 0xff, b'y']);
    }

    #[test]
    fn weights_are_refused_and_down_servers_left_out() {
        let servers = [ServerSpec::new("a:1", 2)];
        assert!(Rendezvous::new(&servers).is_err());
        let servers: Vec<ServerSpec> = (0..5)
            .map(|i| ServerSpec::unweighted(format!("10.0.0.{i}:11211")))
            .collect();
        let r = Rendezvous::new(&servers).unwrap();
        let hash = HashAlgorithm::Murmur3Seed0;
        let (first, _) = r.locate(b"user:1", hash, |_| false).unwrap();
        let (second, _) = r.locate(b"user:1", hash, |s| s == first).unwrap();
        assert_ne!(first, second);
        assert_eq!(r.locate(b"user:1", hash, |_| true), None);
    }
}
