//! twemproxy (nutcracker) 0.5.0's ketama: labels `<name>-i` where the name is
//! the explicit name column when given, else `host` (port 11211) or
//! `host:port`; the shared float weight formula; always 4 points per MD5
//! digest (the configured hash only hashes keys). Ties: the earlier server.
//! Like nutcracker, two servers with the same name are an error.
//!
//! `distribution: modula` (`nc_modula.c`): each live server fills `weight`
//! consecutive slots, and a key goes to slot `hash % slots`; the key hashes
//! are the same. The slots follow nutcracker's server order, which is not
//! the list's: checking names for duplicates (`conf_validate_server`) sorts
//! the servers by name (the name column, else `host` or `host:port`),
//! shorter names first, then bytewise (`string_compare`).
//!
//! Both take `hash_tag` (`--hash-tag '{}'`): only the part of a key between
//! the tag's two characters is hashed ([`Options::tagged`](crate::placement::options::Options::tagged)).

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm as H;
use crate::placement::Placement;
use crate::placement::bucket_list::{BucketList, Rehash, Rule};
use crate::placement::per_key::PerKey;
use crate::placement::points::{float_weighted_digests, push_md5_server};
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;
use crate::placement::servers::{HostPort, weights};
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// twemproxy's key hashes, FNV-1a 64 (its default) first.
const HASHES: &[H] = &[
    H::Fnv1a64,
    H::Md5,
    H::Crc,
    H::Crc32,
    H::OneAtATime,
    H::Fnv1_64,
    H::Fnv1_32,
    H::Fnv1a32,
    H::Hsieh,
    H::Murmur,
    H::Jenkins,
    H::Crc16,
];

/// Its spelling: `crc32` is the 15-bit crc (`crc32a` the full CRC-32).
const SPELLINGS: &[(&str, H)] = &[("crc32", H::Crc)];

/// `distribution: ketama`.
pub static PLACEMENT: Placement = Placement::continuum(HASHES, |servers, _, _| generate(servers))
    .with_spellings(SPELLINGS)
    .with_hash_tag();

/// `distribution: modula`: the hash as it is over the slots; with
/// `auto_eject_hosts` the down servers leave them.
const MODULA_RULE: Rule = Rule {
    select: Select::Unsigned,
    rehash: Rehash::Eject,
    prepare: None,
};

/// `distribution: modula`, with `auto_eject_hosts` taking down servers out
/// of the slots.
pub static MODULA: Placement = Placement::per_key(HASHES, |servers, _| {
    let names = server_names(servers)?;
    let mut order: Vec<usize> = (0..servers.len()).collect();
    order.sort_by(|&a, &b| (names[a].len(), &names[a]).cmp(&(names[b].len(), &names[b])));
    let list = BucketList::in_order(servers, order.into_iter(), MODULA_RULE)?;
    Ok(std::sync::Arc::new(list) as PerKey)
})
.with_spellings(SPELLINGS)
.with_hash_tag()
.with_replicas(ReplicaRule::NextInList);

/// Each server's name as nutcracker gives it: the name column, else `host`
/// (port 11211) or `host:port`; two servers of one name are an error.
fn server_names(servers: &[ServerSpec]) -> Result<Vec<Vec<u8>>, Error> {
    let mut seen = std::collections::HashSet::new();
    servers
        .iter()
        .map(|server| {
            let name = match &server.name {
                Some(name) => name.clone(),
                None => HostPort::parse(&server.address)?.without_default_port(),
            };
            if !seen.insert(name.clone()) {
                return Err(Error::InvalidArgument(format!(
                    "twemproxy: two servers are named '{}' (nutcracker rejects such a pool)",
                    String::from_utf8_lossy(&name)
                )));
            }
            Ok(name)
        })
        .collect()
}

/// Generates twemproxy's continuum.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let names = server_names(servers)?;
    let digests: Vec<u32> = weights
        .iter()
        .map(|&weight| float_weighted_digests(weight, total, servers.len()))
        .collect();
    let count = digests.iter().map(|&d| u64::from(d) * 4).sum();
    let mut points = Vec::with_capacity(budget::check("twemproxy", count)?);
    for (index, prefix) in names.iter().enumerate() {
        push_md5_server(prefix, digests[index], index as u32, &mut points);
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::AtOrAfter,
        prepare: None,
    })
}
