//! mcrouter's `furc_hash` (`lib/fbi/hash.c`): a stateless consistent hash
//! that maps a key to `0..m` by walking a binary decision tree. Its random
//! bits come from MurmurHash64A of the key (seed 4193360111), then from
//! rehashing that word again and again; bit `i` is bit `i % 64` of word
//! `i / 64`.
//!
//! With `d` the bit length of `m - 1`: starting at bit `d`, while the bit
//! at the cursor is 0 the tree shrinks (`d -= 1`, cursor `= d`; at `d = 0`
//! the answer is 0); then the answer is a 1 followed by `d - 1` bits read
//! 23 bits apart, and an answer `>= m` starts another try from where the
//! cursor stands. After 32 tries the answer is 0. Growing `m` by one moves
//! only the keys whose new answer is the new value.

use super::murmur64::{FURC_SEED, murmur64a, murmur64a_word};

/// Tries before giving up with 0 (`MAX_TRIES`).
const MAX_TRIES: u32 = 32;

/// Bits between two reads (`FURC_SHIFT`); also limits pools to 2^23.
const SHIFT: u32 = 23;

/// The largest pool mcrouter's Ch3 accepts (`furc_maximum_pool_size`).
pub const MAX_POOL_SIZE: u32 = 1 << SHIFT;

/// Words kept on the stack; a key that needs more (a very large `m` that
/// keeps missing) continues in a vector.
const INLINE_WORDS: usize = 16;

/// The key's random bit stream: its words, computed as far as needed.
struct Bits {
    inline: [u64; INLINE_WORDS],
    spill: Vec<u64>,
    known: usize,
}

impl Bits {
    #[inline]
    fn new(key: &[u8]) -> Self {
        let mut inline = [0u64; INLINE_WORDS];
        inline[0] = murmur64a(key, FURC_SEED);
        Bits {
            inline,
            spill: Vec::new(),
            known: 1,
        }
    }

    #[inline]
    fn word(&self, ord: usize) -> u64 {
        if ord < INLINE_WORDS {
            self.inline[ord]
        } else {
            self.spill[ord - INLINE_WORDS]
        }
    }

    #[inline]
    fn bit(&mut self, index: u32) -> u32 {
        let ord = (index >> 6) as usize;
        while self.known <= ord {
            let next = murmur64a_word(self.word(self.known - 1), FURC_SEED);
            if self.known < INLINE_WORDS {
                self.inline[self.known] = next;
            } else {
                self.spill.push(next);
            }
            self.known += 1;
        }
        ((self.word(ord) >> (index & 63)) & 1) as u32
    }
}

/// `furc_hash(key, m)`: the bucket of `key` among `m` (0 when `m <= 1`).
/// Like mcrouter, any `m` is accepted; its Ch3 pools stop at
/// [`MAX_POOL_SIZE`].
pub fn furc_hash(key: &[u8], m: u32) -> u32 {
    if m <= 1 {
        return 0;
    }
    let mut bits = Bits::new(key);
    let mut d = 32 - (m - 1).leading_zeros();
    let mut a = d;
    for _ in 0..MAX_TRIES {
        while bits.bit(a) == 0 {
            d -= 1;
            if d == 0 {
                return 0;
            }
            a = d;
        }
        a += SHIFT;
        let mut num: u64 = 1;
        for _ in 0..d - 1 {
            num = (num << 1) | u64::from(bits.bit(a));
            a += SHIFT;
        }
        if num < u64::from(m) {
            return num as u32;
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mcrouter_golden_values() {
        // A sample of mcrouter lib/fbi/test/hash_test.cpp, TEST(ch3,
        // golden_values); the whole table is checked by the integration
        // tests (crates/ketama-core/tests/peers/mcrouter.rs).
        let cases: [(&[u8], u32, u32); 8] = [
            (b"key0", 1, 0),
            (b"key0", 5, 4),
            (b"key0", 1_000_000, 500_854),
            (b"key0", 4_294_967_295, 2_635_611_118),
            (b"a", 16_777_216, 11_809_035),
            (b"", 2, 1),
            (b"", 1_000_000, 407_687),
            (
                b"someKey_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
                10_000,
                5716,
            ),
        ];
        for (key, m, expected) in cases {
            assert_eq!(furc_hash(key, m), expected, "{key:?} m={m}");
        }
        assert_eq!(furc_hash(b"key", 0), 0);
        assert_eq!(MAX_POOL_SIZE, 8_388_608);
    }

    #[test]
    fn growing_the_pool_moves_keys_only_to_the_new_bucket() {
        for i in 0..2_000 {
            let key = format!("cons_{i}");
            for m in [4u32, 7, 64, 100, 1000] {
                let before = furc_hash(key.as_bytes(), m);
                let after = furc_hash(key.as_bytes(), m + 1);
                assert!(before < m && after <= m);
                assert!(after == before || after == m, "{key} {m}");
            }
        }
    }
}
