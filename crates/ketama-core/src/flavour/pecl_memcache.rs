//! pecl memcache 4.0.5's consistent strategy: `160 × weight` points per
//! server, each `hash("host:port-i")` with the configured hash (full CRC-32
//! or FNV-1a 32), and a 1024-bucket lookup ([`Search::Buckets`]) of the
//! key as the extension prepares it ([`prepare_key`], [`PREPARATION`]).
//!
//! Its standard strategy ([`STANDARD`], `memcache.hash_strategy=standard`,
//! `memcache_standard_hash.c`) is not a continuum: each server fills
//! `weight` consecutive buckets in the order added, and a key goes to bucket
//! `h % buckets` where `h = (hash(key) >> 16) & 0x7fff`, 0 read as 1 (the
//! same hash functions; with CRC-32 this is python-memcached's
//! `cmemcache_hash`); a pool of one server gives it every key. A server
//! that is down (failed, its retry interval not over) sends the key to the
//! server of `key-0`, `key-1`, … `key-19` (`mmc_pool_find`,
//! `memcache.max_failover_attempts` = 20), the first that is up; none after
//! that.

use std::borrow::Cow;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::bucket_list::{BucketList, Rehash, Rule};
use crate::placement::per_key::PerKey;
use crate::placement::points::push_hashed_server;
use crate::placement::prepare::Preparation;
use crate::placement::remainder::Select;
use crate::placement::replica_rule::ReplicaRule;
use crate::placement::servers::{HostPort, weights};
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// `hash_strategy=consistent`: crc32 (full) or fnv (FNV-1a 32).
pub static PLACEMENT: Placement = Placement::continuum(
    &[HashAlgorithm::Crc32, HashAlgorithm::Fnv1a32],
    |servers, hash, _| generate(servers, hash),
);

/// `hash_strategy=standard`: the weighted bucket list, crc32 or fnv.
pub static STANDARD: Placement = Placement::per_key(
    &[HashAlgorithm::Crc32, HashAlgorithm::Fnv1a32],
    |servers, _| Ok(std::sync::Arc::new(standard(servers)?) as PerKey),
)
.with_replicas(ReplicaRule::NextInList);

/// The extension's key preparation ([`prepare_key`]), for both strategies.
pub static PREPARATION: Preparation = Preparation {
    name: "pecl memcache's key rewriting (blanks to '_', cut at 250 bytes)",
    rule: prepare_key,
};

/// Longest key the extension hashes; longer keys are cut.
const MAX_KEY_LEN: usize = 250;

/// The key as pecl memcache hashes (and stores) it: cut to 250 bytes, and
/// every byte up to 0x20 (controls, space) replaced by `_`.
#[inline]
pub fn prepare_key(key: &[u8]) -> Cow<'_, [u8]> {
    let key = &key[..key.len().min(MAX_KEY_LEN)];
    if has_blank(key) {
        return Cow::Owned(blanks_replaced(key));
    }
    Cow::Borrowed(key)
}

#[cold]
fn blanks_replaced(key: &[u8]) -> Vec<u8> {
    key.iter()
        .map(|&b| if b > b' ' { b } else { b'_' })
        .collect()
}

/// True when a byte of `key` is ≤ 0x20, eight bytes at a time: a word has
/// a byte below `n` (`n` ≤ 128) exactly when `(x − n·0x01…01) & !x & 0x80…80`
/// is not 0. The last word overlaps the one before it.
#[inline]
fn has_blank(key: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let below = |x: u64| x.wrapping_sub(ONES * 0x21) & !x & HIGH;
    if key.len() < 8 {
        return key.iter().fold(false, |found, &b| found | (b <= b' '));
    }
    let word = |at: usize| u64::from_le_bytes(key[at..at + 8].try_into().expect("8 bytes"));
    let mut at = 0;
    while at + 8 < key.len() {
        if below(word(at)) != 0 {
            return true;
        }
        at += 8;
    }
    below(word(key.len() - 8)) != 0
}

/// Points per unit of weight.
const POINTS_PER_WEIGHT: u64 = 160;

