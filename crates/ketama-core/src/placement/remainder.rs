//! Taking a key hash modulo a count, as the modulo schemes do
//! ([`super::bucket_list`], [`super::server_modulo`]): what a client takes
//! from the hash ([`Select`]) and the division itself ([`Divisor`]).

/// What a client takes modulo the count (of servers or buckets), from the
/// 32-bit key hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Select {
    /// The hash as an unsigned 32-bit number (spymemcached masks its
    /// `long` to 32 bits; gomemcache's CRC-32 is a `uint32`).
    Unsigned,
    /// memjs: JavaScript's `Math.abs` of the hash read as a signed 32-bit
    /// number (`-2^31` becomes `2^31`).
    SignedAbs,
    /// apr_memcache: a hash of 0 is read as 1.
    ZeroIsOne,
    /// pecl memcache's standard strategy: `(hash >> 16) & 0x7fff`, and 0
    /// read as 1.
    Bits16To30OrOne,
    /// xmemcached's `PHPMemcacheSessionLocator`: `(hash >> 16) & 0x7fff`,
    /// 0 kept.
    Bits16To30,
}

impl Select {
    /// The number the client takes modulo the server count.
    #[inline]
    pub fn apply(self, hash: u32) -> u32 {
        match self {
            Select::Unsigned => hash,
            Select::SignedAbs => (hash as i32).unsigned_abs(),
            Select::ZeroIsOne => hash.max(1),
            Select::Bits16To30OrOne => ((hash >> 16) & 0x7fff).max(1),
            Select::Bits16To30 => (hash >> 16) & 0x7fff,
        }
    }
}

/// A divisor with its precomputed reciprocal: `a % d` for 32-bit `a` by two
/// multiplications instead of a division (Lemire, Kaser and Kurz, "Faster
/// remainder by direct computation", 2019), exact for every `a` and `d`.
#[derive(Debug, Clone, Copy)]
pub struct Divisor {
    d: u32,
    m: u64,
}

impl Divisor {
    /// The divisor `d` (at least 1).
    pub fn new(d: u32) -> Divisor {
        assert!(d > 0, "a divisor of 0");
        Divisor {
            d,
            m: (u64::MAX / u64::from(d)).wrapping_add(1),
        }
    }

    /// `a % d`.
    #[inline]
    pub fn remainder(self, a: u32) -> u32 {
        let low = self.m.wrapping_mul(u64::from(a));
        ((u128::from(low) * u128::from(self.d)) >> 64) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn divisors_give_exact_remainders() {
        let values = [0, 1, 2, 3, 7, 0x7fff, 0x8000_0000, u32::MAX - 1, u32::MAX];
        for d in [
            1,
            2,
            3,
            7,
            10,
            100,
            255,
            65_537,
            1 << 24,
            u32::MAX - 1,
            u32::MAX,
        ] {
            let divisor = Divisor::new(d);
            for a in values
                .into_iter()
                .chain((0..10_000u32).map(|i| i.wrapping_mul(2_654_435_761)))
            {
                assert_eq!(divisor.remainder(a), a % d, "{a} % {d}");
            }
        }
    }

    #[test]
    fn selections() {
        assert_eq!(Select::Unsigned.apply(0x8000_0000), 0x8000_0000);
        assert_eq!(Select::SignedAbs.apply(0x8000_0000), 0x8000_0000);
        assert_eq!(Select::SignedAbs.apply(u32::MAX), 1);
        assert_eq!(Select::SignedAbs.apply(5), 5);
        assert_eq!(Select::ZeroIsOne.apply(0), 1);
        assert_eq!(Select::ZeroIsOne.apply(7), 7);
        assert_eq!(Select::Bits16To30OrOne.apply(0x1234_5678), 0x1234);
        assert_eq!(Select::Bits16To30OrOne.apply(0x8000_ffff), 1);
    }
}
