//! `hash % buckets` over a weighted bucket list: not a continuum. A server
//! of weight `w` fills `w` consecutive buckets, in list order (or an order
//! the client chooses), and a key goes to bucket `select(hash) % buckets`.
//! The clients that place keys so differ in what they take from the hash
//! ([`Select`]), in what they do to the key first (a [`Preparation`]) and
//! in how they try again when the chosen server is down ([`Rehash`]); each
//! client's [`Rule`] is in its file (`python_memcached.rs`,
//! `cache_memcached.rs`, `pecl_memcache.rs`, `twemproxy.rs`).

use std::borrow::Cow;
use std::io::Write;

use super::budget;
use super::per_key::{Location, PerKeyPlacement};
use super::prepare::Preparation;
use super::remainder::{Divisor, Select};
use crate::hash::HashAlgorithm;
use crate::{Error, ServerSpec};

/// How a client tries again when the bucket's server is down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rehash {
    /// The hash becomes `hash(str(hash) + str(i))` for the `i`-th failed
    /// bucket (from 0); `tries` buckets in all (python-memcached: 10).
    HashOfHashAndTry {
        /// Buckets tried, the first included.
        tries: u32,
    },
    /// The hash grows by `hash(str(i) + key)` for the `i`-th try (from 1);
    /// `tries` buckets in all (Perl Cache::Memcached: 20).
    AddHashOfTryAndKey {
        /// Buckets tried, the first included.
        tries: u32,
    },
    /// The hash becomes `hash(key + "-" + str(i))` for the `i`-th failed
    /// bucket (from 0); `tries` buckets in all (pecl memcache: the first
    /// and 20 more).
    HashOfKeyDashTry {
        /// Buckets tried, the first included.
        tries: u32,
    },
    /// No rehash: the down servers leave the bucket list, which is rebuilt
    /// over the live ones in the same order, and the same hash picks from
    /// it (twemproxy's `auto_eject_hosts`; every key moves, as the count
    /// changes).
    Eject,
}

/// One client's rule over its bucket list.
#[derive(Debug, Clone, Copy)]
pub struct Rule {
    /// What is taken modulo the bucket count.
    pub select: Select,
    /// How a down server's keys are placed again.
    pub rehash: Rehash,
    /// What the client does to a key before hashing it; `None`: nothing.
    pub prepare: Option<&'static Preparation>,
}

/// The weighted bucket list: bucket → server index.
#[derive(Debug, Clone)]
pub struct BucketList {
    buckets: Box<[u32]>,
    count: Divisor,
    rule: Rule,
}

impl BucketList {
    /// Fills the bucket list: each server `weight` times (1 when none is
    /// given), in list order. A weight of 0 gives a server no bucket; a
    /// list with no bucket at all, or more than the budget, is refused.
    pub fn new(servers: &[ServerSpec], rule: Rule) -> Result<Self, Error> {
        Self::in_order(servers, 0..servers.len(), rule)
    }

    /// The same, the buckets filled in the server `order` given (indices
    /// into `servers`).
    pub fn in_order(
        servers: &[ServerSpec],
        order: impl Iterator<Item = usize>,
        rule: Rule,
    ) -> Result<Self, Error> {
        let total = servers
            .iter()
            .fold(0u64, |sum, s| sum.saturating_add(s.weight.unwrap_or(1)));
        let total = budget::check("the bucket list (one bucket per unit of weight)", total)?;
        if total == 0 {
            return Err(Error::InvalidArgument(
                "no server has a bucket: the list is empty or every weight is 0".into(),
            ));
        }
        let mut buckets = Vec::with_capacity(total);
        for index in order {
            let weight = servers[index].weight.unwrap_or(1) as usize;
            buckets.extend(std::iter::repeat_n(index as u32, weight));
        }
        Ok(BucketList {
            count: Divisor::new(buckets.len() as u32),
            buckets: buckets.into_boxed_slice(),
            rule,
        })
    }

