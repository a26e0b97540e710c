//! Perl Cache::Memcached 1.30 (`init_buckets`, `get_sock`, `_hashfunc`):
//! `hash % buckets` over the weighted bucket list ([`BucketList`]), not a
//! continuum. A server of weight `w` fills `w` consecutive buckets in list
//! order (weight 0: none).
//!
//! * The hash is `(crc32(key) >> 16) & 0x7fff`, without python-memcached's
//!   `or 1` ([`super::python_memcached`]).
//! * When the server is down `hv += _hashfunc($tries . $key)` for `$tries`
//!   = 1, 2, …, and it gives up after 20 buckets.

use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::bucket_list::{BucketList, Rehash, Rule};
use crate::placement::per_key::PerKey;
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;

/// Cache::Memcached's rule: the hash as it is, 20 buckets tried.
const RULE: Rule = Rule {
    select: Select::Unsigned,
    rehash: Rehash::AddHashOfTryAndKey { tries: 20 },
    prepare: None,
};

/// Perl Cache::Memcached: `(crc32 >> 16) & 0x7fff`, 20 tries.
pub static PLACEMENT: Placement = Placement::per_key(&[HashAlgorithm::Crc], |servers, _| {
    Ok(Arc::new(BucketList::new(servers, RULE)?) as PerKey)
})
.with_replicas(ReplicaRule::NextInList);
