//! `hash % n` over the server list itself, the default placement of
//! several clients: a key goes to server `select(hash) % n`, `n` the number
//! of servers in list order (no bucket list, no continuum). The clients
//! differ in what they take modulo `n` ([`Select`]), in how they skip a
//! server that is down ([`Failover`]), in what of the key they hash (a
//! [`Preparation`]), and in whether a weight means anything (gomemcache
//! users list a server twice). Each client's [`Rule`] is in its own file:
//! `spymemcached.rs` (`ArrayModNodeLocator`), `gomemcache.rs`, `memjs.rs`,
//! `apr_memcache.rs`, `libmemcached.rs` (MODULA), `xmemcached.rs` (array
//! and PHP locators, the array one over a session list of its own making).

use std::borrow::Cow;

use super::budget;
use super::per_key::{Location, PerKeyPlacement};
use super::prepare::Preparation;
use super::remainder::{Divisor, Select};
use crate::hash::HashAlgorithm;
use crate::{Error, ServerSpec};

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

/// One client's rule of `hash % n` over its server list.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// What is taken modulo the server count.
    pub select: Select,
    /// How a down server is skipped.
    pub failover: Failover,
    /// What the client does to a key before hashing it (gomemcache hashes
    /// its first 256 bytes); `None`: nothing.
    pub prepare: Option<&'static Preparation>,
    /// A weight of `w` lists the server `w` times in a row (gomemcache);
    /// otherwise weights are ignored, as the client has none.
    pub weights_as_copies: bool,
}

/// The servers in list order (weights as copies where the rule says so).
#[derive(Debug, Clone)]
pub struct ServerModulo {
    slots: Box<[u32]>,
    count: Divisor,
    rule: Rule,
}

impl ServerModulo {
    /// The placement of `servers` under `rule`; weights that give no entry
    /// at all (an empty list, or every weight 0) or more than the budget
    /// are refused.
    pub fn new(servers: &[ServerSpec], rule: Rule) -> Result<Self, Error> {
        let copies = |s: &ServerSpec| {
            if rule.weights_as_copies {
                s.weight.unwrap_or(1)
            } else {
                1
            }
        };
        let total = servers
            .iter()
            .fold(0u64, |sum, s| sum.saturating_add(copies(s)));
        let total = budget::check(
            "the server list (a weight lists a server that many times)",
            total,
        )?;
        if total == 0 {
            return Err(Error::InvalidArgument(
                "no server is listed: the list is empty or every weight is 0".into(),
            ));
        }
        let mut slots = Vec::with_capacity(total);
        for (index, server) in servers.iter().enumerate() {
            slots.extend(std::iter::repeat_n(index as u32, copies(server) as usize));
        }
        Self::from_slots(slots, rule)
    }

    /// The placement over a list of server indices the client built its own
    /// way (xmemcached merges a server's consecutive entries); an empty or
    /// over-budget list is refused.
    pub fn from_slots(slots: Vec<u32>, rule: Rule) -> Result<Self, Error> {
        budget::check("the server list", slots.len() as u64)?;
        if slots.is_empty() {
            return Err(Error::InvalidArgument(
                "no server is listed: the list is empty or every weight is 0".into(),
            ));
        }
        Ok(ServerModulo {
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

impl PerKeyPlacement for ServerModulo {
    fn describe(&self) -> &'static str {
        "hash modulo the number of servers"
    }

    fn heap_bytes(&self) -> usize {
        size_of_val(&*self.slots)
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
        match self.rule.prepare {
            Some(prepare) => prepare.apply(key),
            None => Cow::Borrowed(key),
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
            prepare: None,
            weights_as_copies: false,
        }
    }

    fn list(n: usize) -> Vec<ServerSpec> {
        (0..n)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), 1 + i as u64))
            .collect()
    }

    #[test]
    fn weights_are_ignored_or_copies() {
        let plain = ServerModulo::new(&list(3), rule(Select::Unsigned, Failover::None)).unwrap();
        assert_eq!(plain.slot_count(), 3);
        let copies = Rule {
            weights_as_copies: true,
            ..rule(Select::Unsigned, Failover::None)
        };
        let weighted = ServerModulo::new(&list(3), copies).unwrap();
        assert_eq!(&*weighted.slots, &[0, 1, 1, 2, 2, 2]);
        assert_eq!(weighted.locate_hash(4).unwrap().server_index, 2);
        assert!(ServerModulo::new(&[ServerSpec::new("a:1", 0)], copies).is_err());
        assert!(ServerModulo::new(&[], copies).is_err());
        assert!(ServerModulo::new(&[ServerSpec::new("a:1", 1 << 40)], copies).is_err());
    }

    #[test]
    fn failover_walks_the_list_or_the_hash() {
        let servers = list(3);
        let next =
            ServerModulo::new(&servers, rule(Select::Unsigned, Failover::NextServer)).unwrap();
        let h = HashAlgorithm::Crc32;
        for key in [&b"a"[..], b"b", b"user:1"] {
            let up = next.locate(key, h, &|_| false).unwrap();
            let down = next.locate(key, h, &|s| s == up.server_index).unwrap();
            assert_eq!(down.server_index, (up.server_index + 1) % 3);
            assert_eq!(next.locate(key, h, &|_| true), None);
        }
        let none = ServerModulo::new(&servers, rule(Select::Unsigned, Failover::None)).unwrap();
        let up = none.locate(b"a", h, &|_| false).unwrap();
        assert_eq!(none.locate(b"a", h, &|s| s == up.server_index), None);
        // apr: the hash wraps at 2^32: on 7 servers u32::MAX lands on 3,
        // and with 3 down on 0 % 7 = 0, where the list walk goes to 4.
        let seven = list(7);
        let apr = ServerModulo::new(&seven, rule(Select::ZeroIsOne, Failover::NextHash)).unwrap();
        let walk =
            ServerModulo::new(&seven, rule(Select::ZeroIsOne, Failover::NextServer)).unwrap();
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
