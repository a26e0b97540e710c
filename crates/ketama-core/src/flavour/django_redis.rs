//! django-redis 5.2 sharding, `django_redis.client.ShardClient` (Debian
//! `python3-django-redis`, `client/sharded.py` and `hash_ring.py`):
//!
//! * each server is hashed by its name in `LOCATION` as written, the URL
//!   ShardClient connects to (`redis://10.0.0.1:6379/0`): the name column,
//!   else the address as written; no weights;
//! * 128 points per server, each the SHA-256 of `"<name>:<x>"`, ordered as
//!   hex strings (= as 256-bit integers): not a 32-bit continuum, so a
//!   per-key placement on a [`WideRing`];
//! * keys: the key the cache makes with its default settings
//!   (`KEY_FUNCTION`, `KEY_PREFIX` "", `VERSION` 1): `":1:<key>"`; then
//!   ShardClient's hash tag ([`hash_tags::django_redis`]); then its
//!   SHA-256; the *last* point ≤ it (`bisect` − 1), wrapping to the last;
//! * points are keys of a dictionary: of equal points the later server's
//!   is kept (only a server listed twice has them).

use std::sync::Arc;

use sha2::{Digest, Sha256};

use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::budget;
use crate::placement::hash_tags;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::placement::servers::{name_or_address, refuse_weights};
use crate::placement::wide_ring::{WideRing, WideSearch};
use crate::{Error, ServerSpec};

/// `HashRing`'s default `replicas`.
pub const REPLICAS: u32 = 128;

/// What the cache's default `make_key` puts before a key.
pub const KEY_PREFIX: &[u8] = b":1:";

/// `ShardClient` with its `HashRing`.
pub static PLACEMENT: Placement = Placement::per_key(&[HashAlgorithm::Sha256], |servers, _| {
    Ok(Arc::new(ShardRing::new(servers, REPLICAS)?) as PerKey)
});

/// ShardClient's ring of SHA-256 points.
#[derive(Debug, Clone)]
pub struct ShardRing {
    ring: WideRing<32>,
}

impl ShardRing {
    /// The ring of `servers` with `replicas` points each.
    pub fn new(servers: &[ServerSpec], replicas: u32) -> Result<Self, Error> {
        refuse_weights(servers, "django-redis")?;
        let total = budget::check("django-redis", servers.len() as u64 * u64::from(replicas))?;
        let mut generated = Vec::with_capacity(total);
        for (index, server) in servers.iter().enumerate() {
            let name = name_or_address(server);
            for x in 0..replicas {
                let mut label = Sha256::new();
                label.update(name);
                label.update(format!(":{x}").as_bytes());
                generated.push((label.finalize().into(), index as u32));
            }
        }
        Ok(ShardRing {
            ring: WideRing::new(generated, WideSearch::AtOrBefore),
        })
    }
}

/// The SHA-256 ShardClient computes for `key`: of its tag in
/// `":1:<key>"`, else of the whole made key. The prefix holds no brace and
/// no newline, so the tag is the one of `key` itself.
pub fn key_digest(key: &[u8]) -> [u8; 32] {
    let tag = hash_tags::django_redis(key);
    let mut digest = Sha256::new();
    if tag.len() == key.len() {
        digest.update(KEY_PREFIX);
    }
    digest.update(tag);
    digest.finalize().into()
}

impl PerKeyPlacement for ShardRing {
    fn describe(&self) -> &'static str {
        "a ring of SHA-256 points"
    }

    fn heap_bytes(&self) -> usize {
        self.ring.heap_bytes()
    }

    fn locate(
        &self,
        key: &[u8],
        _hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        self.ring.locate(&key_digest(key), is_down)
    }

    /// Straight to [`Self::locate`]: a 32-bit key hash places nothing here.
    fn locate_up(&self, key: &[u8], hash: HashAlgorithm) -> Option<Location> {
        self.locate(key, hash, &|_| false)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_made_then_tagged() {
        let sha = |bytes: &[u8]| -> [u8; 32] { Sha256::digest(bytes).into() };
        assert_eq!(key_digest(b"user:1"), sha(b":1:user:1"));
        assert_eq!(key_digest(b"user:{42}:name"), sha(b"42"));
        assert_eq!(key_digest(b"a{}b"), sha(b""));
        assert_eq!(key_digest(b"x\n{y}"), sha(b":1:x\n{y}"));
    }

    #[test]
    fn weights_are_refused() {
        assert!(ShardRing::new(&[ServerSpec::new("redis://a:6379/0", 2)], 128).is_err());
    }
}
