//! npm `memjs` 1.3.2 (`Client.prototype.server`, `getServer`,
//! `utils.hashCode`):
//!
//! * a key goes to server `Math.abs(hashCode(key)) % servers.length`, where
//!   `hashCode` is Java's `String.hashCode` over the key's UTF-16 code units
//!   (`(31 * h + charCodeAt(i)) << 0`), read as a signed 32-bit number, so
//!   a hash of `-2^31` stays `2^31`; one server takes every key. Keys are
//!   JavaScript strings: the library decodes key bytes as UTF-8 (a byte
//!   that is not UTF-8 becomes U+FFFD, as Node's decoder does);
//! * no weights (the server list is `host:port,host:port,…`);
//! * failover (`failover: true`; off by default, when a down server's keys
//!   fail): a failed server is skipped for `failoverTime` seconds and its
//!   keys go to the next server in list order, wrapping; none when every
//!   server is down.

use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::per_key::PerKey;
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;
use crate::placement::server_modulo::{Failover, Rule, ServerModulo};

/// memjs's rule.
const RULE: Rule = Rule {
    select: Select::SignedAbs,
    failover: Failover::NextServer,
    prepare: None,
    weights_as_copies: false,
};

/// `Math.abs(hashCode(key)) % servers.length`.
pub static PLACEMENT: Placement = Placement::per_key(&[HashAlgorithm::SpyNative], |servers, _| {
    Ok(Arc::new(ServerModulo::new(servers, RULE)?) as PerKey)
})
.with_spellings(&[("hashcode", HashAlgorithm::SpyNative)])
.with_replicas(ReplicaRule::NextInList);