/// Generates pecl memcache's continuum.
pub fn generate(servers: &[ServerSpec], hash: HashAlgorithm) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let count = total.saturating_mul(POINTS_PER_WEIGHT);
    let mut points = Vec::with_capacity(budget::check(
        "pecl memcache (160 points per unit of weight)",
        count,
    )?);
    for (index, server) in servers.iter().enumerate() {
        // Within the budget: each server's count fits.
        let count = (weights[index] * POINTS_PER_WEIGHT) as u32;
        let prefix = HostPort::parse(&server.address)?.with_port();
        push_hashed_server(&prefix, count, hash, index as u32, &mut points);
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::Buckets,
        prepare: Some(&PREPARATION),
    })
}

/// The standard strategy's rule: `(hash >> 16) & 0x7fff`, 0 read as 1
/// (with one server every bucket is its anyway, so the extension's
/// shortcut for a pool of one changes nothing); a down server's key tried
/// again as `key-0` … `key-19` (`memcache.max_failover_attempts`, 20) after
/// the first bucket; the extension's key preparation.
const STANDARD_RULE: Rule = Rule {
    select: Select::Bits16To30OrOne,
    rehash: Rehash::HashOfKeyDashTry { tries: 1 + 20 },
    prepare: Some(&PREPARATION),
};

/// The standard strategy's bucket list: each server `weight` buckets (1
/// when none is given) in list order; a weight of 0 is refused, as
/// `addServer` refuses it.
pub fn standard(servers: &[ServerSpec]) -> Result<BucketList, Error> {
    if let Some(server) = servers.iter().find(|s| s.weight == Some(0)) {
        return Err(Error::InvalidArgument(format!(
            "server '{}': pecl memcache takes weights from 1 (one bucket each), not 0",
            String::from_utf8_lossy(&server.address),
        )));
    }
    BucketList::new(servers, STANDARD_RULE)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Flavour, Ring, RingConfig};

    #[test]
    fn blanks_are_found_in_every_position_of_every_length() {
        for len in 0..40 {
            for at in 0..len {
                for blank in [0u8, 1, b'\t', b' '] {
                    let mut key = vec![b'!'; len];
                    key[at] = blank;
                    assert!(has_blank(&key), "{key:?}");
                    key[at] = 0xff;
                    assert!(!has_blank(&key), "{key:?}");
                    key[at] = 0x21;
                    assert!(!has_blank(&key), "{key:?}");
                }
            }
            assert!(!has_blank(&vec![0xa0; len]));
        }
        for byte in 0..=255u8 {
            assert_eq!(
                has_blank(&[b'x', b'y', byte, 0x80, 0xff, b'!', b'~', 0x7f, b'z']),
                byte <= b' '
            );
        }
    }

    #[test]
    fn keys_are_prepared_like_the_extension() {
        assert_eq!(&*prepare_key(b"a b\tc\x01\x7f\xff"), b"a_b_c_\x7f\xff");
        assert!(matches!(prepare_key(b"plain"), Cow::Borrowed(_)));
        assert_eq!(prepare_key(&[b'z'; 300]).len(), 250);
    }

    #[test]
    fn batch_and_single_lookups_agree_on_prepared_keys() {
        let servers = (1..=5)
            .map(|i| ServerSpec::new(format!("10.0.0.{i}:11211"), i))
            .collect();
        let ring = Ring::new(servers, RingConfig::flavour(Flavour::PeclMemcache)).unwrap();
        let owned: Vec<Vec<u8>> = (0..500)
            .map(|i| format!("key {i}\t{}", "x".repeat(i)).into_bytes())
            .collect();
        let keys: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let mut out = vec![0u32; keys.len()];
        ring.find_server_indices(&keys, &mut out).unwrap();
        for (key, &index) in keys.iter().zip(&out) {
            assert_eq!(index as usize, ring.locate(key).unwrap().server_index);
            assert_eq!(ring.hash_key(key), ring.hash_key(&prepare_key(key)));
        }
    }

    #[test]
    fn a_short_pecl_list_cannot_ask_for_unbounded_points() {
        let servers = vec![
            ServerSpec::new("a:1", 104_857),
            ServerSpec::new("b:1", 104_857),
        ];
        let err = Ring::new(servers, RingConfig::flavour(Flavour::PeclMemcache)).unwrap_err();
        assert!(err.to_string().contains("more than 16777216"), "{err}");
    }
}
