//! Apache apr-util's `apr_memcache` (Debian `libaprutil1` 1.6.3;
//! `apr_memcache_hash`, `apr_memcache_find_server_hash_default`):
//!
//! * the key hash is `apr_memcache_hash_default`, `(crc32(key) >> 16) &
//!   0x7fff` as in Perl's Cache::Memcached (`crc`), or the full CRC-32 when
//!   the caller sets `apr_memcache_hash_crc32` as the pool's `hash_func`
//!   (`crc32`);
//! * a hash of 0 is read as 1, and the key goes to server `hash % ntotal`
//!   in the order the servers were added; no weights;
//! * a dead server is skipped by trying `hash + 1`, `hash + 2`, … (an
//!   `apr_uint32_t` that wraps at 2^32, so after `0xffffffff` comes server
//!   `0 % ntotal`), `ntotal` tries in all, then none (the library does not
//!   model the ping apr_memcache sends a dead server every 5 seconds).

use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::per_key::PerKey;
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;
use crate::placement::server_modulo::{Failover, Rule, ServerModulo};

/// apr_memcache's rule.
const RULE: Rule = Rule {
    select: Select::ZeroIsOne,
    failover: Failover::NextHash,
    prepare: None,
    weights_as_copies: false,
};

/// `apr_memcache_find_server_hash_default`, with the default (15-bit) or
/// the full CRC-32.
pub static PLACEMENT: Placement =
    Placement::per_key(&[HashAlgorithm::Crc, HashAlgorithm::Crc32], |servers, _| {
        Ok(Arc::new(ServerModulo::new(servers, RULE)?) as PerKey)
    })
    .with_replicas(ReplicaRule::NextInList);
