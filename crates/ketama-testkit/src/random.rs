//! Seeded randomness for the bounded fuzz runs and the concurrency tests:
//! a xorshift generator (repeatable from its seed) and the byte mutations
//! the fuzz suites apply to their seeds.

/// Marsaglia's xorshift64; the seed must not be 0.
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    // A generator, not an iterator: it never ends, and `next` reads so at
    // its call sites.
    #[allow(clippy::should_implement_trait)]
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// One of `words`.
    pub fn pick<'a>(&mut self, words: &[&'a str]) -> &'a str {
        words[self.below(words.len())]
    }
}

/// Mutates `input` one to four times: a bit flip, an insertion of one of
/// `interesting`, a deletion, a splice of part of `other`, a truncation, or
/// a random byte overwritten (or appended).
pub fn mutate(input: &mut Vec<u8>, other: &[u8], interesting: &[u8], rng: &mut XorShift) {
    for _ in 0..1 + rng.below(4) {
        match rng.below(6) {
            0 if !input.is_empty() => {
                let at = rng.below(input.len());
                input[at] ^= 1 << rng.below(8);
            }
            1 => {
                let at = rng.below(input.len() + 1);
                input.insert(at, interesting[rng.below(interesting.len())]);
            }
            2 if !input.is_empty() => {
                input.remove(rng.below(input.len()));
            }
            3 => {
                let from = rng.below(other.len() + 1);
                let to = from + rng.below(other.len() - from + 1);
                let at = rng.below(input.len() + 1);
                input.splice(at..at, other[from..to].iter().copied());
            }
            4 => input.truncate(rng.below(input.len() + 1)),
            _ if !input.is_empty() => {
                let at = rng.below(input.len());
                input[at] = rng.next() as u8;
            }
            _ => input.push(rng.next() as u8),
        }
    }
}
