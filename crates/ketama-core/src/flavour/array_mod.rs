//! Modulo over the server list itself, the default placement of several
//! clients: a key goes to server `select(hash) % n`, `n` the number of
//! servers in list order (no bucket list, no continuum). The clients differ
//! in what they take modulo `n` ([`Select`]), in how they skip a server
//! that is down ([`Failover`]), in how much of the key they hash, and in
//! whether a weight means anything (gomemcache users list a server twice).
//! Each client's [`Rule`] is in its own file: `spymemcached.rs`
//! (`ArrayModNodeLocator`), `gomemcache.rs`, `memjs.rs`, `apr_memcache.rs`.

use std::borrow::Cow;

use super::placement::{Location, PerKeyPlacement};
use crate::hash::HashAlgorithm;
use crate::{Error, ServerSpec};

/// What a client takes modulo the server count, from the 32-bit key hash.
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
}

impl Select {
    /// The number the client takes modulo the server count.
    #[inline]
    pub fn apply(self, hash: u32) -> u32 {
        match self {
            Select::Unsigned => hash,
            Select::SignedAbs => (hash as i32).unsigned_abs(),
            Select::ZeroIsOne => hash.max(1),
        }
    }
}

/// How a client places a key whose server is down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Failover {
    /// It does not: the request fails (gomemcache).
    None,
    /// The next server in list order, wrapping, until it is back at the
    /// first (spymemcached's `Redistribute` over `getSequence`, memjs with
    /// `failover: true`).
    NextServer,
    /// apr_memcache: `hash + 1`, `hash + 2`, … (a 32-bit unsigned sum that
    /// wraps at 2^32) modulo the server count, `n` tries in all.
    NextHash,
}

/// One client's array-mod rule.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// What is taken modulo the server count.
    pub select: Select,
    /// How a down server is skipped.
    pub failover: Failover,
    /// Only the first this many key bytes are hashed (gomemcache: 256).
    pub key_limit: Option<usize>,
    /// A weight of `w` lists the server `w` times in a row (gomemcache);
    /// otherwise weights are ignored, as the client has none.
    pub weights_as_copies: bool,
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

/// Most slots a list may ask for (the sum of its weights, when weights are copies).
const MAX_SLOTS: u64 = 1 << 24;

/// The servers in list order (weights as copies where the rule says so).
#[derive(Debug, Clone)]
pub struct ArrayMod {
    slots: Box<[u32]>,
    count: Divisor,
    rule: Rule,
}

impl ArrayMod {
    /// The placement of `servers` under `rule`; an empty list, or weights
    /// that give no slot at all or more than 2^24, are refused.
    pub fn new(servers: &[ServerSpec], rule: Rule) -> Result<Self, Error> {
        if servers.is_empty() {
            return Err(Error::NoServers("the server list is empty".into()));
        }
        let copies = |s: &ServerSpec| {
            if rule.weights_as_copies {
                s.weight.unwrap_or(1)
            } else {
                1
            }
        };
        let total = servers
            .iter()
            .try_fold(0u64, |sum, s| sum.checked_add(copies(s)))
            .filter(|&t| t <= MAX_SLOTS)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "the weights ask for more than {MAX_SLOTS} list entries (a weight lists a server that many times)"
                ))
            })?;
        if total == 0 {
            return Err(Error::InvalidArgument(
                "every server has weight 0: the server list is empty".into(),
            ));
        }
        let mut slots = Vec::with_capacity(total as usize);
        for (index, server) in servers.iter().enumerate() {
            slots.extend(std::iter::repeat_n(index as u32, copies(server) as usize));
        }
        Ok(ArrayMod {
            count: Divisor::new(slots.len() as u32),
            slots: slots.into_boxed_slice(),
            rule,
        })
    }

    /// Number of list entries (servers, or weight copies).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    #[inline]
    fn at(&self, slot: usize, point: u32) -> Location {
        Location {
            point_index: slot,
            point,
            server_index: self.slots[slot] as usize,
        }
    }
}

