//! Go's `github.com/bradfitz/gomemcache/memcache` `ServerList.PickServer`
//! (Debian `golang-github-bradfitz-gomemcache-dev` 0.0~git20141109; the
//! function is the same in upstream's current `selector.go`):
//!
//! * a key goes to `addrs[crc32.ChecksumIEEE(key) % len(addrs)]`, the full
//!   CRC-32 (IEEE) of at most the key's first 256 bytes (the rest is not
//!   copied into its hashing buffer); one server takes every key;
//! * no weights: "a server is given more weight if it's listed multiple
//!   times" (`SetServers`). A server written twice in the list counts
//!   twice, and a weight `w` lists the server `w` times in a row;
//! * no failover: a key whose server is down fails (the client returns the
//!   connection error). The addresses are resolved by `SetServers`, but
//!   only their order matters.

use std::borrow::Cow;
use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::per_key::PerKey;
use crate::placement::prepare::Preparation;
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;
use crate::placement::server_modulo::{Failover, Rule, ServerModulo};

/// gomemcache hashes at most the key's first 256 bytes.
pub static FIRST_256_BYTES: Preparation = Preparation {
    name: "gomemcache's first 256 bytes of the key",
    rule: |key| Cow::Borrowed(&key[..key.len().min(256)]),
};

/// gomemcache's rule.
const RULE: Rule = Rule {
    select: Select::Unsigned,
    failover: Failover::None,
    prepare: Some(&FIRST_256_BYTES),
    weights_as_copies: true,
};

/// `ServerList.PickServer`: CRC-32 of the key's first 256 bytes, modulo
/// the list's length.
pub static PLACEMENT: Placement = Placement::per_key(&[HashAlgorithm::Crc32], |servers, _| {
    Ok(Arc::new(ServerModulo::new(servers, RULE)?) as PerKey)
})
.with_replicas(ReplicaRule::NextInList);
