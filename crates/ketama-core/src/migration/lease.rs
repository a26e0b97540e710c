//! Leases: the value a warm-up reader stores on the new owner of a moved
//! key before it reads the old owner, so that its copy lands only if
//! nothing was written or deleted in between (it is replaced by CAS on the
//! lease, and any set, delete or eviction changes the CAS unique).
//!
//! A lease is printable ASCII after one NUL byte, so that it survives every
//! client's string handling: `"\0ketama-lease\0"` and 32 hexadecimal digits
//! of a token unique to the reader. No client ever returns a lease to its
//! caller: a lease read back is a miss.

use std::sync::atomic::{AtomicU64, Ordering};

/// What every lease begins with.
pub const LEASE_PREFIX: &[u8] = b"\0ketama-lease\0";

/// Length of a lease in bytes.
pub const LEASE_LEN: usize = LEASE_PREFIX.len() + 32;

/// One lease's bytes.
pub type Lease = [u8; LEASE_LEN];

/// True when `value` is a lease (anybody's).
#[inline]
pub fn is_lease(value: &[u8]) -> bool {
    value.len() == LEASE_LEN && value.starts_with(LEASE_PREFIX)
}

/// Hands out leases no other process or migration hands out: a random
/// 64-bit seed per source and a counter.
#[derive(Debug)]
pub struct Leases {
    seed: u64,
    counter: AtomicU64,
}

impl Leases {
    /// A source with a fresh random seed.
    pub fn new() -> Leases {
        Leases {
            seed: random_seed(),
            counter: AtomicU64::new(0),
        }
    }

    /// A source with a given seed (tests and models).
    pub fn with_seed(seed: u64) -> Leases {
        Leases {
            seed,
            counter: AtomicU64::new(0),
        }
    }

    /// The next lease.
    pub fn next(&self) -> Lease {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let mut lease = [0u8; LEASE_LEN];
        lease[..LEASE_PREFIX.len()].copy_from_slice(LEASE_PREFIX);
        let token = (u128::from(self.seed) << 64) | u128::from(n);
        for (i, digit) in lease[LEASE_PREFIX.len()..].iter_mut().enumerate() {
            *digit = b"0123456789abcdef"[(token >> (124 - 4 * i) & 0xf) as usize];
        }
        lease
    }
}

impl Default for Leases {
    fn default() -> Self {
        Leases::new()
    }
}

/// 64 random bits from the kernel, or (if it cannot be read) from the
/// clock, the process id and an address, mixed.
fn random_seed() -> u64 {
    use std::io::Read;
    let mut bytes = [0u8; 8];
    if std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .is_ok()
    {
        return u64::from_le_bytes(bytes);
    }
    use std::hash::{BuildHasher, Hasher};
    let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
    hasher.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    hasher.write_u32(std::process::id());
    hasher.write_usize(&bytes as *const _ as usize);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leases_are_unique_recognised_and_printable_after_the_nul() {
        let a = Leases::new();
        let b = Leases::new();
        let (x, y, z) = (a.next(), a.next(), b.next());
        assert!(x != y && x != z && y != z);
        for lease in [x, y, z] {
            assert!(is_lease(&lease));
            assert!(lease[1..].iter().all(|&c| c == 0 || c.is_ascii_graphic()));
        }
        assert!(!is_lease(b"\0ketama-lease\0"));
        assert!(!is_lease(&x[..LEASE_LEN - 1]));
        assert!(!is_lease(b"value"));
        let fixed = Leases::with_seed(7).next();
        assert_eq!(
            &fixed[LEASE_PREFIX.len()..],
            b"00000000000000070000000000000000"
        );
    }
}
