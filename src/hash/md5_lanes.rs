//! Multi-lane MD5: digests of several independent short messages at once.
//!
//! One MD5 stream is a serial dependency chain, but independent messages can
//! occupy the lanes of a SIMD register. The kernel below is written over
//! fixed-size lane arrays (`[u32; N]`) so the compiler vectorizes every step;
//! it is instantiated for 8 lanes with AVX2 (chosen at run time) and 4 lanes
//! with SSE2 (the x86-64 baseline, also the portable fallback elsewhere).
//! Messages of up to 55 bytes (one MD5 block, which covers memcached keys
//! and "address-k" point labels) take the lanes; longer ones are hashed by
//! `md-5` one at a time. Bit-exact with `md-5` (see the tests).

use super::md5::md5_digest;

/// Longest message that fits one padded MD5 block.
pub const MAX_LANE_MESSAGE: usize = 55;

const INIT: [u32; 4] = [0x6745_2301, 0xefcd_ab89, 0x98ba_dcfe, 0x1032_5476];

/// Per-step sine constants (RFC 1321).
const K: [u32; 64] = [
    0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501,
    0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821,
    0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8,
    0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a,
    0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70,
    0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665,
    0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
    0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb, 0xeb86d391,
];

/// Per-step left-rotation amounts.
const S: [u32; 64] = [
    7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9,
    14, 20, 5, 9, 14, 20, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 6, 10, 15,
    21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
];

/// Message word used by each step.
const fn message_index(step: usize) -> usize {
    match step / 16 {
        0 => step,
        1 => (5 * step + 1) % 16,
        2 => (3 * step + 5) % 16,
        _ => (7 * step) % 16,
    }
}

/// One MD5 compression of a single padded block in each of `N` lanes.
/// `words[w][lane]` is word `w` of lane `lane`'s block.
#[inline(always)]
fn compress_lanes<const N: usize>(words: &[[u32; N]; 16]) -> [[u32; N]; 4] {
    let mut a = [INIT[0]; N];
    let mut b = [INIT[1]; N];
    let mut c = [INIT[2]; N];
    let mut d = [INIT[3]; N];
    for step in 0..64 {
        let m = &words[message_index(step)];
        let mut next_b = [0u32; N];
        for l in 0..N {
            let f = match step / 16 {
                0 => (b[l] & c[l]) | (!b[l] & d[l]),
                1 => (d[l] & b[l]) | (!d[l] & c[l]),
                2 => b[l] ^ c[l] ^ d[l],
                _ => c[l] ^ (b[l] | !d[l]),
            };
            let sum = a[l]
                .wrapping_add(f)
                .wrapping_add(K[step])
                .wrapping_add(m[l]);
            next_b[l] = b[l].wrapping_add(sum.rotate_left(S[step]));
        }
        a = d;
        d = c;
        c = b;
        b = next_b;
    }
    let mut state = [[0u32; N]; 4];
    for l in 0..N {
        state[0][l] = INIT[0].wrapping_add(a[l]);
        state[1][l] = INIT[1].wrapping_add(b[l]);
        state[2][l] = INIT[2].wrapping_add(c[l]);
        state[3][l] = INIT[3].wrapping_add(d[l]);
    }
    state
}

