//! HAProxy `hash-type consistent` (2.6, `src/lb_chash.c`), as used with
//! `balance hdr(NAME)`, `balance uri`, `balance hash EXPR` and the other
//! hashing algorithms:
//!
//! * a server's points depend only on its numeric `id` (HAProxy's `puid`)
//!   and weight, never on its address or name: `16 × weight` points
//!   `full_hash(id × 4096 + n)`, n = 0.. (weights 0 to 256; weight 0 takes
//!   no key);
//! * the id is the server list's name column when it is a number
//!   (`server web1 ADDR id 7` is `ADDR 7`); any other name is the server's
//!   name (`ADDR web1`), which HAProxy does not hash. A server without an
//!   id gets HAProxy's automatic id: ids are handed out in list order from
//!   1, skipping ids some server was given, and a server with its own id
//!   still advances the count ([`haproxy_ids`]);
//! * the key is hashed with the backend's hash function (sdbm by default,
//!   djb2, wt6, crc32; `avalanche` passes the result through `full_hash`)
//!   and goes to the **nearest** point on either side of the circle; a key
//!   exactly half way goes to the point before it
//!   ([`Search::Nearest`]);
//! * two ids equal modulo 2^20 give equal points (`id × 4096` wraps):
//!   among equal points the server listed first takes the keys below them,
//!   the one listed last the keys above (HAProxy's tree keeps duplicates in
//!   insertion order).

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm as H;
use crate::hash::haproxy::full_hash;
use crate::placement::Placement;
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// HAProxy's hash functions, sdbm (its default) first, each also with the
/// `avalanche` modifier.
const HASHES: &[H] = &[
    H::Sdbm,
    H::Djb2,
    H::Wt6,
    H::Crc32,
    H::SdbmAvalanche,
    H::Djb2Avalanche,
    H::Wt6Avalanche,
    H::Crc32Avalanche,
];

/// `hash-type consistent <function> [avalanche]` as HAProxy's users write it.
const SPELLINGS: &[(&str, H)] = &[
    ("sdbm avalanche", H::SdbmAvalanche),
    ("djb2 avalanche", H::Djb2Avalanche),
    ("wt6 avalanche", H::Wt6Avalanche),
    ("crc32 avalanche", H::Crc32Avalanche),
];

/// `hash-type consistent`: sdbm keys, ids from the name column.
pub static PLACEMENT: Placement =
    Placement::continuum(HASHES, |servers, _, _| generate(servers)).with_spellings(SPELLINGS);

/// Points per unit of weight (`BE_WEIGHT_SCALE`).
const POINTS_PER_WEIGHT: u32 = 16;

/// Ring positions reserved per id (`SRV_EWGHT_RANGE`: 256 × 16).
const ID_RANGE: u32 = 4096;

/// HAProxy's largest server weight (`SRV_UWGHT_MAX`).
const MAX_WEIGHT: u64 = 256;

/// HAProxy's largest server id (a C `int`).
const MAX_ID: u32 = i32::MAX as u32;

/// Each server's HAProxy id, in list order: the name column when it is a
/// number (a decimal id from 1 to 2147483647, unique), else (no name, or
/// a server name, which HAProxy does not hash) the automatic id HAProxy
/// gives (`cfgparse.c`): a counter starting at 1 moves past the ids
/// servers were given and goes up by one after every server, its own id
/// or not.
pub fn haproxy_ids(servers: &[ServerSpec]) -> Result<Vec<u32>, Error> {
    let mut explicit = std::collections::BTreeSet::new();
    let mut given = Vec::with_capacity(servers.len());
    for server in servers {
        let id = match &server.name {
            Some(name) if !name.is_empty() && name.iter().all(u8::is_ascii_digit) => {
                let id = parse_id(name).ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "haproxy: server {}: id {} is out of range (HAProxy's ids are 1 to \
                         {MAX_ID})",
                        String::from_utf8_lossy(&server.address),
                        String::from_utf8_lossy(name)
                    ))
                })?;
                if !explicit.insert(id) {
                    return Err(Error::InvalidArgument(format!(
                        "haproxy: two servers have id {id} (HAProxy rejects such a backend)"
                    )));
                }
                Some(id)
            }
            _ => None,
        };
        given.push(id);
    }
    let mut next: u64 = 1;
    let mut ids = Vec::with_capacity(servers.len());
    for id in given {
        let id = match id {
            Some(id) => id,
            None => {
                while explicit.contains(&(next as u32)) {
                    next += 1;
                }
                if next > u64::from(MAX_ID) {
                    return Err(Error::InvalidArgument(
                        "haproxy: no automatic server id is left below 2^31".into(),
                    ));
                }
                next as u32
            }
        };
        ids.push(id);
        next += 1;
    }
    Ok(ids)
}

