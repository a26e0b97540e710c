//! MurmurHash64A, the 64-bit MurmurHash2 for 64-bit platforms (Austin
//! Appleby's algorithm), with the seeds two peers use: mcrouter's
//! `furc_hash` hashes keys with seed 4193360111 and rehashes the result
//! with the same seed; Envoy's `MurmurHash::murmurHash2` (ring_hash
//! `hash_function: MURMUR_HASH_2`, libstdc++'s `std::hash<std::string>`)
//! uses seed `0xc70f6907`; Jedis' sharding `0x1234ABCD`. Bytes are read little-endian, as both peers do
//! on x86-64.

const M: u64 = 0xc6a4_a793_5bd1_e995;
const R: u32 = 47;

/// mcrouter's furc seed (`SEED` in `lib/fbi/hash.c`).
pub const FURC_SEED: u64 = 4_193_360_111;

/// Envoy's `MurmurHash::STD_HASH_SEED`.
pub const ENVOY_SEED: u64 = 0xc70f_6907;

/// Jedis' `MurmurHash.hash(byte[])` seed (`hash64A(key, 0x1234ABCD)`).
pub const JEDIS_SEED: u64 = 0x1234_abcd;

#[inline]
fn mix(k: u64) -> u64 {
    let k = k.wrapping_mul(M);
    (k ^ (k >> R)).wrapping_mul(M)
}

/// MurmurHash64A of `key` with `seed`.
#[inline]
pub fn murmur64a(key: &[u8], seed: u64) -> u64 {
    let mut h = seed ^ (key.len() as u64).wrapping_mul(M);
    let mut blocks = key.chunks_exact(8);
    for block in &mut blocks {
        let k = u64::from_le_bytes(block.try_into().expect("8-byte block"));
        h = (h ^ mix(k)).wrapping_mul(M);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let k = tail
            .iter()
            .rev()
            .fold(0u64, |k, &b| (k << 8) | u64::from(b));
        h = (h ^ k).wrapping_mul(M);
    }
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^ (h >> R)
}

/// MurmurHash64A of the 8 little-endian bytes of `k` with `seed` (mcrouter's
/// `murmur_rehash_64A`, which makes furc's further random bits).
#[inline]
pub fn murmur64a_word(k: u64, seed: u64) -> u64 {
    let mut h = (seed ^ 8u64.wrapping_mul(M)) ^ mix(k);
    h = h.wrapping_mul(M);
    h ^= h >> R;
    h = h.wrapping_mul(M);
    h ^ (h >> R)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_word_form_is_the_hash_of_eight_bytes() {
        for k in [0u64, 1, 0x0123_4567_89ab_cdef, u64::MAX] {
            assert_eq!(
                murmur64a_word(k, FURC_SEED),
                murmur64a(&k.to_le_bytes(), FURC_SEED)
            );
        }
    }

    #[test]
    fn envoy_published_values() {
        // Envoy test/common/common/hash_test.cc, TEST(Hash, murmurHash2).
        let cases: [(&[u8], u64); 5] = [
            (b"foo", 9_631_199_822_919_835_226),
            (b"bar", 11_474_628_671_133_349_555),
            (b"foo\nbar", 16_306_510_975_912_980_159),
            (b"lyft", 12_847_078_931_730_529_320),
            (b"", 6_142_509_188_972_423_790),
        ];
        for (key, expected) in cases {
            assert_eq!(murmur64a(key, ENVOY_SEED), expected);
        }
    }
}
