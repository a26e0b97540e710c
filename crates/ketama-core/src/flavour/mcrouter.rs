//! mcrouter's hash functions (facebook/mcrouter, `mcrouter/lib/`): not
//! continuums. A pool's route picks the index of a destination in the
//! pool's server list from the request's routing key:
//!
//! * **Ch3** (`Ch3HashFunc`, the default `hash_func`): `furc_hash(key, n)`
//!   ([`crate::hash::furc`]); at most 2^23 servers.
//! * **WeightedCh3** (`WeightedCh3HashFunc`; a pool with `weights` gets it):
//!   each server has a weight in `[0, 1]`; up to 32 attempts, each takes
//!   `index = furc_hash(key', n)` and keeps it when
//!   `SpookyHashV2::Hash32(key', 0xface2014) < weight[index] * (2^32 - 1)`
//!   (the product truncated to an integer); `key'` is the key, then the key
//!   followed by the attempt's salt, the decimal digits of 0, 1, 2, ...
//!   written backwards ("0", ..., "9", "01", "11", ...). After 32 misses
//!   the last index stands. Our weights are the server list's weight column
//!   divided by the largest weight in the list ([`fractions`]): a server of
//!   the largest weight has mcrouter weight 1.0, and an unweighted list is
//!   Ch3.
//! * **Crc32** (`Crc32HashFunc`): `(crc32(key) & 0x7fffffff) % n`.
//!
//! The key hashed is the routing key ([`routing_key`]): a
//! `/region/cluster/` routing prefix is dropped and the key ends before a
//! hash stop `|#|`. Ch3 and Crc32 have no weights (a weight column is
//! ignored). A server that is down is not skipped: mcrouter's hash route
//! sends the request to its destination, which fails (failover is a
//! separate route), so a down server's keys have no live server. mcrouter's
//! per-route `salt` is not modelled.

use std::sync::Arc;

use crate::hash::HashAlgorithm as H;
use crate::hash::furc::{MAX_POOL_SIZE, furc_hash};
use crate::hash::spooky;
use crate::placement::Placement;
use crate::placement::per_key::{Location, PerKey, PerKeyPlacement};
use crate::{Error, ServerSpec};

/// `hash_func: Ch3`.
pub static CH3: Placement = Placement::per_key(&[H::Furc], |servers, _options| {
    Ok(Arc::new(Mcrouter::Ch3(Ch3::new(servers.len())?)) as PerKey)
});

/// `hash_func: WeightedCh3`, weights from the weight column.
pub static WEIGHTED_CH3: Placement = Placement::per_key(&[H::Furc], |servers, _options| {
    let weights = WeightedCh3::new(fractions(servers)?)?;
    Ok(Arc::new(Mcrouter::WeightedCh3(weights)) as PerKey)
});

/// `hash_func: Crc32`.
pub static CRC32: Placement = Placement::per_key(&[H::Crc32], |servers, _options| {
    Ok(Arc::new(Mcrouter::Crc32(servers.len() as u64)) as PerKey)
});

/// The part of `key` mcrouter hashes (`carbon::Keys::update`): after a
/// routing prefix (a key starting with `/` that holds two more `/`, as in
/// `/region/cluster/key`, loses everything up to the third `/`), and before
/// the first hash stop `|#|`.
pub fn routing_key(key: &[u8]) -> &[u8] {
    let mut rest = key;
    if key.first() == Some(&b'/') {
        let second = key[1..].iter().position(|&b| b == b'/').map(|p| p + 1);
        let third = second.and_then(|s| {
            key[s + 1..]
                .iter()
                .position(|&b| b == b'/')
                .map(|p| s + 1 + p)
        });
        if let Some(third) = third {
            rest = &key[third + 1..];
        }
    }
    let mut from = 0;
    while let Some(bar) = find_bar(&rest[from..]) {
        let at = from + bar;
        if rest[at..].starts_with(b"|#|") {
            return &rest[..at];
        }
        from = at + 1;
    }
    rest
}

/// The first `|` of `bytes`, eight bytes at a time.
#[inline]
fn find_bar(bytes: &[u8]) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const BARS: u64 = ONES * b'|' as u64;
    let mut words = bytes.chunks_exact(8);
    for (i, word) in (&mut words).enumerate() {
        let x = u64::from_le_bytes(word.try_into().expect("8 bytes")) ^ BARS;
        // The lowest byte of x that is zero has the lowest high bit set
        // here (bytes above a zero byte may also show one).
        let zero = x.wrapping_sub(ONES) & !x & (ONES << 7);
        if zero != 0 {
            return Some(8 * i + zero.trailing_zeros() as usize / 8);
        }
    }
    let tail = words.remainder();
    let start = bytes.len() - tail.len();
    tail.iter().position(|&b| b == b'|').map(|p| start + p)
}

