//! SpookyHash V2 (Bob Jenkins, public domain), as folly's
//! `SpookyHashV2` computes it on little-endian machines: mcrouter's
//! WeightedCh3 draws each attempt's probability from `Hash32(key,
//! 0xface2014)`. Messages under 192 bytes take the short form, longer ones
//! the 12-word block form. Written from the published algorithm; checked
//! against folly's published `Hash32` values.

const CONST: u64 = 0xdead_beef_dead_beef;
const BLOCK: usize = 96;
const SHORT_LIMIT: usize = 2 * BLOCK;

#[inline]
fn read8(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

#[inline]
fn read4(bytes: &[u8], at: usize) -> u64 {
    u64::from(u32::from_le_bytes(
        bytes[at..at + 4].try_into().expect("4 bytes"),
    ))
}

fn short_mix(h: &mut [u64; 4]) {
    const ROT: [(usize, usize, usize, u32); 12] = [
        (2, 3, 0, 50),
        (3, 0, 1, 52),
        (0, 1, 2, 30),
        (1, 2, 3, 41),
        (2, 3, 0, 54),
        (3, 0, 1, 48),
        (0, 1, 2, 38),
        (1, 2, 3, 37),
        (2, 3, 0, 62),
        (3, 0, 1, 34),
        (0, 1, 2, 5),
        (1, 2, 3, 36),
    ];
    // Each step: h[a] = rot(h[a]); h[a] += h[b]; h[c] ^= h[a].
    for (a, b, c, r) in ROT {
        h[a] = h[a].rotate_left(r).wrapping_add(h[b]);
        h[c] ^= h[a];
    }
}

fn short_end(h: &mut [u64; 4]) {
    const ROT: [(usize, usize, u32); 11] = [
        (3, 2, 15),
        (0, 3, 52),
        (1, 0, 26),
        (2, 1, 51),
        (3, 2, 28),
        (0, 3, 9),
        (1, 0, 47),
        (2, 1, 54),
        (3, 2, 32),
        (0, 3, 25),
        (1, 0, 63),
    ];
    // Each step: h[a] ^= h[b]; h[b] = rot(h[b]); h[a] += h[b].
    for (a, b, r) in ROT {
        h[a] ^= h[b];
        h[b] = h[b].rotate_left(r);
        h[a] = h[a].wrapping_add(h[b]);
    }
}

/// The short form, for messages under 192 bytes.
fn short(message: &[u8], seed1: u64, seed2: u64) -> (u64, u64) {
    let length = message.len();
    let mut h = [seed1, seed2, CONST, CONST];
    let mut rest = message;
    if length > 15 {
        let mut chunks = message.chunks_exact(32);
        for chunk in &mut chunks {
            h[2] = h[2].wrapping_add(read8(chunk, 0));
            h[3] = h[3].wrapping_add(read8(chunk, 8));
            short_mix(&mut h);
            h[0] = h[0].wrapping_add(read8(chunk, 16));
            h[1] = h[1].wrapping_add(read8(chunk, 24));
        }
        rest = chunks.remainder();
        if rest.len() >= 16 {
            h[2] = h[2].wrapping_add(read8(rest, 0));
            h[3] = h[3].wrapping_add(read8(rest, 8));
            short_mix(&mut h);
            rest = &rest[16..];
        }
    }
    h[3] = h[3].wrapping_add((length as u64) << 56);
    let byte = |i: usize, shift: u32| u64::from(rest[i]) << shift;
    let (c, d) = match rest.len() {
        0 => (CONST, CONST),
        n @ 12..=15 => {
            let high = (12..n).fold(0, |acc, i| acc + byte(i, 8 * (i as u32 - 8)));
            (read8(rest, 0), read4(rest, 8) + high)
        }
        n @ 8..=11 => {
            let high = (8..n).fold(0, |acc, i| acc + byte(i, 8 * (i as u32 - 8)));
            (read8(rest, 0), high)
        }
        n @ 4..=7 => {
            let high = (4..n).fold(0, |acc, i| acc + byte(i, 8 * i as u32));
            (read4(rest, 0) + high, 0)
        }
        n => ((0..n).fold(0, |acc, i| acc + byte(i, 8 * i as u32)), 0),
    };
    h[2] = h[2].wrapping_add(c);
    h[3] = h[3].wrapping_add(d);
    short_end(&mut h);
    (h[0], h[1])
}

const MIX_ROT: [u32; 12] = [11, 32, 43, 31, 17, 28, 39, 57, 55, 54, 22, 46];
const END_ROT: [u32; 12] = [44, 15, 34, 21, 38, 33, 10, 13, 38, 53, 42, 54];

fn mix(data: &[u64; 12], s: &mut [u64; 12]) {
    for i in 0..12 {
        s[i] = s[i].wrapping_add(data[i]);
        s[(i + 2) % 12] ^= s[(i + 10) % 12];
        s[(i + 11) % 12] ^= s[i];
        s[i] = s[i].rotate_left(MIX_ROT[i]);
        s[(i + 11) % 12] = s[(i + 11) % 12].wrapping_add(s[(i + 1) % 12]);
    }
}

fn end_partial(h: &mut [u64; 12]) {
    for i in 0..12 {
        h[(i + 11) % 12] = h[(i + 11) % 12].wrapping_add(h[(i + 1) % 12]);
        h[(i + 2) % 12] ^= h[(i + 11) % 12];
        h[(i + 1) % 12] = h[(i + 1) % 12].rotate_left(END_ROT[i]);
    }
}

fn words(block: &[u8]) -> [u64; 12] {
    std::array::from_fn(|i| read8(block, 8 * i))
}

/// SpookyHash V2's 128-bit hash of `message` with seeds `seed1`, `seed2`.
pub fn hash128(message: &[u8], seed1: u64, seed2: u64) -> (u64, u64) {
    if message.len() < SHORT_LIMIT {
        return short(message, seed1, seed2);
    }
    let mut h = [
        seed1, seed2, CONST, seed1, seed2, CONST, seed1, seed2, CONST, seed1, seed2, CONST,
    ];
    let mut blocks = message.chunks_exact(BLOCK);
    for block in &mut blocks {
        mix(&words(block), &mut h);
    }
    let rest = blocks.remainder();
    let mut last = [0u8; BLOCK];
    last[..rest.len()].copy_from_slice(rest);
    last[BLOCK - 1] = rest.len() as u8;
    for (h, w) in h.iter_mut().zip(words(&last)) {
        *h = h.wrapping_add(w);
    }
    for _ in 0..3 {
        end_partial(&mut h);
    }
    (h[0], h[1])
}

/// SpookyHash V2's `Hash32`: the low 32 bits of the first half of
/// [`hash128`] with both seeds `seed`.
pub fn hash32(message: &[u8], seed: u32) -> u32 {
    hash128(message, u64::from(seed), u64::from(seed)).0 as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folly_published_values_at_every_form() {
        // folly/hash/test/SpookyHashV2Test.cpp, TestResults(): Hash32 of
        // bytes 128, 129, ... of length i with seed 0. The whole table (512
        // lengths) is checked by the integration tests; these cover the
        // short form's tails (0..15 bytes), its 32-byte rounds and the
        // block form.
        let expected: [(usize, u32); 13] = [
            (0, 0x6bf5_0919),
            (1, 0x70de_1d26),
            (4, 0x8223_b279),
            (8, 0xee19_3982),
            (12, 0x5f23_d1da),
            (15, 0x83ec_01f9),
            (16, 0xf274_736c),
            (47, 0x7572_8d0a),
            (191, 0xe13d_9e19),
            (192, 0x77e0_12bd),
            (286, 0x0868_ec83),
            (300, 0x37e2_b1da),
            (511, 0xcc1c_8250),
        ];
        let buf: Vec<u8> = (0..512).map(|i| (i + 128) as u8).collect();
        for (len, hash) in expected {
            assert_eq!(hash32(&buf[..len], 0), hash, "length {len}");
        }
    }
}
