//! Jedis' sharding: `ShardedJedis` (`redis.clients.jedis.util.Sharded`,
//! Jedis 2.10 to 3.x and 4.x's `ShardedJedis`) and 4.x's `JedisSharding`
//! (`ShardedConnectionProvider`), whose rings are the same for shards
//! without names and weights:
//!
//! * shard `i` of the list gets `160 × weight` points, each the hash of
//!   `"SHARD-<i>-NODE-<n>"`, or of `"<name>*<n>"` when the shard has a name
//!   (the name column); weight 1 when none is given;
//! * the hash is `Hashing.MURMUR_HASH` (MurmurHash64A, seed `0x1234ABCD`,
//!   all 64 bits) or `Hashing.MD5` (the first four bytes of MD5,
//!   little-endian: libketama's key hash); points are keys of a
//!   `TreeMap<Long, …>`, so they are ordered as *signed* 64-bit numbers and
//!   of equal points the later shard's is kept;
//! * a key (its UTF-8 bytes, `SafeEncoder.encode`) goes to the first point
//!   at or after its hash (`tailMap`), wrapping to the first point. There
//!   is no failover: a key whose shard is down has no server.
//!
//! Not a 32-bit continuum: a per-key placement on a [`WideRing`] of the
//! signed values mapped to bytes in signed order. The ring of each hash is
//! built the first time a key is placed with it.

use std::sync::{Arc, OnceLock};

use crate::hash::HashAlgorithm;
use crate::hash::murmur64::{JEDIS_SEED, murmur64a};
use crate::placement::Placement;
use crate::placement::budget;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::placement::wide_ring::{WideRing, WideSearch};
use crate::{Error, ServerSpec};

/// Points per unit of weight.
pub const POINTS_PER_WEIGHT: u64 = 160;

/// `ShardedJedis` / `JedisSharding`, MURMUR_HASH first.
pub static PLACEMENT: Placement = Placement::per_key(
    &[HashAlgorithm::JedisMurmur64a, HashAlgorithm::Md5],
    |servers, _| Ok(Arc::new(Sharded::new(servers)?) as PerKey),
)
.with_spellings(&[("murmur", HashAlgorithm::JedisMurmur64a)]);

/// The value Jedis' `Hashing` gives `bytes`, as the signed `long` it is.
pub fn jedis_hash(hash: HashAlgorithm, bytes: &[u8]) -> i64 {
    match hash {
        HashAlgorithm::JedisMurmur64a => murmur64a(bytes, JEDIS_SEED) as i64,
        other => i64::from(other.hash(bytes)),
    }
}

/// A signed value as bytes whose order is the signed order.
fn ordered(value: i64) -> [u8; 8] {
    ((value as u64) ^ (1 << 63)).to_be_bytes()
}

/// The point labels of the shards, each with its shard, in Jedis' order.
fn labels(servers: &[ServerSpec]) -> Result<Vec<(Vec<u8>, u32)>, Error> {
    let total: u64 = servers
        .iter()
        .map(|s| s.weight.unwrap_or(1).saturating_mul(POINTS_PER_WEIGHT))
        .fold(0, u64::saturating_add);
    let mut labels = Vec::with_capacity(budget::check("jedis", total)?);
    for (i, server) in servers.iter().enumerate() {
        let points = server.weight.unwrap_or(1) * POINTS_PER_WEIGHT;
        for n in 0..points {
            let label = match &server.name {
                Some(name) => [name.as_slice(), format!("*{n}").as_bytes()].concat(),
                None => format!("SHARD-{i}-NODE-{n}").into_bytes(),
            };
            labels.push((label, i as u32));
        }
    }
    Ok(labels)
}

/// The shards' labels and the ring each hash has made of them.
#[derive(Debug)]
pub struct Sharded {
    labels: Vec<(Vec<u8>, u32)>,
    murmur: OnceLock<WideRing<8>>,
    md5: OnceLock<WideRing<8>>,
}

impl Sharded {
    /// The shards of `servers` (refused only when the ring would exceed
    /// the point budget).
    pub fn new(servers: &[ServerSpec]) -> Result<Self, Error> {
        Ok(Sharded {
            labels: labels(servers)?,
            murmur: OnceLock::new(),
            md5: OnceLock::new(),
        })
    }

    /// The ring of `hash` as Jedis' `TreeMap` holds it: (signed point,
    /// shard index) in signed order.
    pub fn points(&self, hash: HashAlgorithm) -> Vec<(i64, usize)> {
        let ring = self.ring(hash);
        (0..ring.len())
            .map(|i| {
                let (point, shard) = ring.entry(i);
                let value = u64::from_be_bytes(point) ^ (1 << 63);
                (value as i64, shard)
            })
            .collect()
    }

    /// The ring of `hash`, built on first use.
    fn ring(&self, hash: HashAlgorithm) -> &WideRing<8> {
        let cell = match hash {
            HashAlgorithm::Md5 => &self.md5,
            _ => &self.murmur,
        };
        let hash = match hash {
            HashAlgorithm::Md5 => HashAlgorithm::Md5,
            _ => HashAlgorithm::JedisMurmur64a,
        };
        cell.get_or_init(|| {
            let points = self
                .labels
                .iter()
                .map(|(label, shard)| (ordered(jedis_hash(hash, label)), *shard))
                .collect();
            WideRing::new(points, WideSearch::AtOrAfter)
        })
    }
}

impl PerKeyPlacement for Sharded {
    fn describe(&self) -> &'static str {
        "a ring of signed 64-bit points"
    }

    fn heap_bytes(&self) -> usize {
        let labels: usize = self.labels.iter().map(|(l, _)| l.len() + 32).sum();
        let rings: usize = [&self.murmur, &self.md5]
            .iter()
            .filter_map(|cell| cell.get())
            .map(WideRing::heap_bytes)
            .sum();
        labels + rings
    }

    fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        let hash = match hash {
            HashAlgorithm::Md5 => HashAlgorithm::Md5,
            _ => HashAlgorithm::JedisMurmur64a,
        };
        let at = self
            .ring(hash)
            .locate(&ordered(jedis_hash(hash, key)), &|_| false)?;
        (!is_down(at.server_index)).then_some(at)
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
    fn labels_follow_names_and_weights() {
        let servers = [
            ServerSpec::unweighted("10.0.0.1:6379"),
            ServerSpec {
                address: b"10.0.0.2:6379".to_vec(),
                weight: Some(2),
                name: Some(b"HOST2:1234".to_vec()),
            },
        ];
        let labels = labels(&servers).unwrap();
        assert_eq!(labels.len(), 160 + 320);
        assert_eq!(labels[0], (b"SHARD-0-NODE-0".to_vec(), 0));
        assert_eq!(labels[159], (b"SHARD-0-NODE-159".to_vec(), 0));
        assert_eq!(labels[160], (b"HOST2:1234*0".to_vec(), 1));
        assert_eq!(labels[479], (b"HOST2:1234*319".to_vec(), 1));
    }

    #[test]
    fn signed_order_puts_negative_values_first() {
        assert!(ordered(-1) < ordered(0));
        assert!(ordered(i64::MIN) < ordered(-1));
        assert!(ordered(0) < ordered(i64::MAX));
    }
}
