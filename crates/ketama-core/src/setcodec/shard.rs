//! Large sets: one set spread over N keys `<base>.<i>`.
//!
//! * Member → shard: `fnv1a64(member) % N`, with FNV-1a 64 (offset basis
//!   0xcbf29ce484222325, prime 0x100000001b3) over the member's bytes, so any
//!   language can reproduce it. Every record of a member goes to one key, so
//!   per-key APPEND order keeps replay correct and SCARD is the sum.
//! * Keys: `<base>.<i>` with `i` in decimal, `0 <= i < N`; the base must be
//!   a valid memcached text key (bytes 0x21-0x7E, 0x80-0xFF) and
//!   `len(base) + 1 + digits(N-1) <= 250`.
//! * N lives in the index item `<base>`, created with ADD, whose value is
//!   the T1 set of shard ids `+0 +1 ... +N-1 `; every client reads N from it.
//! * Placement: each shard key goes to the server the ring picks for it.

use super::decode::{DEFAULT_MAX_MEMBER_LEN, DecodeOptions, decode};
use super::error::{SetError, SetErrorKind};
use super::members::MemberSet;
use super::{Format, Op, encode, ops};
use crate::{KeyGroup, Ring};

/// memcached's key length limit (`KEY_MAX_LENGTH`).
pub const MAX_KEY_LEN: usize = 250;

/// Largest shard count accepted (keeps every per-shard table small).
pub const MAX_SHARDS: u32 = 65_536;

