//! MurmurHash3_x64_128 (Austin Appleby's SMHasher), and the 32-bit value
//! the PyPI `emcache` client folds out of it for its rendezvous scores.
//! Written from the published algorithm; checked with SMHasher's
//! verification value here and against emcache itself by the peer test.

const C1: u64 = 0x87c3_7b91_1142_53d5;
const C2: u64 = 0x4cf5_ad43_2745_937f;

#[inline]
fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k = k.wrapping_mul(0xff51_afd7_ed55_8ccd);
    k ^= k >> 33;
    k = k.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    k ^ (k >> 33)
}

/// MurmurHash3_x64_128 of `key` with `seed`: its 16 output bytes as the
/// reference writes them (`h1` then `h2`, little-endian).
pub fn murmur3_x64_128(key: &[u8], seed: u32) -> [u8; 16] {
    let mix1 = |k: u64| k.wrapping_mul(C1).rotate_left(31).wrapping_mul(C2);
    let mix2 = |k: u64| k.wrapping_mul(C2).rotate_left(33).wrapping_mul(C1);
    let (mut h1, mut h2) = (u64::from(seed), u64::from(seed));
    let mut blocks = key.chunks_exact(16);
    for block in &mut blocks {
        let k1 = u64::from_le_bytes(block[..8].try_into().expect("8 bytes"));
        let k2 = u64::from_le_bytes(block[8..].try_into().expect("8 bytes"));
        h1 ^= mix1(k1);
        h1 = h1
            .rotate_left(27)
            .wrapping_add(h2)
            .wrapping_mul(5)
            .wrapping_add(0x52dc_e729);
        h2 ^= mix2(k2);
        h2 = h2
            .rotate_left(31)
            .wrapping_add(h1)
            .wrapping_mul(5)
            .wrapping_add(0x3849_5ab5);
    }
    let tail = blocks.remainder();
    let mut padded = [0u8; 16];
    padded[..tail.len()].copy_from_slice(tail);
    if tail.len() > 8 {
        h2 ^= mix2(u64::from_le_bytes(padded[8..].try_into().expect("8 bytes")));
    }
    if !tail.is_empty() {
        h1 ^= mix1(u64::from_le_bytes(padded[..8].try_into().expect("8 bytes")));
    }
    let len = key.len() as u64;
    h1 ^= len;
    h2 ^= len;
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    h1 = fmix64(h1);
    h2 = fmix64(h2);
    h1 = h1.wrapping_add(h2);
    h2 = h2.wrapping_add(h1);
    let mut out = [0u8; 16];
    out[..8].copy_from_slice(&h1.to_le_bytes());
    out[8..].copy_from_slice(&h2.to_le_bytes());
    out
}

/// emcache's `_hash` (`emcache/_cython/hashing/rendezvous.pyx`): the first
/// four output bytes of MurmurHash3_x64_128 (seed 0) as it combines them,
/// `(<char>out[3] & mask << 24) | (<char>out[2] & mask << 16) |
/// (<char>out[1] & mask << 8) | <char>out[0] & mask`. Shifts bind before
/// `&` and `char` is signed, so each of bytes 1–3 only sets all the bits
/// above its place when it is 0x80 or more, and byte 0 is sign-extended:
/// at most 640 distinct values, and many equal scores.
pub fn emcache_fold(key: &[u8]) -> u32 {
    let out = murmur3_x64_128(key, 0);
    fold([out[0], out[1], out[2], out[3]])
}

/// emcache's combination of four bytes (see [`emcache_fold`]).
#[inline]
fn fold(out: [u8; 4]) -> u32 {
    let signed = |b: u8| b as i8 as i32 as u32;
    (signed(out[3]) & 0xff00_0000)
        | (signed(out[2]) & 0xffff_0000)
        | (signed(out[1]) & 0xffff_ff00)
        | signed(out[0])
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SMHasher's `VerificationTest`: hash keys `[0]`, `[0, 1]`, … of 0 to
    /// 255 bytes with seed `256 - len`, hash the 256 results together with
    /// seed 0; the first four bytes, little-endian, are 0x6384BA69.
    #[test]
    fn smhasher_verification_value() {
        let key: Vec<u8> = (0..=255u8).collect();
        let mut hashes = Vec::with_capacity(256 * 16);
        for len in 0..256 {
            hashes.extend(murmur3_x64_128(&key[..len], 256 - len as u32));
        }
        let last = murmur3_x64_128(&hashes, 0);
        assert_eq!(
            u32::from_le_bytes(last[..4].try_into().unwrap()),
            0x6384_ba69
        );
        assert_eq!(murmur3_x64_128(b"", 0), [0; 16]);
    }

    #[test]
    fn the_fold_sign_extends_the_bytes() {
        assert_eq!(fold([0x12, 0x34, 0x56, 0x78]), 0x12);
        assert_eq!(fold([0x12, 0x34, 0x56, 0x80]), 0xff00_0012);
        assert_eq!(fold([0x12, 0x34, 0x80, 0x00]), 0xffff_0012);
        assert_eq!(fold([0x12, 0x80, 0x00, 0x00]), 0xffff_ff12);
        assert_eq!(fold([0x92, 0x00, 0x00, 0x00]), 0xffff_ff92);
        let distinct: std::collections::HashSet<u32> = (0..20_000)
            .map(|i| emcache_fold(format!("k{i}").as_bytes()))
            .collect();
        assert!(distinct.len() <= 640, "{} distinct folds", distinct.len());
    }
}
