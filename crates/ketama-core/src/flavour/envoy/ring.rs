//! Envoy's `ring_hash` ring (`RingHashLoadBalancer::Ring`): a ring of
//! 64-bit positions.
//!
//! * **Size**: `scale = min(ceil(least_weight * minimum_ring_size) /
//!   least_weight, maximum_ring_size)` (so the lightest host gets a whole
//!   number of entries), and the ring holds about `scale` entries.
//! * **Entries**: walking the hosts in order with running sums, a host of
//!   normalized weight `w` adds entries while `current < target`, with
//!   `target += scale * w` first and `current += 1` per entry; entry `i` of
//!   a host is the hash of `<hash_key>_<i>`: xxHash64 (seed 0) by default,
//!   MurmurHash2-64 (seed `0xc70f6907`) with `hash_function:
//!   MURMUR_HASH_2`.
//! * **Lookup**: the first entry at or after the request hash, wrapping to
//!   the first entry (libketama's search, on 64 bits). Equal positions
//!   (two hosts with the same `hash_key`) keep the hosts' order here; Envoy
//!   sorts them in an order its sort leaves open.

use super::{Entry, Pick};
use crate::Error;
use crate::hash::murmur64::{ENVOY_SEED, murmur64a};
use crate::hash::xxhash64::xxhash64;

/// The largest ring Envoy accepts (`minimum_ring_size` and
/// `maximum_ring_size` are at most 8M).
pub const MAX_RING_SIZE: u64 = 8 * 1024 * 1024;

pub use crate::placement::options::RingHashFunction;

/// `ring_hash`'s parameters; the default is Envoy's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RingHashConfig {
    /// `minimum_ring_size` (1024).
    pub minimum_ring_size: u64,
    /// `maximum_ring_size` (8M).
    pub maximum_ring_size: u64,
    /// `hash_function` (xxHash64).
    pub hash_function: RingHashFunction,
}

impl Default for RingHashConfig {
    fn default() -> Self {
        RingHashConfig {
            minimum_ring_size: 1024,
            maximum_ring_size: MAX_RING_SIZE,
            hash_function: RingHashFunction::XxHash64,
        }
    }
}

impl RingHashConfig {
    /// The configuration the options set, Envoy's defaults for the rest.
    pub fn from_options(options: &crate::placement::options::Options) -> Self {
        let default = RingHashConfig::default();
        RingHashConfig {
            minimum_ring_size: options.min_ring_size.unwrap_or(default.minimum_ring_size),
            maximum_ring_size: options.max_ring_size.unwrap_or(default.maximum_ring_size),
            hash_function: options.hash_function.unwrap_or_default(),
        }
    }

    /// Fails as Envoy's configuration check does.
    pub fn check(&self) -> Result<(), Error> {
        let (min, max) = (self.minimum_ring_size, self.maximum_ring_size);
        if min == 0 || min > MAX_RING_SIZE || max > MAX_RING_SIZE {
            return Err(Error::InvalidArgument(format!(
                "ring hash: ring sizes must be 1 to {MAX_RING_SIZE} \
                 (minimum_ring_size {min}, maximum_ring_size {max})"
            )));
        }
        if min > max {
            return Err(Error::InvalidArgument(format!(
                "ring hash: minimum_ring_size ({min}) > maximum_ring_size ({max})"
            )));
        }
        Ok(())
    }
}

/// A built ring: positions in ascending order and the host of each.
#[derive(Debug, Clone)]
pub struct RingTable {
    positions: Box<[u64]>,
    hosts: Box<[u32]>,
    size: u64,
    per_host: Vec<(usize, u64)>,
    /// `buckets[b]`: the first entry whose position's top bits are `b` or
    /// more, so a search starts among the few entries of its bucket.
    buckets: Box<[u32]>,
    shift: u32,
}

/// At most 2^14 buckets (64 KiB, as the continuum's index).
const MAX_BUCKET_BITS: u32 = 14;