    /// Number of buckets (the sum of the weights).
    pub fn bucket_count(&self) -> usize {
        self.buckets.len()
    }

    /// The bucket and server for a hash the client has chosen (a 32-bit key
    /// hash, or a sum of them): its selection modulo the bucket count.
    #[inline]
    pub fn bucket(&self, hash: u64) -> (usize, usize) {
        let bucket = match self.rule.select {
            Select::Unsigned => (hash % self.buckets.len() as u64) as usize,
            select => self.count.remainder(select.apply(hash as u32)) as usize,
        };
        (bucket, self.buckets[bucket] as usize)
    }

    /// The bucket, server and hash a key whose (prepared) key hash is
    /// `first` lands on, trying again as the client does while the server
    /// is down; `None` when the client would give up. `key` is the prepared
    /// key.
    pub fn locate(
        &self,
        key: &[u8],
        first: u32,
        hash: HashAlgorithm,
        is_down: impl Fn(usize) -> bool,
    ) -> Option<(usize, usize, u64)> {
        let mut current = u64::from(first);
        let tries = match self.rule.rehash {
            Rehash::HashOfHashAndTry { tries }
            | Rehash::AddHashOfTryAndKey { tries }
            | Rehash::HashOfKeyDashTry { tries } => tries,
            Rehash::Eject => return self.locate_ejected(current, is_down),
        };
        let mut text = Vec::with_capacity(key.len() + 24);
        for attempt in 0..tries {
            let (bucket, server) = self.bucket(current);
            if !is_down(server) {
                return Some((bucket, server, current));
            }
            text.clear();
            current = match self.rule.rehash {
                Rehash::HashOfHashAndTry { .. } => {
                    write!(text, "{current}{attempt}").expect("writing to a Vec cannot fail");
                    u64::from(hash.hash(&text))
                }
                Rehash::AddHashOfTryAndKey { .. } => {
                    write!(text, "{}", attempt + 1).expect("writing to a Vec cannot fail");
                    text.extend_from_slice(key);
                    current + u64::from(hash.hash(&text))
                }
                Rehash::HashOfKeyDashTry { .. } => {
                    text.extend_from_slice(key);
                    write!(text, "-{attempt}").expect("writing to a Vec cannot fail");
                    u64::from(hash.hash(&text))
                }
                Rehash::Eject => unreachable!("answered above"),
            };
        }
        None
    }

    /// [`Rehash::Eject`]: the bucket of `hash` in the list rebuilt from the
    /// live servers' buckets.
    fn locate_ejected(
        &self,
        hash: u64,
        is_down: impl Fn(usize) -> bool,
    ) -> Option<(usize, usize, u64)> {
        let live: Vec<u32> = self
            .buckets
            .iter()
            .copied()
            .filter(|&s| !is_down(s as usize))
            .collect();
        let bucket = (hash % live.len().max(1) as u64) as usize;
        live.get(bucket).map(|&s| (bucket, s as usize, hash))
    }

    /// The point a location reports for the hash that chose its bucket:
    /// the hash itself, or what the client took from it.
    #[inline]
    fn point(&self, hash: u64) -> u32 {
        match self.rule.select {
            Select::Unsigned => hash as u32,
            select => select.apply(hash as u32),
        }
    }
}

