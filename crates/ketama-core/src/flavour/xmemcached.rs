//! xmemcached's session locators (`net.rubyeye.xmemcached.impl`, read at
//! github.com/killme2008/xmemcached commit 5d09c5d1; the 2.4 line keeps
//! them), each over the sessions in list order (the default
//! `IndexMemcachedSessionComparator`), one session per server (the default
//! connection pool of 1):
//!
//! * [`KETAMA`] (`xmemcached`, `KetamaMemcachedSessionLocator`): each
//!   server's label is `String.valueOf` of its socket address, `/ip:port`
//!   for an IP literal (the `/` is kept, unlike spymemcached's; IPv6 as
//!   Java 14+ prints it, `/[0:0:0:0:0:0:0:1]:port`), an address written
//!   `name/ip:port` (what Java prints for a resolved name) taken as written;
//!   `160 × weight` points per server, 4 per MD5 digest of `"<label>-<i>"`
//!   with `KETAMA_HASH` (its default), else one `hash("<label>-<i>")` each;
//!   the first point ≥ the key's hash, wrapping. Servers that share a point
//!   are sorted by label (`String.compareTo`) and the point takes the one at
//!   `point % count`.
//! * [`ARRAY`] (`xmemcached-array`, `ArrayMemcachedSessionLocator`, the
//!   client's default): `hash % n` over the sessions, `String.hashCode` (its
//!   `NATIVE_HASH`) as an unsigned 32-bit number, a server listed `weight`
//!   times in a row; consecutive entries of one address are one server (the
//!   locator groups a server's pooled sessions), with the first one's
//!   weight. A key whose server is down goes to the next entry, wrapping.
//! * [`LIBMEMCACHED`] (`xmemcached-libmemcached`,
//!   `LibmemcachedMemcachedSessionLocator`): libmemcached's CONSISTENT
//!   labels (`getHostName()`, `:port` unless 11211, `-i`), 100 points, one
//!   `ONE_AT_A_TIME` each over unsigned bytes (libmemcached's own reads
//!   signed `char`s), no weights. Servers that share a point: the locator
//!   picks one at random on each lookup; the library keeps the first.
//! * [`PHP`] (`xmemcached-php`, `PHPMemcacheSessionLocator`): `hash % n`
//!   over the sessions with `(hash >> 16) & 0x7fff` taken (0 kept, unlike
//!   pecl memcache), `String.hashCode` by default, a server listed `weight`
//!   times (no grouping); the next entry when down.
//!
//! Keys are Java `String`s: the library hashes the key's UTF-8 bytes, which
//! are the `String`'s when the key is valid UTF-8. xmemcached's own
//! `MYSQL_HASH`, `ELF_HASH`, `RS_HASH` and `LUA_HASH` are not offered.

use std::net::IpAddr;
use std::sync::Arc;

