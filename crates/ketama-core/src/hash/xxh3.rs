//! XXH3 64-bit (Yann Collet's xxHash, `XXH3_64bits_withSeed`), the key
//! hash of memcached's built-in proxy: its pools hash each key with seed 0
//! unless a pool sets `seed` (`proxy_lua.c`, `mcplib_pool`). Computed by
//! the `xxhash-rust` crate; checked against Debian's libxxhash (through
//! python3-xxhash) by the peer tests.

/// XXH3_64bits of `input` with `seed` (seed 0 is `XXH3_64bits`).
#[inline]
pub fn xxh3_64(input: &[u8], seed: u64) -> u64 {
    xxhash_rust::xxh3::xxh3_64_with_seed(input, seed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_vectors() {
        // As Debian's libxxhash 0.8.1 computes them (python3-xxhash
        // `xxh3_64_intdigest`); the peer tests compare thousands of keys.
        assert_eq!(xxh3_64(b"", 0), 0x2d06_8005_38d3_94c2);
        assert_eq!(xxh3_64(b"", 1), 0x4dc5_b0cc_826f_6703);
    }
}
