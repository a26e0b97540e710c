//! The hash tags the Redis clients apply to every key by default: when a key
//! holds a `{…}` tag, only the tag is hashed, so that related keys share a
//! server. Each client finds the tag its own way; these are their rules,
//! read from their sources and checked against them by the peer tests.
//! The flavours pick theirs as a [`Preparation`].

use std::borrow::Cow;

use crate::placement::prepare::Preparation;

/// Predis's hash tag ([`predis`]), as a key preparation.
pub static PREDIS_TAG: Preparation = Preparation {
    name: "Predis's {tag}",
    rule: |key| Cow::Borrowed(predis(key)),
};

/// phpredis's hash tag ([`phpredis`]), as a key preparation.
pub static PHPREDIS_TAG: Preparation = Preparation {
    name: "phpredis's {tag}",
    rule: |key| Cow::Borrowed(phpredis(key)),
};

/// redis-rb's hash tag ([`redis_rb`]), as a key preparation.
pub static REDIS_RB_TAG: Preparation = Preparation {
    name: "redis-rb's {tag} at a line start",
    rule: |key| Cow::Borrowed(redis_rb(key)),
};

/// redis-shard's hash tag ([`redis_shard`]), as a key preparation.
pub static REDIS_SHARD_TAG: Preparation = Preparation {
    name: "redis-shard's greedy {tag} in the first line",
    rule: |key| Cow::Borrowed(redis_shard(key)),
};

/// Redis Cluster's hash tag, as a key preparation.
pub static REDIS_CLUSTER_TAG: Preparation = Preparation {
    name: "Redis Cluster's {tag}",
    rule: |key| Cow::Borrowed(redis_cluster(key)),
};

/// Predis 1.1 (`ClusterStrategy::extractKeyTag`): Redis Cluster's rule,
/// [`redis_cluster`].
#[inline]
pub fn predis(key: &[u8]) -> &[u8] {
    redis_cluster(key)
}

/// Redis Cluster (`keyHashSlot` in `cluster.c`; go-redis' `hashtag.Key`
/// too): the first `{`, then the first `}` after it; the bytes between when
/// there is at least one, otherwise the whole key (twemproxy's
/// `hash_tag: "{}"` rule).
#[inline]
pub fn redis_cluster(key: &[u8]) -> &[u8] {
    let Some(open) = memchr(b'{', key) else {
        return key;
    };
    match memchr(b'}', &key[open + 1..]) {
        Some(len) if len > 0 => &key[open + 1..open + 1 + len],
        _ => key,
    }
}

/// phpredis 5.3 `RedisArray` (`ra_extract_key`): `strchr(key, '{')`, then
/// `strchr(start + 1, '}')`; the bytes between, even none (`{}` hashes the
/// empty string). The C string search stops at the first NUL byte: a tag
/// must open and close before it. Otherwise the whole key, NUL bytes and
/// all.
#[inline]
pub fn phpredis(key: &[u8]) -> &[u8] {
    // The first '{' before any NUL, then the first '}' before any NUL.
    let Some(open) = find_either(b'{', 0, key).filter(|&at| key[at] == b'{') else {
        return key;
    };
    let body = &key[open + 1..];
    match find_either(b'}', 0, body).filter(|&at| body[at] == b'}') {
        Some(len) => &body[..len],
        None => key,
    }
}

/// redis-rb 4.8 `Redis::Distributed` (`key_tag`, `/^\{(.+?)\}/`): at the
/// start of the key or of a line (Ruby's `^` follows every `\n`), a `{`,
/// then at least one byte and the first `}` after it, with no `\n` before
/// that `}`; the first line that has one gives the tag.
pub fn redis_rb(key: &[u8]) -> &[u8] {
    if memchr(b'{', key).is_none() {
        return key;
    }
    let starts = std::iter::once(0).chain(
        key.iter()
            .enumerate()
            .filter(|&(_, &b)| b == b'\n')
            .map(|(at, _)| at + 1),
    );
    for start in starts {
        if key.get(start) != Some(&b'{') {
            continue;
        }
        let body = &key[start + 1..];
        // At least one byte, then the first '}' on the same line.
        let line = &body[..memchr(b'\n', body).unwrap_or(body.len())];
        if let Some(after_first) = line.get(1..).and_then(|rest| memchr(b'}', rest)) {
            return &body[..1 + after_first];
        }
    }
    key
}

/// django-redis 5.2 `ShardClient` (`.*\{(.*)\}.*` with `re.match`, no
/// DOTALL): within the key's first line (up to the first `\n`), the bytes
/// between the last `}` and the last `{` before it, even none; otherwise
/// the whole key.
pub fn django_redis(key: &[u8]) -> &[u8] {
    if memchr(b'}', key).is_none() {
        return key;
    }
    let line = &key[..memchr(b'\n', key).unwrap_or(key.len())];
    let Some(close) = line.iter().rposition(|&b| b == b'}') else {
        return key;
    };
    match line[..close].iter().rposition(|&b| b == b'{') {
        Some(open) => &line[open + 1..close],
        None => key,
    }
}