use crate::continuum::TiePolicy;
use crate::flavour::spymemcached::{NodeKeyFormat, node_key};
use crate::hash::HashAlgorithm;
use crate::placement::per_key::PerKey;
use crate::placement::points::{push_hashed_server, push_md5_server};
use crate::placement::remainder::Select;
use crate::placement::server_modulo::{Failover, Rule, ServerModulo};
use crate::placement::servers::{HostPort, weights};
use crate::placement::{GeneratedPoints, Placement, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

use HashAlgorithm as H;

/// xmemcached's `HashAlgorithm`s the library has, `KETAMA_HASH` first.
const KETAMA_HASHES: &[H] = &[
    H::Md5,
    H::SpyNative,
    H::Crc,
    H::SpyFnv1_64,
    H::SpyFnv1a64,
    H::SpyFnv1_32,
    H::SpyFnv1a32,
    H::OneAtATimeUnsigned,
];

/// The same, `NATIVE_HASH` first (the modulo locators' default).
const NATIVE_HASHES: &[H] = &[
    H::SpyNative,
    H::Md5,
    H::Crc,
    H::SpyFnv1_64,
    H::SpyFnv1a64,
    H::SpyFnv1_32,
    H::SpyFnv1a32,
    H::OneAtATimeUnsigned,
];

/// The same, `ONE_AT_A_TIME` first (`LibmemcachedMemcachedSessionLocator`).
const OAAT_HASHES: &[H] = &[
    H::OneAtATimeUnsigned,
    H::Md5,
    H::SpyNative,
    H::Crc,
    H::SpyFnv1_64,
    H::SpyFnv1a64,
    H::SpyFnv1_32,
    H::SpyFnv1a32,
];

/// xmemcached's spellings of its hashes (`CRC32_HASH` and the like: the
/// `_hash` suffix is dropped before the lookup).
const SPELLINGS: &[(&str, H)] = &[
    ("native", H::SpyNative),
    ("ketama", H::Md5),
    ("crc32", H::Crc),
    ("fnv1_64", H::SpyFnv1_64),
    ("fnv1a_64", H::SpyFnv1a64),
    ("fnv1_32", H::SpyFnv1_32),
    ("fnv1a_32", H::SpyFnv1a32),
    ("one_at_a_time", H::OneAtATimeUnsigned),
];

/// `KetamaMemcachedSessionLocator` (`KETAMA_HASH` unless told otherwise).
pub static KETAMA: Placement =
    Placement::continuum(KETAMA_HASHES, |servers, hash, _| ketama(servers, hash))
        .with_spellings(SPELLINGS);

/// `ArrayMemcachedSessionLocator`, the client's default.
pub static ARRAY: Placement = Placement::per_key(NATIVE_HASHES, |servers, _| {
    Ok(Arc::new(ServerModulo::from_slots(array_slots(servers)?, ARRAY_RULE)?) as PerKey)
})
.with_spellings(SPELLINGS);

/// `LibmemcachedMemcachedSessionLocator` (100 points, `ONE_AT_A_TIME`).
pub static LIBMEMCACHED: Placement =
    Placement::continuum(OAAT_HASHES, |servers, hash, _| libmemcached(servers, hash))
        .with_spellings(SPELLINGS);

/// `PHPMemcacheSessionLocator`.
pub static PHP: Placement = Placement::per_key(NATIVE_HASHES, |servers, _| {
    weights(servers)?;
    Ok(Arc::new(ServerModulo::new(servers, PHP_RULE)?) as PerKey)
})
.with_spellings(SPELLINGS);

const ARRAY_RULE: Rule = Rule {
    select: Select::Unsigned,
    failover: Failover::NextServer,
    prepare: None,
    weights_as_copies: true,
};

const PHP_RULE: Rule = Rule {
    select: Select::Bits16To30,
    failover: Failover::NextServer,
    prepare: None,
    weights_as_copies: true,
};

/// `NUM_REPS`: points per unit of weight.
const KETAMA_REPS: u64 = 160;

/// `DEFAULT_NUM_REPS` of the libmemcached locator.
const LIBMEMCACHED_REPS: u32 = 100;

/// `String.valueOf(InetSocketAddress)` of a server as xmemcached connects it.
pub fn socket_string(server: &ServerSpec) -> Result<Vec<u8>, Error> {
    let hp = HostPort::parse(&server.address)?;
    let literal = std::str::from_utf8(hp.host)
        .ok()
        .is_some_and(|h| h.parse::<IpAddr>().is_ok());
    let key = node_key(server, NodeKeyFormat::Spymemcached)?;
    Ok(match literal {
        true => [b"/".as_slice(), &key].concat(),
        false => key,
    })
}

/// `KetamaMemcachedSessionLocator.buildMap`.
pub fn ketama(servers: &[ServerSpec], hash: HashAlgorithm) -> Result<GeneratedPoints, Error> {
    let (weights, _) = weights(servers)?;
    let labels = servers
        .iter()
        .map(socket_string)
        .collect::<Result<Vec<_>, _>>()?;
    let reps: Vec<u64> = weights
        .iter()
        .map(|&w| w.saturating_mul(KETAMA_REPS))
        .collect();
    let count = reps.iter().fold(0u64, |sum, &r| sum.saturating_add(r));
    let mut points = Vec::with_capacity(budget::check("xmemcached", count)?);
    for (index, (label, &reps)) in labels.iter().zip(&reps).enumerate() {
        // Within the budget, so each count fits a u32.
        if hash == H::Md5 {
            push_md5_server(label, (reps / 4) as u32, index as u32, &mut points);
        } else {
            push_hashed_server(label, reps as u32, hash, index as u32, &mut points);
        }
    }
    Ok(GeneratedPoints {
        points: settle_ties(points, &labels),
        ties: TiePolicy::FirstWins,
        search: Search::AtOrAfter,
        prepare: None,
    })
}

/// One owner per point, as `getSessionByHash` picks it: the servers at a
/// point in generation order, sorted by label (a stable sort), the one at
/// `point % count`.
fn settle_ties(mut points: Vec<(u32, u32)>, labels: &[Vec<u8>]) -> Vec<(u32, u32)> {
    points.sort_by_key(|&(point, _)| point);
    let mut settled = Vec::with_capacity(points.len());
    let mut owners = Vec::new();
    for group in points.chunk_by(|a, b| a.0 == b.0) {
        let point = group[0].0;
        if let [single] = group {
            settled.push(*single);
            continue;
        }
        owners.clear();
        owners.extend(group.iter().map(|&(_, owner)| owner));
        owners.sort_by(|&a, &b| labels[a as usize].cmp(&labels[b as usize]));
        settled.push((point, owners[point as usize % owners.len()]));
    }
    settled
}

/// The sessions `ArrayMemcachedSessionLocator.updateSessions` lists: a run
/// of entries of one address is one server (the first entry), listed
/// `weight` times (its first entry's weight).
pub fn array_slots(servers: &[ServerSpec]) -> Result<Vec<u32>, Error> {
    let (weights, _) = weights(servers)?;
    let total = weights.iter().fold(0u64, |sum, &w| sum.saturating_add(w));
    let mut slots = Vec::with_capacity(budget::check("xmemcached's session list", total)?);
    for (index, server) in servers.iter().enumerate() {
        if index > 0 && servers[index - 1].address == server.address {
            continue;
        }
        slots.extend(std::iter::repeat_n(index as u32, weights[index] as usize));
    }
    Ok(slots)
}

/// The host `getHostName()` gives: the name of `name/ip`, Java's full form
/// of an IPv6 literal, else the host as written.
fn host_name(hp: &HostPort) -> Vec<u8> {
    if let Some(slash) = hp.host.iter().position(|&b| b == b'/') {
        return hp.host[..slash].to_vec();
    }
    match std::str::from_utf8(hp.host)
        .ok()
        .and_then(|h| h.parse().ok())
    {
        Some(IpAddr::V6(v6)) => {
            let full: Vec<String> = v6.segments().iter().map(|s| format!("{s:x}")).collect();
            full.join(":").into_bytes()
        }
        _ => hp.host.to_vec(),
    }
}

/// `LibmemcachedMemcachedSessionLocator.buildMap`: weights are not read.
pub fn libmemcached(servers: &[ServerSpec], hash: HashAlgorithm) -> Result<GeneratedPoints, Error> {
    let count = servers.len() as u64 * u64::from(LIBMEMCACHED_REPS);
    let mut points = Vec::with_capacity(budget::check("xmemcached", count)?);
    for (index, server) in servers.iter().enumerate() {
        let hp = HostPort::parse(&server.address)?;
        let mut label = host_name(&hp);
        if hp.port != 11211 {
            label.extend_from_slice(format!(":{}", hp.port).as_bytes());
        }
        push_hashed_server(&label, LIBMEMCACHED_REPS, hash, index as u32, &mut points);
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::AtOrAfter,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_keep_the_slash_and_the_written_name() {
        let label = |a: &str| socket_string(&ServerSpec::unweighted(a)).unwrap();
        assert_eq!(label("10.0.0.1:11211"), b"/10.0.0.1:11211");
        assert_eq!(label("[::1]:11211"), b"/[0:0:0:0:0:0:0:1]:11211");
        assert_eq!(
            label("localhost/127.0.0.1:8080"),
            b"localhost/127.0.0.1:8080"
        );
        let hp = HostPort::parse(b"[::1]:11212").unwrap();
        assert_eq!(host_name(&hp), b"0:0:0:0:0:0:0:1");
    }

    #[test]
    fn weights_multiply_the_points_and_ties_go_by_label_order() {
        let servers = [
            ServerSpec::new("10.0.0.1:11211", 2),
            ServerSpec::new("10.0.0.2:11211", 1),
        ];
        assert_eq!(ketama(&servers, H::Md5).unwrap().points.len(), 480);
        // `/b` sorts before `/c`: at point 7 of three owners, 7 % 3 = 1.
        let labels = [b"/c".to_vec(), b"/b".to_vec()];
        let settled = settle_ties(vec![(7, 0), (7, 1), (7, 0), (9, 1)], &labels);
        assert_eq!(settled, vec![(7, 0), (9, 1)]);
        let settled = settle_ties(vec![(6, 0), (6, 1), (6, 0)], &labels);
        assert_eq!(settled, vec![(6, 1)]);
    }

    #[test]
    fn xmemcached_spells_its_hashes_as_its_enum_does() {
        use crate::Flavour;
        for flavour in [Flavour::Xmemcached, Flavour::XmemcachedArray] {
            assert_eq!(flavour.hash_from_name("CRC32_HASH"), Some(H::Crc));
            assert_eq!(
                flavour.hash_from_name("ONE_AT_A_TIME"),
                Some(H::OneAtATimeUnsigned)
            );
            assert_eq!(flavour.hash_from_name("FNV1A_32_HASH"), Some(H::SpyFnv1a32));
            assert_eq!(flavour.hash_from_name("KETAMA_HASH"), Some(H::Md5));
            assert_eq!(flavour.hash_from_name("MYSQL_HASH"), None);
        }
    }

    #[test]
    fn runs_of_one_address_are_one_server() {
        let s = |a: &str, w| ServerSpec::new(a, w);
        let list = [s("a:1", 2), s("a:1", 5), s("b:1", 1), s("a:1", 1)];
        assert_eq!(array_slots(&list).unwrap(), vec![0, 0, 2, 3]);
        assert!(array_slots(&[s("a:1", 0)]).is_err());
    }
}
