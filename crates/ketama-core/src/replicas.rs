//! Replica lists: the `n` distinct servers a key is written to, its own
//! server first, by the rule its flavour's placement declares
//! ([`ReplicaRule`]): the ring walk, or the next servers in list order
//! (libmemcached's `NUMBER_OF_REPLICAS`).

use crate::placement::replica_rule::ReplicaRule;
use crate::{Error, Flavour, Ring};

impl Flavour {
    /// How this flavour lists a key's replicas.
    pub fn replica_rule(self) -> ReplicaRule {
        self.placement().replicas
    }
}

/// The servers listed so far, each once.
struct Listed {
    taken: Vec<bool>,
    list: Vec<usize>,
    want: usize,
}

impl Listed {
    fn add(&mut self, server: usize) {
        if !self.taken[server] {
            self.taken[server] = true;
            self.list.push(server);
        }
    }

    fn full(&self) -> bool {
        self.list.len() >= self.want
    }
}

impl Ring {
    /// The indices (input order) of `n` distinct servers for `key`, the
    /// server [`Ring::locate`] gives first, the others by the flavour's
    /// [`ReplicaRule`]. `n` past the number of servers lists every server;
    /// `n` 0 lists none. Fails only when no server can take a key (a
    /// continuum without points).
    pub fn replicas(&self, key: &[u8], n: usize) -> Result<Vec<usize>, Error> {
        let count = self.servers().len();
        let want = n.min(count);
        if want == 0 {
            return Ok(Vec::new());
        }
        let first = self.locate(key).ok_or_else(Error::no_points)?;
        let mut listed = Listed {
            taken: vec![false; count],
            list: Vec::with_capacity(want),
            want,
        };
        listed.add(first.server_index);
        if self.config().flavour.replica_rule() == ReplicaRule::Walk {
            if self.is_continuum() {
                self.walk_continuum(first.point_index, &mut listed);
            } else {
                self.walk_failover(key, &mut listed);
            }
        }
        // The rest in list order after the key's server: the whole rule of
        // NextInList, and the servers a walk does not reach.
        for step in 1..count {
            if listed.full() {
                break;
            }
            listed.add((first.server_index + step) % count);
        }
        Ok(listed.list)
    }

    /// The owners of the points from `start` on, in continuum order and
    /// wrapping, each once.
    fn walk_continuum(&self, start: usize, listed: &mut Listed) {
        let owners = self.continuum().owners();
        let len = owners.len();
        for step in 1..len {
            if listed.full() {
                return;
            }
            listed.add(owners[(start + step) % len] as usize);
        }
    }

    /// Where the key lands with the servers listed so far down, server
    /// after server, until the placement's failover gives up.
    fn walk_failover(&self, key: &[u8], listed: &mut Listed) {
        while !listed.full() {
            let taken = &listed.taken;
            match self.locate_live(key, |s| taken[s]) {
                Ok(at) if !listed.taken[at.server_index] => listed.add(at.server_index),
                _ => return,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RingConfig, ServerSpec};

    fn servers(n: usize) -> Vec<ServerSpec> {
        (0..n)
            .map(|i| ServerSpec::unweighted(format!("10.0.0.{}:{}", i + 1, 11211 + i)))
            .collect()
    }

    /// The ring of `n` servers, weighted where the flavour takes weights.
    fn ring_of(flavour: Flavour, n: usize) -> Ring {
        let weighted = servers(n)
            .into_iter()
            .enumerate()
            .map(|(i, s)| ServerSpec::new(s.address, 1 + i as u64 % 3))
            .collect();
        Ring::new(weighted, RingConfig::flavour(flavour))
            .or_else(|_| Ring::new(servers(n), RingConfig::flavour(flavour)))
            .unwrap_or_else(|e| panic!("{}: {e}", flavour.name()))
    }

    #[test]
    fn every_flavour_lists_distinct_servers_its_own_first() {
        for &flavour in Flavour::ALL {
            for count in [1, 3, 10] {
                let ring = ring_of(flavour, count);
                for i in 0..50 {
                    let key = format!("key:{i}");
                    let own = ring.server_index(key.as_bytes()).unwrap() as usize;
                    assert!(ring.replicas(key.as_bytes(), 0).unwrap().is_empty());
                    for n in [1, 2, 3, count, count + 5] {
                        let list = ring.replicas(key.as_bytes(), n).unwrap();
                        let name = flavour.name();
                        assert_eq!(list.len(), n.min(count), "{name} {count} {key} {n}");
                        assert_eq!(list[0], own, "{name} {count} {key} {n}");
                        let mut sorted = list.clone();
                        sorted.sort_unstable();
                        sorted.dedup();
                        assert_eq!(sorted.len(), list.len(), "{name}: {list:?}");
                        let longer = ring.replicas(key.as_bytes(), n + 1).unwrap();
                        assert_eq!(&longer[..list.len()], list, "{name}: a prefix");
                    }
                }
            }
        }
    }

    #[test]
    fn a_continuum_walks_on_and_libmemcached_takes_the_next_in_list() {
        let ring = ring_of(Flavour::Libketama, 10);
        let owners = ring.continuum().owners();
        let at = ring.locate(b"user:42").unwrap();
        let mut walked: Vec<usize> = Vec::new();
        for step in 0..owners.len() {
            let owner = owners[(at.point_index + step) % owners.len()] as usize;
            if !walked.contains(&owner) {
                walked.push(owner);
            }
        }
        assert_eq!(ring.replicas(b"user:42", 4).unwrap(), walked[..4]);
        assert_eq!(ring.replicas(b"user:42", 10).unwrap(), walked);

        let ring = ring_of(Flavour::Libmemcached, 10);
        assert_eq!(
            Flavour::Libmemcached.replica_rule(),
            ReplicaRule::NextInList
        );
        let own = ring.server_index(b"user:42").unwrap() as usize;
        let next: Vec<usize> = (0..4).map(|s| (own + s) % 10).collect();
        assert_eq!(ring.replicas(b"user:42", 4).unwrap(), next);
    }

    #[test]
    fn rendezvous_lists_the_best_scores() {
        let ring = ring_of(Flavour::Pymemcache, 10);
        assert_eq!(Flavour::Pymemcache.replica_rule(), ReplicaRule::Walk);
        for i in 0..100 {
            let key = format!("key:{i}");
            let list = ring.replicas(key.as_bytes(), 10).unwrap();
            for (rank, &server) in list.iter().enumerate() {
                let down = &list[..rank];
                let at = ring.locate_live(key.as_bytes(), |s| down.contains(&s));
                assert_eq!(at.unwrap().server_index, server, "{key} rank {rank}");
            }
        }
    }
}
