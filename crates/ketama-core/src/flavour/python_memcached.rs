//! python-memcached (`memcache.Client`, Debian 1.59-5; `_init_buckets`,
//! `_get_server`): `hash % buckets` over the weighted bucket list
//! ([`BucketList`]), not a continuum. A server of weight `w` fills `w`
//! consecutive buckets in list order (weight 0: none).
//!
//! * The hash is `cmemcache_hash` = `((crc32(key) >> 16) & 0x7fff) or 1`
//!   (`useOldServerHashFunction()` switches to the full `binascii.crc32`).
//! * When the server is down the hash becomes `hash(str(hash) + str(i))`
//!   for `i` = 0, 1, …, and the client gives up after 10 buckets.
//!
//! It agrees with Perl Cache::Memcached ([`super::cache_memcached`]) on
//! every key except those whose 15-bit hash is 0: python-memcached takes
//! them to bucket `1 % n`, Cache::Memcached to bucket 0.

use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::bucket_list::{BucketList, Rehash, Rule};
use crate::placement::per_key::PerKey;
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;

/// python-memcached's rule: the hash as it is, 10 buckets tried.
const RULE: Rule = Rule {
    select: Select::Unsigned,
    rehash: Rehash::HashOfHashAndTry { tries: 10 },
    prepare: None,
};

/// python-memcached: `cmemcache_hash` (its `crc32` is binascii's), 10 tries.
pub static PLACEMENT: Placement = Placement::per_key(
    &[HashAlgorithm::Cmemcache, HashAlgorithm::Crc32],
    |servers, _| Ok(Arc::new(BucketList::new(servers, RULE)?) as PerKey),
)
.with_spellings(&[
    ("crc32", HashAlgorithm::Crc32),
    ("binascii.crc32", HashAlgorithm::Crc32),
    ("old", HashAlgorithm::Crc32),
    ("crc", HashAlgorithm::Cmemcache),
])
.with_replicas(ReplicaRule::NextInList);
