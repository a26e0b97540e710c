//! PyPI redis-shard 0.3.7, `RedisShardAPI(servers)` with its default
//! `hash_method='crc32'` (`redis_shard/shard.py` and `hashring.py`):
//!
//! * each server is hashed by its `name` (redis-shard requires one per
//!   server, given in a dict or as `?name=` of a URL): the name column, else
//!   the address as written; two servers of one name are refused, as
//!   redis-shard refuses them; no weights;
//! * 128 points per server, `crc32("<name>:<x>")` (zlib's CRC-32);
//! * keys: the hash tag of a `str` key ([`hash_tags::redis_shard`]: the
//!   greedy `.*\{(.*)\}.*` within the first line, an empty tag hashes the
//!   empty string), then `crc32`; a key goes to the first point *strictly
//!   greater* than its hash (`bisect.bisect`), and past the last point to
//!   the last point, not the first ([`Search::AfterNoWrap`]);
//! * points are keys of a dictionary: of equal points the later server's
//!   is kept.
//!
//! redis-shard encodes a `str` key and a name as ISO-8859-1, so its bytes
//! are the string's code points; the library hashes the key's bytes, which
//! are those when the client's keys are read as Latin-1 text. redis-shard
//! takes no tag from a `bytes` key.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget;
use crate::placement::hash_tags;
use crate::placement::points::push_crc32_points;
use crate::placement::servers::{name_or_address, refuse_duplicates, refuse_weights};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `HashRing`'s default `replicas`.
pub const REPLICAS: u32 = 128;

/// `RedisShardAPI(servers)`: CRC-32 points and keys, no wrap-around.
pub static PLACEMENT: Placement = Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, _| {
    generate(servers, REPLICAS)
});

/// The ring with `replicas` points per server.
pub fn generate(servers: &[ServerSpec], replicas: u32) -> Result<GeneratedPoints, Error> {
    refuse_weights(servers, "redis-shard")?;
    let names: Vec<&[u8]> = servers.iter().map(name_or_address).collect();
    refuse_duplicates(&names, "redis-shard")?;
    let count = servers.len() as u64 * u64::from(replicas);
    let mut points = Vec::with_capacity(budget::check("redis-shard", count)?);
    let mut prefix = Vec::new();
    for (index, name) in names.iter().enumerate() {
        prefix.clear();
        prefix.extend_from_slice(name);
        prefix.push(b':');
        push_crc32_points(&prefix, u64::from(replicas), index as u32, &mut points);
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::AfterNoWrap,
        prepare: Some(&hash_tags::REDIS_SHARD_TAG),
    })
}