/// redis-shard 0.3.7 `RedisShardAPI.get_server_name` (`.*\{(.*)\}.*` with
/// `re.match` on a `str` key, no DOTALL): django-redis's rule,
/// [`django_redis`].
#[inline]
pub fn redis_shard(key: &[u8]) -> &[u8] {
    django_redis(key)
}

/// The index of the first `byte` in `bytes`.
#[inline]
fn memchr(byte: u8, bytes: &[u8]) -> Option<usize> {
    find_either(byte, byte, bytes)
}

/// The index of the first byte of `bytes` that is `a` or `b`, eight bytes
/// at a time (a key is scanned on every lookup).
#[inline]
fn find_either(a: u8, b: u8, bytes: &[u8]) -> Option<usize> {
    const LOW: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let (fill_a, fill_b) = (LOW * u64::from(a), LOW * u64::from(b));
    let mut chunks = bytes.chunks_exact(8);
    for (n, chunk) in chunks.by_ref().enumerate() {
        let word = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        let (xa, xb) = (word ^ fill_a, word ^ fill_b);
        // A zero byte of xa or xb sets its high bit; the lowest one set is
        // the first match (borrows only reach the bytes after it).
        let zero = (xa.wrapping_sub(LOW) & !xa) | (xb.wrapping_sub(LOW) & !xb);
        let found = zero & HIGH;
        if found != 0 {
            return Some(n * 8 + (found.trailing_zeros() / 8) as usize);
        }
    }
    let rest = chunks.remainder();
    let tail = bytes.len() - rest.len();
    rest.iter()
        .position(|&c| c == a || c == b)
        .map(|i| tail + i)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_are_found_as_a_plain_search_finds_them() {
        let mut state = 7u64;
        for len in 0..70 {
            for _ in 0..200 {
                let bytes: Vec<u8> = (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                        [b'a', b'{', b'}', 0, 0x7b ^ 0x80, 0xff][(state >> 60) as usize % 6]
                    })
                    .collect();
                for (a, b) in [(b'{', 0), (b'}', b'}'), (0, 0xff)] {
                    let plain = bytes.iter().position(|&c| c == a || c == b);
                    assert_eq!(find_either(a, b, &bytes), plain, "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn predis_takes_a_non_empty_first_tag() {
        assert_eq!(predis(b"user:{42}:name"), b"42");
        assert_eq!(predis(b"{a}{b}"), b"a");
        assert_eq!(predis(b"x{}y{z}"), b"x{}y{z}");
        assert_eq!(predis(b"x{yz"), b"x{yz");
        assert_eq!(predis(b"x}y{z}"), b"z");
        assert_eq!(predis(b"{{a}}"), b"{a");
        assert_eq!(predis(b"a{\0b}"), b"\0b");
    }

    #[test]
    fn phpredis_takes_even_an_empty_tag_before_a_nul() {
        assert_eq!(phpredis(b"user:{42}:name"), b"42");
        assert_eq!(phpredis(b"x{}y{z}"), b"");
        assert_eq!(phpredis(b"{{a}}"), b"{a");
        assert_eq!(phpredis(b"x{yz"), b"x{yz");
        assert_eq!(phpredis(b"a\0{b}"), b"a\0{b}");
        assert_eq!(phpredis(b"a{b\0}"), b"a{b\0}");
        assert_eq!(phpredis(b"a{b}\0c"), b"b");
    }

    #[test]
    fn redis_rb_takes_a_tag_at_a_line_start() {
        assert_eq!(redis_rb(b"{42}:name"), b"42");
        assert_eq!(redis_rb(b"user:{42}:name"), b"user:{42}:name");
        assert_eq!(redis_rb(b"{}}"), b"}");
        assert_eq!(redis_rb(b"{}a}"), b"}a");
        assert_eq!(redis_rb(b"{}"), b"{}");
        assert_eq!(redis_rb(b"{a\nb}"), b"{a\nb}");
        assert_eq!(redis_rb(b"x\n{ab}c"), b"ab");
        assert_eq!(redis_rb(b"{a\n{bc}"), b"bc");
        assert_eq!(redis_rb(b"{\n}\n{x}"), b"x");
        assert_eq!(redis_rb(b"x\n"), b"x\n");
    }

    #[test]
    fn django_redis_takes_the_last_tag_of_the_first_line() {
        assert_eq!(django_redis(b":1:user:{42}:name"), b"42");
        assert_eq!(django_redis(b"{a}{b}"), b"b");
        assert_eq!(django_redis(b"{a}b}"), b"a}b");
        assert_eq!(django_redis(b"{a{b}"), b"b");
        assert_eq!(django_redis(b"x{}y"), b"");
        assert_eq!(django_redis(b"}{"), b"}{");
        assert_eq!(django_redis(b"{a}\n{b}"), b"a");
        assert_eq!(django_redis(b"x\n{b}"), b"x\n{b}");
    }
}
