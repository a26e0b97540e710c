//! SipHash-1-3 (Aumasson and Bernstein's SipHash with one compression and
//! three finalization rounds), the function behind Rust's
//! `std::collections::hash_map::DefaultHasher` (keys 0 and 0), which the
//! crates.io `memcache` client hashes keys with. Written from the published
//! algorithm; checked against the standard library's hasher here and
//! against the client itself by the peer test.

/// One SipRound over the state.
#[inline]
fn round(v: &mut [u64; 4]) {
    v[0] = v[0].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(13) ^ v[0];
    v[0] = v[0].rotate_left(32);
    v[2] = v[2].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(16) ^ v[2];
    v[0] = v[0].wrapping_add(v[3]);
    v[3] = v[3].rotate_left(21) ^ v[0];
    v[2] = v[2].wrapping_add(v[1]);
    v[1] = v[1].rotate_left(17) ^ v[2];
    v[2] = v[2].rotate_left(32);
}

/// SipHash-1-3 with the key `(k0, k1)` of the bytes of `parts`, one after
/// the other (as a `Hasher` sees several `write` calls).
pub fn siphash13(k0: u64, k1: u64, parts: &[&[u8]]) -> u64 {
    let mut v = [
        k0 ^ 0x736f_6d65_7073_6575,
        k1 ^ 0x646f_7261_6e64_6f6d,
        k0 ^ 0x6c79_6765_6e65_7261,
        k1 ^ 0x7465_6462_7974_6573,
    ];
    let mut compress = |m: u64| {
        v[3] ^= m;
        round(&mut v);
        v[0] ^= m;
    };
    let mut tail = [0u8; 8];
    let mut filled = 0;
    let mut length = 0u64;
    for part in parts {
        length = length.wrapping_add(part.len() as u64);
        let mut rest: &[u8] = part;
        if filled > 0 {
            let take = rest.len().min(8 - filled);
            tail[filled..filled + take].copy_from_slice(&rest[..take]);
            filled += take;
            rest = &rest[take..];
            if filled < 8 {
                continue;
            }
            compress(u64::from_le_bytes(tail));
        }
        let mut words = rest.chunks_exact(8);
        for word in &mut words {
            compress(u64::from_le_bytes(word.try_into().expect("8 bytes")));
        }
        let left = words.remainder();
        tail[..left.len()].copy_from_slice(left);
        filled = left.len();
    }
    let mut last = [0u8; 8];
    last[..filled].copy_from_slice(&tail[..filled]);
    compress(u64::from_le_bytes(last) | (length << 56));
    v[2] ^= 0xff;
    for _ in 0..3 {
        round(&mut v);
    }
    v[0] ^ v[1] ^ v[2] ^ v[3]
}

/// What Rust's `DefaultHasher::new()` gives for a `str` (or `String`) key:
/// SipHash-1-3 with keys 0 and 0 of its bytes and then `0xff` (`str`'s
/// `Hash` writes the byte 0xff after the bytes, so that `("ab", "c")` and
/// `("a", "bc")` differ).
#[inline]
pub fn rust_str_hash(key: &[u8]) -> u64 {
    siphash13(0, 0, &[key, &[0xff]])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{Hash, Hasher};

    #[test]
    fn equals_the_standard_library_default_hasher() {
        let mut state = 9u64;
        let mut bytes = Vec::new();
        for len in 0..300 {
            let mut std_hasher = std::collections::hash_map::DefaultHasher::new();
            std_hasher.write(&bytes);
            assert_eq!(siphash13(0, 0, &[&bytes]), std_hasher.finish(), "{len}");
            // A write cut anywhere is the same stream.
            let cut = len / 3;
            assert_eq!(
                siphash13(0, 0, &[&bytes[..cut], &bytes[cut..]]),
                std_hasher.finish()
            );
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            bytes.push((state >> 56) as u8);
        }
        for key in [
            "",
            "a",
            "key:1",
            "ключ",
            "a much longer key of more than eight bytes",
        ] {
            let mut std_hasher = std::collections::hash_map::DefaultHasher::new();
            key.hash(&mut std_hasher);
            assert_eq!(rust_str_hash(key.as_bytes()), std_hasher.finish(), "{key}");
        }
    }
}
