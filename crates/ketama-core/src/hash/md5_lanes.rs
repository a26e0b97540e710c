//! Multi-lane MD5: digests of several independent short messages at once.
//!
//! One MD5 stream is a serial dependency chain, but independent messages can
//! occupy the lanes of a SIMD register. The kernel below is written over
//! fixed-size lane arrays (`[u32; N]`) so the compiler vectorizes every step;
//! it is instantiated for 16 lanes with AVX-512F and 8 lanes with AVX2
//! (chosen at run time), and 4 lanes with SSE2 (the x86-64 baseline, also
//! the portable fallback elsewhere).
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

/// One MD5 step on every lane: `b + rotl(a + f + k + m, R)`.
#[inline(always)]
fn step<const N: usize, const R: u32>(
    a: [u32; N],
    f: [u32; N],
    k: u32,
    m: &[u32; N],
    b: [u32; N],
) -> [u32; N] {
    let mut out = [0u32; N];
    for l in 0..N {
        out[l] = b[l].wrapping_add(
            a[l].wrapping_add(f[l])
                .wrapping_add(k)
                .wrapping_add(m[l])
                .rotate_left(R),
        );
    }
    out
}

macro_rules! lane_function {
    ($name:ident, |$x:ident, $y:ident, $z:ident| $body:expr) => {
        #[inline(always)]
        fn $name<const N: usize>(x: [u32; N], y: [u32; N], z: [u32; N]) -> [u32; N] {
            let mut out = [0u32; N];
            for l in 0..N {
                let ($x, $y, $z) = (x[l], y[l], z[l]);
                out[l] = $body;
            }
            out
        }
    };
}

lane_function!(round_f, |x, y, z| (x & y) | (!x & z));
lane_function!(round_g, |x, y, z| (z & x) | (!z & y));
lane_function!(round_h, |x, y, z| x ^ y ^ z);
lane_function!(round_i, |x, y, z| y ^ (x | !z));

