//! Envoy's `maglev` table (`MaglevTable`, the Maglev paper's listing 1 with
//! weights): a table of `table_size` slots (a prime, 65537 by default), a
//! request hash goes to slot `hash % table_size`.
//!
//! * **Order**: hosts are sorted by `hash_key` (bytewise), so the table
//!   does not depend on the order of the server list (two hosts with the
//!   same `hash_key` keep the list's order here; Envoy orders them by
//!   memory address).
//! * **Permutation**: a host's `offset` is `xxHash64(hash_key, 0) %
//!   table_size` and its `skip` is `xxHash64(hash_key, 1) % (table_size - 1)
//!   + 1`; its `next`-th choice is `(offset + skip * next) % table_size`.
//! * **Filling**: rounds `iteration = 1, 2, ...` over the sorted hosts until
//!   the table is full; a host takes a slot in a round when `iteration *
//!   weight >= target` (its target starts at 0 and grows by the largest
//!   normalized weight each time it takes one), the first free slot of its
//!   permutation.

use super::{Entry, Pick};
use crate::Error;
use crate::hash::xxhash64::xxhash64;

/// The largest table Envoy accepts (`table_size` at most 5000011).
pub const MAX_TABLE_SIZE: u64 = 5_000_011;

/// `maglev`'s parameters; the default is Envoy's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MaglevConfig {
    /// `table_size` (65537): a prime.
    pub table_size: u64,
}

impl Default for MaglevConfig {
    fn default() -> Self {
        MaglevConfig { table_size: 65_537 }
    }
}

fn is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
}

impl MaglevConfig {
    /// Fails as Envoy's configuration check does.
    pub fn check(&self) -> Result<(), Error> {
        let size = self.table_size;
        if size > MAX_TABLE_SIZE {
            return Err(Error::InvalidArgument(format!(
                "maglev: table_size {size} is more than {MAX_TABLE_SIZE}"
            )));
        }
        if !is_prime(size) {
            return Err(Error::InvalidArgument(format!(
                "maglev: table_size {size}: The table size of maglev must be prime number"
            )));
        }
        Ok(())
    }
}

/// A built table: the host (server index) of each slot.
#[derive(Debug, Clone)]
pub struct MaglevTable {
    slots: Box<[u32]>,
    per_host: Vec<(usize, u64)>,
}

const FREE: u32 = u32::MAX;

impl MaglevTable {
    /// The bytes it holds on the heap.
    pub fn heap_bytes(&self) -> usize {
        size_of_val(&*self.slots) + size_of_val(&*self.per_host)
    }

    /// Builds the table over `entries` (normalized weights, `largest` the
    /// largest).
    pub fn build(entries: &[Entry<'_>], largest: f64, config: &MaglevConfig) -> MaglevTable {
        let size = config.table_size;
        let mut sorted: Vec<&Entry<'_>> = entries.iter().collect();
        sorted.sort_by(|a, b| a.key.cmp(b.key));
        struct Build {
            host: u32,
            offset: u64,
            skip: u64,
            weight: f64,
            target: f64,
            next: u64,
            count: u64,
        }
        let mut builds: Vec<Build> = sorted
            .iter()
            .map(|e| Build {
                host: e.host as u32,
                offset: xxhash64(e.key, 0) % size,
                skip: xxhash64(e.key, 1) % (size - 1) + 1,
                weight: e.weight,
                target: 0.0,
                next: 0,
                count: 0,
            })
            .collect();
        let mut slots = vec![FREE; size as usize];
        let mut filled = 0u64;
        let mut iteration = 1u32;
        while filled < size && !builds.is_empty() {
            for b in builds.iter_mut() {
                if filled == size {
                    break;
                }
                if f64::from(iteration) * b.weight < b.target {
                    continue;
                }
                b.target += largest;
                let mut c = b.offset.wrapping_add(b.skip.wrapping_mul(b.next)) % size;
                while slots[c as usize] != FREE {
                    b.next += 1;
                    c = b.offset.wrapping_add(b.skip.wrapping_mul(b.next)) % size;
                }
                slots[c as usize] = b.host;
                b.next += 1;
                b.count += 1;
                filled += 1;
            }
            iteration = iteration.wrapping_add(1);
        }
        MaglevTable {
            slots: slots.into_boxed_slice(),
            per_host: builds.iter().map(|b| (b.host as usize, b.count)).collect(),
        }
    }

    /// The host (server index) of each slot.
    pub fn slots(&self) -> &[u32] {
        &self.slots
    }

    /// How many slots each host has (`(server index, slots)` in the sorted
    /// order; Envoy's `min_entries_per_host` and `max_entries_per_host` are
    /// their least and largest).
    pub fn entries_per_host(&self) -> &[(usize, u64)] {
        &self.per_host
    }

    /// The slot `hash % table_size`; `None` for a table without hosts.
    #[inline]
    pub fn pick(&self, hash: u64) -> Option<Pick> {
        let slot = (hash % self.slots.len() as u64) as usize;
        let host = *self.slots.get(slot)?;
        (host != FREE).then_some(Pick {
            host: host as usize,
            slot,
            point: slot as u32,
        })
    }
}
