//! MurmurHash2 and MurmurHash3 (x86, 32-bit) as libmemcached and twemproxy
//! seed them: `seed = 0xdeadbeef * len`.

const M: u32 = 0x5bd1_e995;

fn seed(len: usize) -> u32 {
    0xdead_beef_u32.wrapping_mul(len as u32)
}

/// libmemcached's / twemproxy's `murmur`: MurmurHash2 with the length seed.
pub fn murmur(key: &[u8]) -> u32 {
    let mut h = seed(key.len()) ^ key.len() as u32;
    let mut blocks = key.chunks_exact(4);
    for block in &mut blocks {
        let mut k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        k = k.wrapping_mul(M);
        k ^= k >> 24;
        k = k.wrapping_mul(M);
        h = h.wrapping_mul(M) ^ k;
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        for (i, &b) in tail.iter().enumerate() {
            h ^= u32::from(b) << (8 * i);
        }
        h = h.wrapping_mul(M);
    }
    h ^= h >> 13;
    h = h.wrapping_mul(M);
    h ^ (h >> 15)
}

/// libmemcached's `murmur3`: MurmurHash3_x86_32 with the length seed.
pub fn murmur3(key: &[u8]) -> u32 {
    murmur3_seeded(key, seed(key.len()))
}

/// MurmurHash3_x86_32 with seed 0, as pymemcache's `murmur3_32` computes it
/// (the default hash of its rendezvous placement).
pub fn murmur3_seed0(key: &[u8]) -> u32 {
    murmur3_seeded(key, 0)
}

/// MurmurHash3_x86_32 of `key` with `seed`.
fn murmur3_seeded(key: &[u8], seed: u32) -> u32 {
    const C1: u32 = 0xcc9e_2d51;
    const C2: u32 = 0x1b87_3593;
    let mix = |k: u32| k.wrapping_mul(C1).rotate_left(15).wrapping_mul(C2);
    let mut h = seed;
    let mut blocks = key.chunks_exact(4);
    for block in &mut blocks {
        let k = u32::from_le_bytes([block[0], block[1], block[2], block[3]]);
        h = (h ^ mix(k))
            .rotate_left(13)
            .wrapping_mul(5)
            .wrapping_add(0xe654_6b64);
    }
    let tail = blocks.remainder();
    if !tail.is_empty() {
        let k = tail
            .iter()
            .enumerate()
            .fold(0u32, |k, (i, &b)| k | u32::from(b) << (8 * i));
        h ^= mix(k);
    }
    h ^= key.len() as u32;
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}
