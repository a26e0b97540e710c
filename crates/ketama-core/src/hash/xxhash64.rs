//! XXH64 (Yann Collet's xxHash, 64-bit), Envoy's `HashUtil::xxHash64`: its
//! header, cookie and query-parameter hash policies hash request values
//! with seed 0, its ring_hash load balancer hashes hosts onto the ring with
//! it, and maglev takes a host's table offset (seed 0) and skip (seed 1)
//! from it. Written from the published algorithm; checked against Envoy's
//! own expected values.

const P1: u64 = 0x9e37_79b1_85eb_ca87;
const P2: u64 = 0xc2b2_ae3d_27d4_eb4f;
const P3: u64 = 0x1656_67b1_9e37_79f9;
const P4: u64 = 0x85eb_ca77_c2b2_ae63;
const P5: u64 = 0x27d4_eb2f_1656_67c5;

#[inline]
fn round(acc: u64, input: u64) -> u64 {
    acc.wrapping_add(input.wrapping_mul(P2))
        .rotate_left(31)
        .wrapping_mul(P1)
}

#[inline]
fn merge(acc: u64, value: u64) -> u64 {
    (acc ^ round(0, value)).wrapping_mul(P1).wrapping_add(P4)
}

#[inline]
fn word(bytes: &[u8]) -> u64 {
    u64::from_le_bytes(bytes[..8].try_into().expect("8 bytes"))
}

/// XXH64 of `input` with `seed`.
#[inline]
pub fn xxhash64(input: &[u8], seed: u64) -> u64 {
    let mut rest = input;
    let mut h = if input.len() >= 32 {
        let mut v = [
            seed.wrapping_add(P1).wrapping_add(P2),
            seed.wrapping_add(P2),
            seed,
            seed.wrapping_sub(P1),
        ];
        let mut stripes = input.chunks_exact(32);
        for stripe in &mut stripes {
            for (lane, acc) in v.iter_mut().enumerate() {
                *acc = round(*acc, word(&stripe[lane * 8..]));
            }
        }
        rest = stripes.remainder();
        let h = v[0]
            .rotate_left(1)
            .wrapping_add(v[1].rotate_left(7))
            .wrapping_add(v[2].rotate_left(12))
            .wrapping_add(v[3].rotate_left(18));
        v.iter().fold(h, |h, &acc| merge(h, acc))
    } else {
        seed.wrapping_add(P5)
    };
    h = h.wrapping_add(input.len() as u64);
    let mut words = rest.chunks_exact(8);
    for w in &mut words {
        h = (h ^ round(0, word(w)))
            .rotate_left(27)
            .wrapping_mul(P1)
            .wrapping_add(P4);
    }
    let mut rest = words.remainder();
    if rest.len() >= 4 {
        let half = u32::from_le_bytes(rest[..4].try_into().expect("4 bytes"));
        h = (h ^ u64::from(half).wrapping_mul(P1))
            .rotate_left(23)
            .wrapping_mul(P2)
            .wrapping_add(P3);
        rest = &rest[4..];
    }
    for &byte in rest {
        h = (h ^ u64::from(byte).wrapping_mul(P5))
            .rotate_left(11)
            .wrapping_mul(P1);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(P2);
    h ^= h >> 29;
    h = h.wrapping_mul(P3);
    h ^ (h >> 32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envoy_published_values() {
        // Envoy test/common/common/hash_test.cc, TEST(Hash, xxHash) and
        // TEST(Hash, xxHashWithVector) (a span of pieces chains the seed:
        // each piece is hashed with the previous piece's hash as its seed).
        let cases: [(&[u8], u64); 5] = [
            (b"foo", 3_728_699_739_546_630_719),
            (b"bar", 5_234_164_152_756_840_025),
            (b"foo\nbar", 8_917_841_378_505_826_757),
            (b"lyft", 4_400_747_396_090_729_504),
            (b"", 17_241_709_254_077_376_921),
        ];
        for (input, expected) in cases {
            assert_eq!(xxhash64(input, 0), expected, "{input:?}");
        }
        let chained = xxhash64(b"bar", xxhash64(b"foo", 0));
        assert_eq!(chained, 17_745_830_980_996_999_794);
    }

    #[test]
    fn every_length_path_runs() {
        // Stripes, words, the half word and single bytes: lengths 0..100
        // differ from each other (no path drops input).
        let data: Vec<u8> = (0..100u8).collect();
        let hashes: std::collections::HashSet<u64> =
            (0..=100).map(|n| xxhash64(&data[..n], 0)).collect();
        assert_eq!(hashes.len(), 101);
        assert_ne!(xxhash64(b"abc", 0), xxhash64(b"abc", 1));
    }
}
