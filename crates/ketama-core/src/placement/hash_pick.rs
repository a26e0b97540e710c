//! Placements that send a key straight to one server from a 64-bit hash
//! of it, with no failover (a key whose server is down has none): the
//! client's hash of the key, the client's rule from that hash to a bucket
//! among the servers (`hash % n`, a jump hash), and optionally the order
//! the buckets are laid over the servers (a client that sorts its list).
//! Used by `rust-memcache`, `memcached-proxy` and `dskit-jump`.

use crate::hash::HashAlgorithm;
use crate::placement::per_key::{Location, PerKeyPlacement};

/// A key's bucket from its 64-bit hash, among this many buckets.
pub type Bucket = fn(hash: u64, buckets: u32) -> u32;

/// `hash % buckets` over all 64 bits.
pub fn modulo(hash: u64, buckets: u32) -> u32 {
    (hash % u64::from(buckets)) as u32
}

/// One server per key from a 64-bit hash of it.
#[derive(Debug, Clone)]
pub struct HashPick {
    /// What it does, as messages name it.
    describe: &'static str,
    /// The client's 64-bit hash of a key.
    hash: fn(&[u8]) -> u64,
    /// The client's bucket of a hash.
    bucket: Bucket,
    /// How many buckets (one per server, or per entry of the list).
    buckets: u32,
    /// The server of each bucket, when the client reorders its list;
    /// empty: bucket `i` is server `i`.
    order: Vec<usize>,
}

impl HashPick {
    /// Buckets over `servers` servers in list order.
    pub fn new(
        describe: &'static str,
        hash: fn(&[u8]) -> u64,
        bucket: Bucket,
        servers: usize,
    ) -> Self {
        HashPick {
            describe,
            hash,
            bucket,
            buckets: servers as u32,
            order: Vec::new(),
        }
    }

    /// Buckets laid over the servers in `order` (server indices).
    pub fn ordered(
        describe: &'static str,
        hash: fn(&[u8]) -> u64,
        bucket: Bucket,
        order: Vec<usize>,
    ) -> Self {
        HashPick {
            buckets: order.len() as u32,
            order,
            ..HashPick::new(describe, hash, bucket, 0)
        }
    }

    /// The key's bucket and server, with the low 32 bits of its hash.
    #[inline]
    fn place(&self, key: &[u8]) -> Option<Location> {
        if self.buckets == 0 {
            return None;
        }
        let hash = (self.hash)(key);
        let bucket = (self.bucket)(hash, self.buckets) as usize;
        Some(Location {
            point_index: bucket,
            point: hash as u32,
            server_index: self.order.get(bucket).copied().unwrap_or(bucket),
        })
    }
}

impl PerKeyPlacement for HashPick {
    fn describe(&self) -> &'static str {
        self.describe
    }

    fn heap_bytes(&self) -> usize {
        self.order.len() * size_of::<usize>()
    }

    fn locate(
        &self,
        key: &[u8],
        _hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        self.place(key).filter(|at| !is_down(at.server_index))
    }

    #[inline]
    fn locate_up(&self, key: &[u8], _hash: HashAlgorithm) -> Option<Location> {
        self.place(key)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn low_byte(key: &[u8]) -> u64 {
        u64::from(key.first().copied().unwrap_or(0)) << 32 | 7
    }

    #[test]
    fn buckets_servers_and_no_failover() {
        let pick = HashPick::new("test", low_byte, modulo, 3);
        let at = pick.locate_up(b"\x05", HashAlgorithm::Md5).unwrap();
        assert_eq!(
            (at.server_index, at.point),
            ((5u64 << 32 | 7) as usize % 3, 7)
        );
        let down = pick.locate(b"\x05", HashAlgorithm::Md5, &|s| s == at.server_index);
        assert_eq!(down, None);
        let ordered = HashPick::ordered("test", low_byte, modulo, vec![2, 0, 1]);
        let at = ordered.locate_up(b"\x05", HashAlgorithm::Md5).unwrap();
        assert_eq!(at.server_index, [2, 0, 1][(5u64 << 32 | 7) as usize % 3]);
        assert_eq!(
            HashPick::new("test", low_byte, modulo, 0).locate_up(b"k", HashAlgorithm::Md5),
            None
        );
    }
}