/// mcrouter's Ch3 over `n` servers.
#[derive(Debug, Clone, Copy)]
pub struct Ch3 {
    n: u32,
}

impl Ch3 {
    /// Ch3 over `n` servers: 1 to 2^23, as `Ch3HashFunc` accepts.
    pub fn new(n: usize) -> Result<Self, Error> {
        if n == 0 || n > MAX_POOL_SIZE as usize {
            return Err(Error::InvalidArgument(format!(
                "mcrouter Ch3 takes 1 to {MAX_POOL_SIZE} servers, not {n} \
                 (Pool size out of range for Ch3)"
            )));
        }
        Ok(Ch3 { n: n as u32 })
    }

    /// The index of the server for a routing key.
    #[inline]
    pub fn index(&self, key: &[u8]) -> usize {
        furc_hash(key, self.n) as usize
    }
}

/// `WeightedCh3HashFunc`'s seed for the probability hash.
const SPOOKY_SEED: u32 = 0xface_2014;

/// Attempts before the last index stands (`kNumTries`).
const TRIES: usize = 32;

/// mcrouter's WeightedCh3 over weights in `[0, 1]`.
#[derive(Debug, Clone)]
pub struct WeightedCh3 {
    weights: Box<[f64]>,
}

impl WeightedCh3 {
    /// WeightedCh3 with one weight per server, each in `[0, 1]`; 1 to 2^23
    /// servers.
    pub fn new(weights: Vec<f64>) -> Result<Self, Error> {
        Ch3::new(weights.len())?;
        if let Some((i, w)) = weights
            .iter()
            .enumerate()
            .find(|(_, w)| !(0.0..=1.0).contains(*w))
        {
            return Err(Error::InvalidArgument(format!(
                "mcrouter WeightedCh3: the weight of server {i} is {w}, outside [0, 1]"
            )));
        }
        Ok(WeightedCh3 {
            weights: weights.into_boxed_slice(),
        })
    }

    /// The weights, in server order.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// The index of the server for a routing key.
    pub fn index(&self, key: &[u8]) -> usize {
        let n = self.weights.len() as u32;
        let mut salted: Vec<u8> = Vec::new();
        let mut index = 0;
        for salt in 0..TRIES {
            let attempt = if salt == 0 { key } else { &salted[..] };
            index = furc_hash(attempt, n) as usize;
            let p = u64::from(spooky::hash32(attempt, SPOOKY_SEED));
            let w = (self.weights[index] * f64::from(u32::MAX)) as u64;
            if p < w {
                return index;
            }
            salted.clear();
            salted.extend_from_slice(key);
            let mut s = salt;
            loop {
                salted.push(b'0' + (s % 10) as u8);
                s /= 10;
                if s == 0 {
                    break;
                }
            }
        }
        index
    }
}

/// The mcrouter weight of each server: its weight divided by the largest
/// weight in the list (a server without a weight counts 1).
pub fn fractions(servers: &[ServerSpec]) -> Result<Vec<f64>, Error> {
    let weights: Vec<u64> = servers.iter().map(|s| s.weight.unwrap_or(1)).collect();
    let max = weights.iter().copied().max().unwrap_or(1);
    if max == 0 {
        return Err(Error::InvalidArgument(
            "mcrouter WeightedCh3: every weight is 0".into(),
        ));
    }
    Ok(weights.iter().map(|&w| w as f64 / max as f64).collect())
}

/// The CRC-32 rule: `(crc32(key) & 0x7fffffff) % n`.
#[inline]
pub fn crc32_index(key: &[u8], n: u64) -> (usize, u32) {
    let crc = crate::hash::crc::crc32(key);
    let masked = crc & 0x7fff_ffff;
    // A 32-bit division where the count allows (any pool does).
    let index = match u32::try_from(n) {
        Ok(n) => masked % n,
        Err(_) => masked,
    };
    (index as usize, crc)
}

/// One of mcrouter's hash functions, built for a pool.
#[derive(Debug, Clone)]
pub enum Mcrouter {
    /// Ch3.
    Ch3(Ch3),
    /// WeightedCh3.
    WeightedCh3(WeightedCh3),
    /// Crc32 over this many servers (none: no key has a server).
    Crc32(u64),
}