impl RingTable {
    /// Builds the ring over `entries` (normalized weights, `least` the
    /// smallest).
    pub fn build(entries: &[Entry<'_>], least: f64, config: &RingHashConfig) -> RingTable {
        let scale = ((least * config.minimum_ring_size as f64).ceil() / least)
            .min(config.maximum_ring_size as f64);
        let size = scale.ceil() as u64;
        let mut ring: Vec<(u64, u32)> = Vec::with_capacity(size as usize);
        let mut per_host = Vec::with_capacity(entries.len());
        let (mut current, mut target) = (0.0f64, 0.0f64);
        let mut label = Vec::new();
        for entry in entries {
            label.clear();
            label.extend_from_slice(entry.key);
            label.push(b'_');
            let stem = label.len();
            target += scale * entry.weight;
            let mut i = 0u64;
            while current < target {
                label.truncate(stem);
                label.extend_from_slice(i.to_string().as_bytes());
                let position = match config.hash_function {
                    RingHashFunction::XxHash64 => xxhash64(&label, 0),
                    RingHashFunction::MurmurHash2 => murmur64a(&label, ENVOY_SEED),
                };
                ring.push((position, entry.host as u32));
                i += 1;
                current += 1.0;
            }
            per_host.push((entry.host, i));
        }
        ring.sort_by_key(|&(position, _)| position);
        let (positions, hosts): (Vec<u64>, Vec<u32>) = ring.into_iter().unzip();
        let bits = (usize::BITS - positions.len().leading_zeros()).min(MAX_BUCKET_BITS);
        let shift = 64 - bits;
        let mut buckets = Vec::with_capacity(1 << bits);
        let mut at = 0usize;
        for bucket in 0..1u64 << bits {
            while at < positions.len() && (positions[at].checked_shr(shift).unwrap_or(0)) < bucket {
                at += 1;
            }
            buckets.push(at as u32);
        }
        RingTable {
            positions: positions.into_boxed_slice(),
            hosts: hosts.into_boxed_slice(),
            size,
            per_host,
            buckets: buckets.into_boxed_slice(),
            shift,
        }
    }

    /// The bytes it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        size_of_val(&*self.positions)
            + size_of_val(&*self.hosts)
            + size_of_val(&*self.buckets)
            + size_of_val(&*self.per_host)
    }

    /// The positions, ascending.
    pub fn positions(&self) -> &[u64] {
        &self.positions
    }

    /// The host (server index) of each position.
    pub fn hosts(&self) -> &[u32] {
        &self.hosts
    }

    /// The size Envoy reports (`ring_hash_lb.size`): `ceil(scale)`.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// How many entries each host has (`(server index, entries)` in build
    /// order; Envoy's `min_hashes_per_host` and `max_hashes_per_host` are
    /// their least and largest).
    pub fn entries_per_host(&self) -> &[(usize, u64)] {
        &self.per_host
    }

    /// The entry of the first position at or after `hash`, wrapping to the
    /// first; `None` for an empty ring.
    #[inline]
    pub fn pick(&self, hash: u64) -> Option<Pick> {
        if self.positions.is_empty() {
            return None;
        }
        // The first position >= hash is in the hash's bucket, or is the
        // first of the next non-empty one.
        let bucket = hash.checked_shr(self.shift).unwrap_or(0) as usize;
        let low = self.buckets[bucket] as usize;
        let high = self
            .buckets
            .get(bucket + 1)
            .map_or(self.positions.len(), |&b| b as usize);
        let mut slot = low + self.positions[low..high].partition_point(|&p| p < hash);
        if slot == self.positions.len() {
            slot = 0;
        }
        Some(Pick {
            host: self.hosts[slot] as usize,
            slot,
            point: (self.positions[slot] >> 32) as u32,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bucket_index_finds_what_a_search_finds() {
        let keys: Vec<Vec<u8>> = (0..37)
            .map(|i| format!("10.0.0.{i}:80").into_bytes())
            .collect();
        for (hosts, min) in [(1usize, 1u64), (2, 3), (37, 1024), (37, 20_000)] {
            let entries: Vec<Entry<'_>> = (0..hosts)
                .map(|host| Entry {
                    key: &keys[host],
                    weight: 1.0 / hosts as f64,
                    host,
                })
                .collect();
            let config = RingHashConfig {
                minimum_ring_size: min,
                ..RingHashConfig::default()
            };
            let ring = RingTable::build(&entries, 1.0 / hosts as f64, &config);
            let naive = |h: u64| {
                let slot = ring.positions.partition_point(|&p| p < h);
                if slot == ring.positions.len() {
                    0
                } else {
                    slot
                }
            };
            let mut hashes = vec![0, 1, u64::MAX, u64::MAX - 1, 1 << 63];
            hashes.extend(
                ring.positions
                    .iter()
                    .flat_map(|&p| [p, p.wrapping_sub(1), p.wrapping_add(1)]),
            );
            let mut state = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..10_000 {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1);
                hashes.push(state);
            }
            for h in hashes {
                assert_eq!(
                    ring.pick(h).unwrap().slot,
                    naive(h),
                    "{h} in a ring of {hosts}"
                );
            }
        }
    }
}