/// Pads up to `N` short messages into transposed block words.
fn load_lanes<const N: usize>(messages: &[&[u8]]) -> [[u32; N]; 16] {
    let mut words = [[0u32; N]; 16];
    for (lane, message) in messages.iter().enumerate() {
        let mut block = [0u8; 64];
        block[..message.len()].copy_from_slice(message);
        block[message.len()] = 0x80;
        block[56..].copy_from_slice(&((message.len() as u64) * 8).to_le_bytes());
        for (w, chunk) in block.chunks_exact(4).enumerate() {
            words[w][lane] = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
    }
    words
}

fn store_lanes<const N: usize>(state: &[[u32; N]; 4], out: &mut [[u8; 16]]) {
    for (lane, digest) in out.iter_mut().enumerate() {
        for (word, bytes) in digest.chunks_exact_mut(4).enumerate() {
            bytes.copy_from_slice(&state[word][lane].to_le_bytes());
        }
    }
}

fn digest_group<const N: usize>(
    messages: &[&[u8]],
    out: &mut [[u8; 16]],
    compress: fn(&[[u32; N]; 16]) -> [[u32; N]; 4],
) {
    let state = compress(&load_lanes::<N>(messages));
    store_lanes(&state, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn compress8_avx2(words: &[[u32; 8]; 16]) -> [[u32; 8]; 4] {
    compress_lanes::<8>(words)
}

fn compress8(words: &[[u32; 8]; 16]) -> [[u32; 8]; 4] {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: only selected when the CPU reports AVX2 (see `lanes`).
    return unsafe { compress8_avx2(words) };
    #[cfg(not(target_arch = "x86_64"))]
    compress_lanes::<8>(words)
}

fn compress4(words: &[[u32; 4]; 16]) -> [[u32; 4]; 4] {
    compress_lanes::<4>(words)
}

/// Lanes in use on this CPU: 8 with AVX2, else 4.
pub fn lanes() -> usize {
    use std::sync::OnceLock;
    static LANES: OnceLock<usize> = OnceLock::new();
    *LANES.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        if std::is_x86_feature_detected!("avx2") {
            return 8;
        }
        4
    })
}

/// Computes `out[i] = MD5(messages[i])` for every message, using the SIMD
/// lanes for messages of up to 55 bytes.
///
/// # Panics
/// If `out` is shorter than `messages`.
pub fn md5_many(messages: &[&[u8]], out: &mut [[u8; 16]]) {
    assert!(
        out.len() >= messages.len(),
        "md5_many: output shorter than input"
    );
    let width = lanes();
    let mut group: [&[u8]; 8] = [&[]; 8];
    let mut slots = [0usize; 8];
    let mut filled = 0;
    let flush = |group: &[&[u8]], slots: &[usize], out: &mut [[u8; 16]]| {
        let mut digests = [[0u8; 16]; 8];
        if width == 8 {
            digest_group::<8>(group, &mut digests[..group.len()], compress8);
        } else {
            for (start, part) in group.chunks(4).enumerate() {
                digest_group::<4>(
                    part,
                    &mut digests[start * 4..start * 4 + part.len()],
                    compress4,
                );
            }
        }
        for (digest, &slot) in digests.iter().zip(slots) {
            out[slot] = *digest;
        }
    };
    for (i, message) in messages.iter().enumerate() {
        if message.len() > MAX_LANE_MESSAGE {
            out[i] = md5_digest(message);
            continue;
        }
        group[filled] = message;
        slots[filled] = i;
        filled += 1;
        if filled == 8 {
            flush(&group, &slots, out);
            filled = 0;
        }
    }
    if filled > 0 {
        flush(&group[..filled], &slots[..filled], out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bit_exact_with_md5_for_every_length_0_to_300() {
        let mut state = 5u64;
        let messages: Vec<Vec<u8>> = (0..=300)
            .flat_map(|len| (0..3).map(move |copy| (len, copy)))
            .map(|(len, _)| {
                (0..len)
                    .map(|_| {
                        state = state.wrapping_mul(6364136223846793005).wrapping_add(1);
                        (state >> 56) as u8
                    })
                    .collect()
            })
            .collect();
        let slices: Vec<&[u8]> = messages.iter().map(Vec::as_slice).collect();
        // Every group size 1..=17 and offsets, so partial groups are covered.
        for take in [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, slices.len()] {
            for start in [0, 1, 55, 56, 300] {
                let part = &slices[start.min(slices.len())..(start + take).min(slices.len())];
                let mut out = vec![[0u8; 16]; part.len()];
                md5_many(part, &mut out);
                for (message, digest) in part.iter().zip(&out) {
                    assert_eq!(*digest, md5_digest(message), "length {}", message.len());
                }
            }
        }
    }

    #[test]
    fn four_lane_kernel_matches_too() {
        let messages: [&[u8]; 4] = [b"", b"test", b"10.0.0.1:11211-39", &[0xff; 55]];
        let mut out = [[0u8; 16]; 4];
        digest_group::<4>(&messages, &mut out, compress4);
        for (m, d) in messages.iter().zip(&out) {
            assert_eq!(*d, md5_digest(m));
        }
    }
}
