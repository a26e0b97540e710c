//! What Envoy's two balancers share: the hosts they are built from
//! ([`Entry`]) and where a request hash lands ([`Pick`]). See
//! [`super::envoy`].

/// One host as a balancer is built from it: the bytes hashed for it, its
/// normalized weight and its index in the server list.
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// What is hashed for the host (its `hash_key`).
    pub key: &'a [u8],
    /// Its share of the weight (the weights of a build sum to 1).
    pub weight: f64,
    /// Its index in the server list.
    pub host: usize,
}

/// Where a 64-bit hash landed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pick {
    /// The host's index in the server list.
    pub host: usize,
    /// The ring entry's index (ring_hash) or the table slot (maglev).
    pub slot: usize,
    /// The top 32 bits of the ring entry's 64-bit position (ring_hash), or
    /// the slot (maglev).
    pub point: u32,
}
