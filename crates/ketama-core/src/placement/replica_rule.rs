//! How a placement lists a key's replicas: the `n` distinct servers a key
//! is written to (the key's own server first), declared by each flavour's
//! [`Placement`](super::Placement) and followed by
//! [`Ring::replicas`](crate::Ring::replicas).

/// How a placement lists the servers after a key's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ReplicaRule {
    /// The ring walk (the default of every placement): on a continuum the
    /// owners of the points from the key's point on, in continuum order
    /// and wrapping, each server once (node `hashring`'s `range()`,
    /// uhashring's `range()`); on a per-key placement where the key lands
    /// with the servers already listed down, server after server (top-N
    /// by score for rendezvous hashing, the walk on for a wide ring).
    /// Servers the walk never reaches (no points, or a failover that gives
    /// up) follow in list order after the key's server.
    #[default]
    Walk,
    /// The key's server, then the servers after it in list order, wrapping:
    /// libmemcached's `MEMCACHED_BEHAVIOR_NUMBER_OF_REPLICAS` (php-memcached,
    /// pylibmc), and the rule of the placements that have none of their own
    /// (the modulo clients, Envoy).
    NextInList,
}