/// FNV-1a 64 of `bytes`.
pub fn fnv1a64(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |hash, &b| {
        (hash ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The shard of `member` among `count` shards (`count >= 1`).
pub fn shard_of(member: &[u8], count: u32) -> u32 {
    (fnv1a64(member) % count.max(1) as u64) as u32
}

/// A shard key with the server that holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placement {
    /// Shard number.
    pub shard: u32,
    /// The key `<base>.<shard>`.
    pub key: Vec<u8>,
    /// Index of the server (input order of the ring).
    pub server_index: usize,
}

/// How a set is sharded: the base key and the number of shards.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardLayout {
    base: Vec<u8>,
    count: u32,
}

impl ShardLayout {
    /// A layout of `count` shards under `base`, checking the key rules.
    pub fn new(base: &[u8], count: u32) -> Result<ShardLayout, SetError> {
        if count == 0 || count > MAX_SHARDS {
            return Err(SetError::invalid(format!(
                "the shard count must be 1..={MAX_SHARDS}, not {count}"
            )));
        }
        if base.is_empty() {
            return Err(SetError::invalid("the base key is empty"));
        }
        if let Some(at) = base.iter().position(|&b| b <= 0x20 || b == 0x7F) {
            return Err(SetError::invalid(format!(
                "byte 0x{:02x} at offset {at} of the base key is not allowed in a memcached key",
                base[at]
            )));
        }
        let longest = base.len() + 1 + (count - 1).to_string().len();
        if longest > MAX_KEY_LEN {
            return Err(SetError::invalid(format!(
                "shard keys would be {longest} bytes; memcached keys are at most {MAX_KEY_LEN}"
            )));
        }
        Ok(ShardLayout {
            base: base.to_vec(),
            count,
        })
    }

    /// The base key (also the index item's key).
    pub fn base(&self) -> &[u8] {
        &self.base
    }

    /// Number of shards.
    pub fn count(&self) -> u32 {
        self.count
    }

    /// The key of shard `shard`: `<base>.<shard>`.
    pub fn shard_key(&self, shard: u32) -> Result<Vec<u8>, SetError> {
        if shard >= self.count {
            return Err(SetError::invalid(format!(
                "shard {shard} is out of range (the set has {})",
                self.count
            )));
        }
        let mut key = self.base.clone();
        key.push(b'.');
        key.extend_from_slice(shard.to_string().as_bytes());
        Ok(key)
    }

    /// Every shard key in shard order.
    pub fn keys(&self) -> Vec<Vec<u8>> {
        (0..self.count)
            .filter_map(|i| self.shard_key(i).ok())
            .collect()
    }

    /// The shard of `member`.
    pub fn shard_of(&self, member: &[u8]) -> u32 {
        shard_of(member, self.count)
    }

    /// Splits one batch into one payload per shard that receives members
    /// (shard, payload), in shard order.
    pub fn split<M: AsRef<[u8]>>(
        &self,
        op: Op,
        members: &[M],
        format: Format,
        max_member_len: usize,
    ) -> Result<Vec<(u32, Vec<u8>)>, SetError> {
        let mut groups: Vec<Vec<&[u8]>> = vec![Vec::new(); self.count as usize];
        for member in members {
            groups[self.shard_of(member.as_ref()) as usize].push(member.as_ref());
        }
        groups
            .into_iter()
            .enumerate()
            .filter(|(_, group)| !group.is_empty())
            .map(|(shard, group)| Ok((shard as u32, encode(op, &group, format, max_member_len)?)))
            .collect()
    }

    /// The index item's value: the T1 set of shard ids.
    pub fn index_value(&self) -> Vec<u8> {
        let ids: Vec<String> = (0..self.count).map(|i| i.to_string()).collect();
        encode(Op::Add, &ids, Format::T1, DEFAULT_MAX_MEMBER_LEN).unwrap_or_default()
    }

    /// Reads a layout from the index item: its members must be exactly `0..N`.
    pub fn from_index(base: &[u8], value: &[u8]) -> Result<ShardLayout, SetError> {
        let set = decode(value, &DecodeOptions::format(Some(Format::T1)))?;
        let count =
            u32::try_from(set.members.len()).map_err(|_| SetError::invalid("too many shards"))?;
        for i in 0..count {
            if !set.members.contains(i.to_string().as_bytes()) {
                return Err(SetError::new(
                    SetErrorKind::BadListEntry,
                    0,
                    i as usize,
                    format!("the index lists {count} shards but not shard {i}"),
                ));
            }
        }
        ShardLayout::new(base, count)
    }

    /// Where each shard key lives on `ring`.
    pub fn placements(&self, ring: &Ring) -> Result<Vec<Placement>, SetError> {
        (0..self.count)
            .map(|shard| {
                let key = self.shard_key(shard)?;
                let at = ring
                    .locate(&key)
                    .ok_or_else(|| SetError::invalid("the ring has no points"))?;
                Ok(Placement {
                    shard,
                    key,
                    server_index: at.server_index,
                })
            })
            .collect()
    }

    /// The multi-GET plan for reading the whole set: the shards grouped by
    /// the server that holds them ([`Ring::group_keys`] over the shard
    /// keys), so a read costs one multi-get per server. Each group's
    /// `key_indices` are shard numbers, ascending.
    pub fn fetch_plan(&self, ring: &Ring) -> Result<Vec<KeyGroup>, SetError> {
        let keys = self.keys();
        let refs: Vec<&[u8]> = keys.iter().map(Vec::as_slice).collect();
        ring.group_keys(&refs)
            .map_err(|e| SetError::invalid(format!("cannot plan the shard reads: {e}")))
    }

    /// Checks that every member of shard `shard`'s set belongs there (a
    /// member in the wrong shard means clients disagree on N).
    pub fn check_shard(&self, shard: u32, members: &MemberSet) -> Result<(), SetError> {
        match members.iter().position(|m| self.shard_of(m) != shard) {
            None => Ok(()),
            Some(index) => Err(SetError::new(
                SetErrorKind::BadListEntry,
                0,
                index,
                format!(
                    "member {index} of shard {shard} belongs to shard {}",
                    self.shard_of(members.get(index).unwrap_or_default())
                ),
            )),
        }
    }

    /// The whole set from its decoded shards (in shard order), checking placement.
    pub fn merge(&self, shards: &[MemberSet]) -> Result<MemberSet, SetError> {
        if shards.len() != self.count as usize {
            return Err(SetError::invalid(format!(
                "{} shard values given for {} shards",
                shards.len(),
                self.count
            )));
        }
        for (shard, members) in shards.iter().enumerate() {
            self.check_shard(shard as u32, members)?;
        }
        Ok(ops::union(&shards.iter().collect::<Vec<_>>()))
    }
}
