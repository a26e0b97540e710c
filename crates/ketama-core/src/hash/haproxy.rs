//! HAProxy's key hashes (`src/hash.c`, `include/haproxy/intops.h`): `sdbm`
//! (its default), `djb2`, `wt6`, and the `avalanche` modifier, which passes
//! the hash through Bob Jenkins' 32-bit integer hash ([`full_hash`]). Bytes
//! are read unsigned. HAProxy's `crc32` is the full CRC-32
//! ([`super::crc::crc32`]).

/// sdbm: `hash = c + (hash << 6) + (hash << 16) - hash` from 0.
#[inline(never)]
pub fn sdbm(key: &[u8]) -> u32 {
    key.iter().fold(0u32, |hash, &c| {
        u32::from(c)
            .wrapping_add(hash << 6)
            .wrapping_add(hash << 16)
            .wrapping_sub(hash)
    })
}

/// djb2: `hash = hash * 33 + c` from 5381.
#[inline(never)]
pub fn djb2(key: &[u8]) -> u32 {
    key.iter().fold(5381u32, |hash, &c| {
        (hash << 5).wrapping_add(hash).wrapping_add(u32::from(c))
    })
}

/// Willy Tarreau's wt6: two 32-bit lanes rotated by steps that depend on
/// the data.
#[inline(never)]
pub fn wt6(key: &[u8]) -> u32 {
    let (mut h0, mut h1) = (0xa53c_965a_u32, 0x5ca6_953a_u32);
    let (mut step0, mut step1) = (6u32, 18u32);
    for &c in key {
        let t = u32::from(c);
        h0 = !(h0 ^ t);
        h1 = !(h1.wrapping_add(t));
        let t = h1.rotate_left(step0);
        h1 = h0.rotate_left(step1);
        h0 = t;
        let t = ((h0 >> 16) ^ h1) & 0xffff;
        step0 = t & 0x1f;
        step1 = t >> 11;
    }
    h0 ^ h1
}

/// `full_hash`: one of Bob Jenkins' full-avalanche 32-bit integer hashes,
/// times 3221225473. HAProxy places its ring points with it
/// (`full_hash(id * 4096 + n)`) and applies it to key hashes under the
/// `avalanche` modifier. A bijection on 32 bits.
#[inline]
pub fn full_hash(a: u32) -> u32 {
    let mut a = a.wrapping_add(0x7ed5_5d16).wrapping_add(a << 12);
    a = (a ^ 0xc761_c23c) ^ (a >> 19);
    a = a.wrapping_add(0x1656_67b1).wrapping_add(a << 5);
    a = a.wrapping_add(0xd3a2_646c) ^ (a << 9);
    a = a.wrapping_add(0xfd70_46c5).wrapping_add(a << 3);
    a = (a ^ 0xb55a_4f09) ^ (a >> 16);
    a.wrapping_mul(3_221_225_473)
}

/// The `avalanche` modifier applied to a key hash: [`full_hash`], out of
/// line (it sits in [`super::HashAlgorithm::hash`] four times).
#[inline(never)]
pub fn avalanche(hash: u32) -> u32 {
    full_hash(hash)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_forms() {
        // The textbook definitions (sdbm: hash * 65599 + c; djb2: hash * 33 + c).
        let sdbm_ref = |k: &[u8]| {
            k.iter().fold(0u32, |h, &c| {
                h.wrapping_mul(65599).wrapping_add(u32::from(c))
            })
        };
        for key in [&b""[..], b"a", b"key:1", b"\xff\x80 bytes"] {
            assert_eq!(sdbm(key), sdbm_ref(key));
        }
        assert_eq!(djb2(b""), 5381);
        assert_eq!(djb2(b"a"), 5381 * 33 + 97);
        assert_eq!(wt6(b""), 0xa53c_965a ^ 0x5ca6_953a);
    }

    #[test]
    fn full_hash_is_a_bijection_on_a_sample() {
        let mut seen = std::collections::HashSet::new();
        for a in (0..1u32 << 20).chain(u32::MAX - 1000..=u32::MAX) {
            assert!(seen.insert(full_hash(a)), "{a}");
        }
    }
}