impl PerKeyPlacement for ArrayMod {
    fn describe(&self) -> &'static str {
        "hash modulo the number of servers"
    }

    fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        self.locate_live(hash.hash(&self.prepare_key(key)), is_down)
    }

    #[inline]
    fn locate_hash(&self, hash: u32) -> Option<Location> {
        let point = self.rule.select.apply(hash);
        Some(self.at(self.count.remainder(point) as usize, point))
    }

    fn prepare_key<'k>(&self, key: &'k [u8]) -> Cow<'k, [u8]> {
        match self.rule.key_limit {
            Some(limit) => Cow::Borrowed(&key[..key.len().min(limit)]),
            None => Cow::Borrowed(key),
        }
    }
}

impl ArrayMod {
    /// Where a key hash lands, skipping down servers as the client does.
    pub fn locate_live(&self, hash: u32, is_down: &dyn Fn(usize) -> bool) -> Option<Location> {
        let first = self.locate_hash(hash)?;
        if !is_down(first.server_index) {
            return Some(first);
        }
        let n = self.slots.len();
        match self.rule.failover {
            Failover::None => None,
            Failover::NextServer => (1..n)
                .map(|step| self.at((first.point_index + step) % n, first.point))
                .find(|at| !is_down(at.server_index)),
            Failover::NextHash => (1..n as u32)
                .map(|step| {
                    let h = first.point.wrapping_add(step);
                    self.at(h as usize % n, h)
                })
                .find(|at| !is_down(at.server_index)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(select: Select, failover: Failover) -> Rule {
        Rule {
            select,
            failover,
            key_limit: None,
            weights_as_copies: false,
        }
    }

    fn list(n: usize) -> Vec<ServerSpec> {
        (0..n)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), 1 + i as u64))
            .collect()
    }

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
    }

    #[test]
    fn weights_are_ignored_or_copies() {
        let plain = ArrayMod::new(&list(3), rule(Select::Unsigned, Failover::None)).unwrap();
        assert_eq!(plain.slot_count(), 3);
        let copies = Rule {
            weights_as_copies: true,
            ..rule(Select::Unsigned, Failover::None)
        };
        let weighted = ArrayMod::new(&list(3), copies).unwrap();
        assert_eq!(&*weighted.slots, &[0, 1, 1, 2, 2, 2]);
        assert_eq!(weighted.locate_hash(4).unwrap().server_index, 2);
        assert!(ArrayMod::new(&[ServerSpec::new("a:1", 0)], copies).is_err());
        assert!(ArrayMod::new(&[], copies).is_err());
        assert!(ArrayMod::new(&[ServerSpec::new("a:1", 1 << 40)], copies).is_err());
    }

    #[test]
    fn failover_walks_the_list_or_the_hash() {
        let servers = list(3);
        let next = ArrayMod::new(&servers, rule(Select::Unsigned, Failover::NextServer)).unwrap();
        let h = HashAlgorithm::Crc32;
        for key in [&b"a"[..], b"b", b"user:1"] {
            let up = next.locate(key, h, &|_| false).unwrap();
            let down = next.locate(key, h, &|s| s == up.server_index).unwrap();
            assert_eq!(down.server_index, (up.server_index + 1) % 3);
            assert_eq!(next.locate(key, h, &|_| true), None);
        }
        let none = ArrayMod::new(&servers, rule(Select::Unsigned, Failover::None)).unwrap();
        let up = none.locate(b"a", h, &|_| false).unwrap();
        assert_eq!(none.locate(b"a", h, &|s| s == up.server_index), None);
        // apr: the hash wraps at 2^32: on 7 servers u32::MAX lands on 3,
        // and with 3 down on 0 % 7 = 0, where the list walk goes to 4.
        let seven = list(7);
        let apr = ArrayMod::new(&seven, rule(Select::ZeroIsOne, Failover::NextHash)).unwrap();
        let walk = ArrayMod::new(&seven, rule(Select::ZeroIsOne, Failover::NextServer)).unwrap();
        assert_eq!(apr.locate_hash(u32::MAX).unwrap().server_index, 3);
        assert_eq!(
            apr.locate_live(u32::MAX, &|s| s == 3).unwrap().server_index,
            0
        );
        assert_eq!(
            walk.locate_live(u32::MAX, &|s| s == 3)
                .unwrap()
                .server_index,
            4
        );
        assert_eq!(apr.locate_hash(0).unwrap().server_index, 1);
    }
}