fn parse_id(name: &[u8]) -> Option<u32> {
    if name.is_empty() || name.len() > 10 || !name.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let id: u64 = std::str::from_utf8(name).ok()?.parse().ok()?;
    (1..=u64::from(MAX_ID)).contains(&id).then_some(id as u32)
}

/// Generates HAProxy's points: per server in list order, `16 × weight`
/// points `full_hash(id × 4096 + n)`.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let ids = haproxy_ids(servers)?;
    let mut total = 0u64;
    for server in servers {
        let weight = server.weight.unwrap_or(1);
        if weight > MAX_WEIGHT {
            return Err(Error::InvalidArgument(format!(
                "haproxy: server {}: weight {weight} (HAProxy's weights are 0 to {MAX_WEIGHT})",
                String::from_utf8_lossy(&server.address)
            )));
        }
        total += weight * u64::from(POINTS_PER_WEIGHT);
    }
    let total = budget::check("haproxy (16 points per unit of weight)", total)?;
    let mut points = crate::prefault::vec_with_capacity(total);
    for (index, (server, id)) in servers.iter().zip(ids).enumerate() {
        let base = id.wrapping_mul(ID_RANGE);
        let count = server.weight.unwrap_or(1) as u32 * POINTS_PER_WEIGHT;
        points.extend((0..count).map(|n| (full_hash(base.wrapping_add(n)), index as u32)));
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::Nearest,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(name: Option<&str>) -> ServerSpec {
        ServerSpec {
            address: b"127.0.0.1:80".to_vec(),
            weight: None,
            name: name.map(|n| n.as_bytes().to_vec()),
        }
    }

    #[test]
    fn automatic_ids_follow_haproxy() {
        let ids = |names: &[Option<&str>]| {
            haproxy_ids(&names.iter().map(|n| spec(*n)).collect::<Vec<_>>()).unwrap()
        };
        assert_eq!(ids(&[None, None, None]), [1, 2, 3]);
        // A server with its own id still advances the counter.
        assert_eq!(ids(&[Some("5"), None, None]), [5, 2, 3]);
        assert_eq!(ids(&[None, Some("1"), None]), [2, 1, 4]);
        assert_eq!(ids(&[None, None, Some("2"), None]), [1, 3, 2, 5]);
        // A server name is not hashed: the server keeps its automatic id.
        assert_eq!(ids(&[Some("web1"), Some("7"), Some("web3")]), [1, 7, 3]);
    }

    #[test]
    fn bad_ids_are_named() {
        let err = |names: &[Option<&str>]| {
            haproxy_ids(&names.iter().map(|n| spec(*n)).collect::<Vec<_>>())
                .unwrap_err()
                .to_string()
        };
        assert!(err(&[Some("0")]).contains("id 0 is out of range"));
        assert!(err(&[Some("2147483648")]).contains("2147483648"));
        assert!(err(&[Some("3"), Some("3")]).contains("two servers have id 3"));
        let mut heavy = spec(None);
        heavy.weight = Some(257);
        let msg = generate(&[heavy]).unwrap_err().to_string();
        assert!(msg.contains("weight 257"), "{msg}");
    }

    #[test]
    fn points_come_from_id_and_weight() {
        let mut servers = vec![spec(Some("7")), spec(None)];
        servers[1].weight = Some(0);
        let generated = generate(&servers).unwrap();
        assert_eq!(generated.points.len(), 16);
        assert_eq!(generated.points[3], (full_hash(7 * 4096 + 3), 0));
    }
}