impl PerKeyPlacement for BucketList {
    fn describe(&self) -> &'static str {
        "hash modulo the weighted bucket list"
    }

    fn heap_bytes(&self) -> usize {
        size_of_val(&*self.buckets)
    }

    fn locate(
        &self,
        key: &[u8],
        hash: HashAlgorithm,
        is_down: &dyn Fn(usize) -> bool,
    ) -> Option<Location> {
        let key = self.prepare_key(key);
        let first = hash.hash(&key);
        let (bucket, server_index, chosen) = BucketList::locate(self, &key, first, hash, is_down)?;
        Some(Location {
            point_index: bucket,
            point: self.point(chosen),
            server_index,
        })
    }

    #[inline]
    fn locate_hash(&self, hash: u32) -> Option<Location> {
        let point = self.rule.select.apply(hash);
        let bucket = self.count.remainder(point) as usize;
        Some(Location {
            point_index: bucket,
            point,
            server_index: self.buckets[bucket] as usize,
        })
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

    fn rule(rehash: Rehash) -> Rule {
        Rule {
            select: Select::Unsigned,
            rehash,
            prepare: None,
        }
    }

    const PYTHON: Rehash = Rehash::HashOfHashAndTry { tries: 10 };
    const PERL: Rehash = Rehash::AddHashOfTryAndKey { tries: 20 };
    const PECL: Rehash = Rehash::HashOfKeyDashTry { tries: 21 };

    #[test]
    fn an_ejected_server_leaves_the_slots_of_the_live_ones() {
        let servers = [
            ServerSpec::new("a:1", 1),
            ServerSpec::new("b:1", 2),
            ServerSpec::new("c:1", 1),
        ];
        let m = BucketList::new(&servers, rule(Rehash::Eject)).unwrap();
        for hash in 0..40u32 {
            let (_, up, _) = m
                .locate(b"k", hash, HashAlgorithm::Crc32, |_| false)
                .unwrap();
            assert_eq!(up, [0, 1, 1, 2][hash as usize % 4]);
            let (_, live, _) = m
                .locate(b"k", hash, HashAlgorithm::Crc32, |s| s == 1)
                .unwrap();
            assert_eq!(
                live,
                if up == 1 {
                    [0, 2][hash as usize % 2]
                } else {
                    up
                }
            );
        }
        assert_eq!(m.locate(b"k", 7, HashAlgorithm::Crc32, |_| true), None);
    }

    #[test]
    fn buckets_follow_weights_in_list_order() {
        let servers = [
            ServerSpec::new("a:1", 2),
            ServerSpec::unweighted("b:1"),
            ServerSpec::new("c:1", 0),
            ServerSpec::new("d:1", 3),
        ];
        let m = BucketList::new(&servers, rule(PYTHON)).unwrap();
        assert_eq!(&*m.buckets, &[0, 0, 1, 3, 3, 3]);
        assert_eq!(m.bucket(7), (1, 0));
        assert!(BucketList::new(&[ServerSpec::new("a:1", 0)], rule(PERL)).is_err());
        assert!(BucketList::new(&[ServerSpec::new("a:1", u64::MAX)], rule(PERL)).is_err());
    }

    #[test]
    fn a_down_server_sends_the_key_elsewhere_or_nowhere() {
        let servers: Vec<ServerSpec> = (0..4)
            .map(|i| ServerSpec::unweighted(format!("s{i}:1")))
            .collect();
        for rehash in [PYTHON, PERL, PECL] {
            let m = BucketList::new(&servers, rule(rehash)).unwrap();
            let h = HashAlgorithm::Crc;
            let first = h.hash(b"k");
            let (_, up, _) = m.locate(b"k", first, h, |_| false).unwrap();
            let (_, other, _) = m.locate(b"k", first, h, |s| s == up).unwrap();
            assert_ne!(up, other);
            assert_eq!(m.locate(b"k", first, h, |_| true), None);
        }
    }

    #[test]
    fn a_selection_is_taken_modulo_and_reported() {
        let servers: Vec<ServerSpec> = (0..3)
            .map(|i| ServerSpec::unweighted(format!("s{i}:1")))
            .collect();
        let list = BucketList::new(
            &servers,
            Rule {
                select: Select::Bits16To30OrOne,
                rehash: PECL,
                prepare: None,
            },
        )
        .unwrap();
        let at = list.locate_hash(0x0005_ffff).unwrap();
        assert_eq!((at.point, at.point_index, at.server_index), (5, 2, 2));
        assert_eq!(list.locate_hash(0x8000_0000).unwrap().point, 1);
        assert_eq!(list.bucket(0x0004_0000), (1, 1));
        assert!(BucketList::new(&[], rule(PYTHON)).is_err());
    }
}