/// One MD5 compression of a single padded block in each of `N` lanes.
/// `words[w][lane]` is word `w` of lane `lane`'s block.
#[inline(always)]
fn compress_lanes<const N: usize>(words: &[[u32; N]; 16]) -> [[u32; N]; 4] {
    let mut a = [INIT[0]; N];
    let mut b = [INIT[1]; N];
    let mut c = [INIT[2]; N];
    let mut d = [INIT[3]; N];
    // The 64 steps, written out so every rotation and message index is a constant.
    a = step::<N, { S[0] }>(a, round_f(b, c, d), K[0], &words[0], b);
    d = step::<N, { S[1] }>(d, round_f(a, b, c), K[1], &words[1], a);
    c = step::<N, { S[2] }>(c, round_f(d, a, b), K[2], &words[2], d);
    b = step::<N, { S[3] }>(b, round_f(c, d, a), K[3], &words[3], c);
    a = step::<N, { S[4] }>(a, round_f(b, c, d), K[4], &words[4], b);
    d = step::<N, { S[5] }>(d, round_f(a, b, c), K[5], &words[5], a);
    c = step::<N, { S[6] }>(c, round_f(d, a, b), K[6], &words[6], d);
    b = step::<N, { S[7] }>(b, round_f(c, d, a), K[7], &words[7], c);
    a = step::<N, { S[8] }>(a, round_f(b, c, d), K[8], &words[8], b);
    d = step::<N, { S[9] }>(d, round_f(a, b, c), K[9], &words[9], a);
    c = step::<N, { S[10] }>(c, round_f(d, a, b), K[10], &words[10], d);
    b = step::<N, { S[11] }>(b, round_f(c, d, a), K[11], &words[11], c);
    a = step::<N, { S[12] }>(a, round_f(b, c, d), K[12], &words[12], b);
    d = step::<N, { S[13] }>(d, round_f(a, b, c), K[13], &words[13], a);
    c = step::<N, { S[14] }>(c, round_f(d, a, b), K[14], &words[14], d);
    b = step::<N, { S[15] }>(b, round_f(c, d, a), K[15], &words[15], c);
    a = step::<N, { S[16] }>(a, round_g(b, c, d), K[16], &words[1], b);
    d = step::<N, { S[17] }>(d, round_g(a, b, c), K[17], &words[6], a);
    c = step::<N, { S[18] }>(c, round_g(d, a, b), K[18], &words[11], d);
    b = step::<N, { S[19] }>(b, round_g(c, d, a), K[19], &words[0], c);
    a = step::<N, { S[20] }>(a, round_g(b, c, d), K[20], &words[5], b);
    d = step::<N, { S[21] }>(d, round_g(a, b, c), K[21], &words[10], a);
    c = step::<N, { S[22] }>(c, round_g(d, a, b), K[22], &words[15], d);
    b = step::<N, { S[23] }>(b, round_g(c, d, a), K[23], &words[4], c);
    a = step::<N, { S[24] }>(a, round_g(b, c, d), K[24], &words[9], b);
    d = step::<N, { S[25] }>(d, round_g(a, b, c), K[25], &words[14], a);
    c = step::<N, { S[26] }>(c, round_g(d, a, b), K[26], &words[3], d);
    b = step::<N, { S[27] }>(b, round_g(c, d, a), K[27], &words[8], c);
    a = step::<N, { S[28] }>(a, round_g(b, c, d), K[28], &words[13], b);
    d = step::<N, { S[29] }>(d, round_g(a, b, c), K[29], &words[2], a);
    c = step::<N, { S[30] }>(c, round_g(d, a, b), K[30], &words[7], d);
    b = step::<N, { S[31] }>(b, round_g(c, d, a), K[31], &words[12], c);
    a = step::<N, { S[32] }>(a, round_h(b, c, d), K[32], &words[5], b);
    d = step::<N, { S[33] }>(d, round_h(a, b, c), K[33], &words[8], a);
    c = step::<N, { S[34] }>(c, round_h(d, a, b), K[34], &words[11], d);
    b = step::<N, { S[35] }>(b, round_h(c, d, a), K[35], &words[14], c);
    a = step::<N, { S[36] }>(a, round_h(b, c, d), K[36], &words[1], b);
    d = step::<N, { S[37] }>(d, round_h(a, b, c), K[37], &words[4], a);
    c = step::<N, { S[38] }>(c, round_h(d, a, b), K[38], &words[7], d);
    b = step::<N, { S[39] }>(b, round_h(c, d, a), K[39], &words[10], c);
    a = step::<N, { S[40] }>(a, round_h(b, c, d), K[40], &words[13], b);
    d = step::<N, { S[41] }>(d, round_h(a, b, c), K[41], &words[0], a);
    c = step::<N, { S[42] }>(c, round_h(d, a, b), K[42], &words[3], d);
    b = step::<N, { S[43] }>(b, round_h(c, d, a), K[43], &words[6], c);
    a = step::<N, { S[44] }>(a, round_h(b, c, d), K[44], &words[9], b);
    d = step::<N, { S[45] }>(d, round_h(a, b, c), K[45], &words[12], a);
    c = step::<N, { S[46] }>(c, round_h(d, a, b), K[46], &words[15], d);
    b = step::<N, { S[47] }>(b, round_h(c, d, a), K[47], &words[2], c);
    a = step::<N, { S[48] }>(a, round_i(b, c, d), K[48], &words[0], b);
    d = step::<N, { S[49] }>(d, round_i(a, b, c), K[49], &words[7], a);
    c = step::<N, { S[50] }>(c, round_i(d, a, b), K[50], &words[14], d);
    b = step::<N, { S[51] }>(b, round_i(c, d, a), K[51], &words[5], c);
    a = step::<N, { S[52] }>(a, round_i(b, c, d), K[52], &words[12], b);
    d = step::<N, { S[53] }>(d, round_i(a, b, c), K[53], &words[3], a);
    c = step::<N, { S[54] }>(c, round_i(d, a, b), K[54], &words[10], d);
    b = step::<N, { S[55] }>(b, round_i(c, d, a), K[55], &words[1], c);
    a = step::<N, { S[56] }>(a, round_i(b, c, d), K[56], &words[8], b);
    d = step::<N, { S[57] }>(d, round_i(a, b, c), K[57], &words[15], a);
    c = step::<N, { S[58] }>(c, round_i(d, a, b), K[58], &words[6], d);
    b = step::<N, { S[59] }>(b, round_i(c, d, a), K[59], &words[13], c);
    a = step::<N, { S[60] }>(a, round_i(b, c, d), K[60], &words[4], b);
    d = step::<N, { S[61] }>(d, round_i(a, b, c), K[61], &words[11], a);
    c = step::<N, { S[62] }>(c, round_i(d, a, b), K[62], &words[2], d);
    b = step::<N, { S[63] }>(b, round_i(c, d, a), K[63], &words[9], c);
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

/// The words of already padded blocks, one block per lane.
fn transpose_blocks<const N: usize>(blocks: &[Block]) -> [[u32; N]; 16] {
    let mut words = [[0u32; N]; 16];
    for (lane, block) in blocks.iter().enumerate() {
        for (w, chunk) in block.chunks_exact(4).enumerate() {
            words[w][lane] = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
        }
    }
    words
}

/// Each lane's state as four words, `out[lane][j]` = word `j` of the digest.
fn store_words<const N: usize>(state: &[[u32; N]; 4], out: &mut [[u32; 4]]) {
    for (lane, words) in out.iter_mut().enumerate() {
        for (j, word) in words.iter_mut().enumerate() {
            *word = state[j][lane];
        }
    }
}

fn store_lanes<const N: usize>(state: &[[u32; N]; 4], out: &mut [[u8; 16]]) {
    for (lane, digest) in out.iter_mut().enumerate() {
        for (word, bytes) in digest.chunks_exact_mut(4).enumerate() {
            bytes.copy_from_slice(&state[word][lane].to_le_bytes());
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn compress16_avx512(words: &[[u32; 16]; 16]) -> [[u32; 16]; 4] {
    compress_lanes::<16>(words)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn compress8_avx2(words: &[[u32; 8]; 16]) -> [[u32; 8]; 4] {
    compress_lanes::<8>(words)
}

/// The kernels, widest first; each is used only when the CPU supports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    /// 16 lanes, AVX-512F (native 32-bit rotate).
    Avx512,
    /// 8 lanes, AVX2.
    Avx2,
    /// 4 lanes, SSE2 (x86-64 baseline; plain vector code elsewhere).
    Sse2,
}

impl Kernel {
    fn detect() -> Kernel {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                return Kernel::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Kernel::Avx2;
            }
        }
        Kernel::Sse2
    }

    fn lanes(self) -> usize {
        match self {
            Kernel::Avx512 => 16,
            Kernel::Avx2 => 8,
            Kernel::Sse2 => 4,
        }
    }

    /// Digests up to `self.lanes()` short messages.
    fn digest(self, messages: &[&[u8]], out: &mut [[u8; 16]]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            Kernel::Avx512 => {
                // SAFETY: `detect` chose this kernel because the CPU has AVX-512F.
                let digests = unsafe { compress16_avx512(&load_lanes(messages)) };
                store_lanes(&digests, out)
            }
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `detect` chose this kernel because the CPU has AVX2.
            Kernel::Avx2 => store_lanes(&unsafe { compress8_avx2(&load_lanes(messages)) }, out),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 | Kernel::Avx2 => unreachable!("only detected on x86-64"),
            Kernel::Sse2 => store_lanes(&compress_lanes::<4>(&load_lanes(messages)), out),
        }
    }
}

impl Kernel {
    /// [`md5_blocks`] for at most [`Kernel::lanes`] blocks.
    fn digest_blocks(self, blocks: &[Block], out: &mut [[u32; 4]]) {
        match self {
            #[cfg(target_arch = "x86_64")]
            // SAFETY: only detected when the CPU has AVX-512F.
            Kernel::Avx512 => store_words(
                &unsafe { compress16_avx512(&transpose_blocks(blocks)) },
                out,
            ),
            #[cfg(target_arch = "x86_64")]
            // SAFETY: only detected when the CPU has AVX2.
            Kernel::Avx2 => store_words(&unsafe { compress8_avx2(&transpose_blocks(blocks)) }, out),
            #[cfg(not(target_arch = "x86_64"))]
            Kernel::Avx512 | Kernel::Avx2 => unreachable!("only detected on x86-64"),
            Kernel::Sse2 => store_words(&compress_lanes::<4>(&transpose_blocks(blocks)), out),
        }
    }
}

/// One MD5 block holding a whole message of at most [`MAX_LANE_MESSAGE`]
/// bytes, padded (see [`pad_block`]).
pub type Block = [u8; 64];

/// Pads the first `len` bytes of `block` as MD5 pads a message: `0x80`,
/// zeros up to byte 56, then the length in bits (little-endian).
///
/// # Panics
/// If `len` is over [`MAX_LANE_MESSAGE`].
#[inline]
pub fn pad_block(block: &mut Block, len: usize) {
    assert!(
        len <= MAX_LANE_MESSAGE,
        "an MD5 block holds at most 55 bytes"
    );
    block[len] = 0x80;
    block[len + 1..56].fill(0);
    block[56..].copy_from_slice(&((len as u64) * 8).to_le_bytes());
}

/// The digest of each padded block as four words (`out[i][j]` equals
/// [`md5_word`](super::md5_word)`(&MD5(message i), j)`), several blocks at
/// a time in the SIMD lanes. For callers that build their messages in
/// place (point labels), which saves copying and converting them.
///
/// # Panics
/// If `out` is shorter than `blocks`.
pub fn md5_blocks(blocks: &[Block], out: &mut [[u32; 4]]) {
    assert!(
        out.len() >= blocks.len(),
        "md5_blocks: output shorter than input"
    );
    let kernel = kernel();
    for (group, out) in blocks
        .chunks(kernel.lanes())
        .zip(out.chunks_mut(kernel.lanes()))
    {
        kernel.digest_blocks(group, out);
    }
}

fn kernel() -> Kernel {
    use std::sync::OnceLock;
    static KERNEL: OnceLock<Kernel> = OnceLock::new();
    *KERNEL.get_or_init(Kernel::detect)
}

/// Lanes in use on this CPU: 16 with AVX-512F, 8 with AVX2, else 4.
pub fn lanes() -> usize {
    kernel().lanes()
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
    md5_many_with(kernel(), messages, out);
}

fn md5_many_with(kernel: Kernel, messages: &[&[u8]], out: &mut [[u8; 16]]) {
    const GROUP: usize = 16;
    let mut group: [&[u8]; GROUP] = [&[]; GROUP];
    let mut slots = [0usize; GROUP];
    let mut filled = 0;
    let flush = |group: &[&[u8]], slots: &[usize], out: &mut [[u8; 16]]| {
        let mut digests = [[0u8; 16]; GROUP];
        for (start, part) in group.chunks(kernel.lanes()).enumerate() {
            let at = start * kernel.lanes();
            kernel.digest(part, &mut digests[at..at + part.len()]);
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
        if filled == GROUP {
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
        // Under Miri (minutes per thousand digests) up to three blocks.
        let (longest, copies) = if cfg!(miri) { (130, 1) } else { (300, 3) };
        let mut state = 5u64;
        let messages: Vec<Vec<u8>> = (0..=longest)
            .flat_map(|len| (0..copies).map(move |copy| (len, copy)))
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
    fn padded_blocks_give_the_words_of_md5() {
        let owned: Vec<Vec<u8>> = (0..=MAX_LANE_MESSAGE)
            .map(|len| (0..len).map(|i| (i * 13 + len) as u8).collect())
            .collect();
        let blocks: Vec<Block> = owned
            .iter()
            .map(|message| {
                let mut block = [0xAAu8; 64]; // padding must overwrite garbage
                block[..message.len()].copy_from_slice(message);
                pad_block(&mut block, message.len());
                block
            })
            .collect();
        let takes: &[usize] = if cfg!(miri) {
            &[17]
        } else {
            &[1, 3, 16, 17, blocks.len()]
        };
        for &take in takes {
            let mut out = vec![[0u32; 4]; take];
            md5_blocks(&blocks[..take], &mut out);
            for (message, words) in owned.iter().zip(&out) {
                let digest = md5_digest(message);
                let expected: Vec<u32> =
                    (0..4).map(|j| super::super::md5_word(&digest, j)).collect();
                assert_eq!(words.to_vec(), expected, "length {}", message.len());
            }
        }
    }

    #[test]
    fn every_kernel_this_cpu_has_matches_md5() {
        let owned: Vec<Vec<u8>> = (0..=60)
            .map(|len| (0..len).map(|i| (i * 7 + len) as u8).collect())
            .collect();
        let messages: Vec<&[u8]> = owned.iter().map(Vec::as_slice).collect();
        let mut kernels = vec![Kernel::Sse2];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                kernels.push(Kernel::Avx2);
            }
            if std::is_x86_feature_detected!("avx512f") {
                kernels.push(Kernel::Avx512);
            }
        }
        for kernel in kernels {
            let mut out = vec![[0u8; 16]; messages.len()];
            md5_many_with(kernel, &messages, &mut out);
            for (m, d) in messages.iter().zip(&out) {
                assert_eq!(*d, md5_digest(m), "{kernel:?}, length {}", m.len());
            }
        }
    }
}