impl Mcrouter {
    /// The server index for a full key, and the value that chose it (the
    /// index for Ch3 and WeightedCh3, the CRC-32 for Crc32); `None` for a
    /// pool without servers.
    #[inline]
    pub fn place(&self, key: &[u8]) -> Option<(usize, u32)> {
        let key = routing_key(key);
        match self {
            Mcrouter::Ch3(ch3) => {
                let index = ch3.index(key);
                Some((index, index as u32))
            }
            Mcrouter::WeightedCh3(w) => {
                let index = w.index(key);
                Some((index, index as u32))
            }
            Mcrouter::Crc32(0) => None,
            Mcrouter::Crc32(n) => Some(crc32_index(key, *n)),
        }
    }
}

impl PerKeyPlacement for Mcrouter {
    fn describe(&self) -> &'static str {
        match self {
            Mcrouter::Ch3(_) => "mcrouter's Ch3 (furc_hash)",
            Mcrouter::WeightedCh3(_) => "mcrouter's WeightedCh3 (furc_hash and weights)",
            Mcrouter::Crc32(_) => "mcrouter's Crc32 (crc32 modulo the server count)",
        }
    }

    fn heap_bytes(&self) -> usize {
        match self {
            Mcrouter::WeightedCh3(weighted) => size_of_val(&*weighted.weights),
            Mcrouter::Ch3(_) | Mcrouter::Crc32(_) => 0,
        }
    }

    fn locate(&self, key: &[u8], _hash: H, is_down: &dyn Fn(usize) -> bool) -> Option<Location> {
        let (server_index, point) = self.place(key)?;
        (!is_down(server_index)).then_some(Location {
            point_index: server_index,
            point,
            server_index,
        })
    }

    #[inline]
    fn locate_up(&self, key: &[u8], _hash: H) -> Option<Location> {
        let (server_index, point) = self.place(key)?;
        Some(Location {
            point_index: server_index,
            point,
            server_index,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_keys_as_carbon_keys_cut_them() {
        // mcrouter lib/carbon/test/CarbonStructuresTest.cpp (kKeyLiteral).
        assert_eq!(
            routing_key(b"/region/cluster/abcdefghijklmnopqrstuvwxyz|#|afterhashstop"),
            b"abcdefghijklmnopqrstuvwxyz"
        );
        assert_eq!(routing_key(b""), b"");
        assert_eq!(routing_key(b"/region/cluster"), b"/region/cluster");
        assert_eq!(routing_key(b"//x/key"), b"key");
        assert_eq!(routing_key(b"a|#|b|#|c"), b"a");
        assert_eq!(routing_key(b"a|b#|c"), b"a|b#|c");
        assert_eq!(routing_key(b"someprefix:1:|#|id=123"), b"someprefix:1:");
        // The word-at-a-time search at every offset, with bars before.
        for len in 0..40 {
            for stop in 0..len {
                let mut key = vec![b'a'; len];
                key[stop / 2] = b'|';
                key[stop..]
                    .iter_mut()
                    .zip(b"|#|")
                    .for_each(|(k, b)| *k = *b);
                let expected = if len - stop >= 3 { stop } else { len };
                assert_eq!(routing_key(&key).len(), expected, "{key:?}");
            }
        }
    }

    #[test]
    fn weights_are_fractions_of_the_largest() {
        let servers = [
            ServerSpec::new("a:1", 10),
            ServerSpec::new("b:1", 5),
            ServerSpec::new("c:1", 3),
        ];
        assert_eq!(fractions(&servers).unwrap(), [1.0, 0.5, 0.3]);
        assert_eq!(fractions(&[ServerSpec::unweighted("a:1")]).unwrap(), [1.0]);
        assert!(WeightedCh3::new(vec![0.5, 1.5]).is_err());
        assert!(WeightedCh3::new(vec![]).is_err());
        assert!(Ch3::new(MAX_POOL_SIZE as usize + 1).is_err());
    }

    #[test]
    fn down_servers_are_not_skipped() {
        let ch3 = Mcrouter::Ch3(Ch3::new(10).unwrap());
        let at = ch3.locate(b"sample", H::Furc, &|_| false).unwrap();
        assert_eq!(
            ch3.locate(b"sample", H::Furc, &|s| s == at.server_index),
            None
        );
    }

    #[test]
    fn an_empty_crc32_pool_places_no_key() {
        let empty = Mcrouter::Crc32(0);
        assert_eq!(empty.locate_up(b"sample", H::Crc32), None);
        assert_eq!(empty.locate(b"sample", H::Crc32, &|_| false), None);
        assert!(Ch3::new(0).is_err());
    }
}
