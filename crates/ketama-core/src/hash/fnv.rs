//! Fowler–Noll–Vo hashes as the peers compute them: 32-bit results over
//! "units" (bytes in the C peers, UTF-16 code units in spymemcached).
//!
//! The C peers' 64-bit variants return the low 32 bits of the 64-bit hash;
//! since multiplication and XOR modulo 2^32 only depend on the low bits, that
//! is the same 32-bit loop with the low halves of the 64-bit constants
//! (`0x84222325`, `0x1b3`), which is what libmemcached's fnv1a_64 computes.

/// FNV-32 offset basis.
pub(crate) const FNV32_INIT: u32 = 0x811c_9dc5;
/// FNV-32 prime.
pub(crate) const FNV32_PRIME: u32 = 0x0100_0193;
/// Low 32 bits of the FNV-64 offset basis `0xcbf29ce484222325`.
pub(crate) const FNV64_INIT_LOW: u32 = 0x8422_2325;
/// Low 32 bits of the FNV-64 prime `0x100000001b3`.
pub(crate) const FNV64_PRIME_LOW: u32 = 0x0000_01b3;

/// FNV-1 (multiply, then XOR) over `units`, modulo 2^32.
#[inline]
pub fn fnv1(units: impl Iterator<Item = u32>, init: u32, prime: u32) -> u32 {
    units.fold(init, |hash, unit| hash.wrapping_mul(prime) ^ unit)
}

/// FNV-1a (XOR, then multiply) over `units`, modulo 2^32.
#[inline]
pub fn fnv1a(units: impl Iterator<Item = u32>, init: u32, prime: u32) -> u32 {
    units.fold(init, |hash, unit| (hash ^ unit).wrapping_mul(prime))
}

/// The bytes of `key` as the C peers read them: `char` is signed on x86, so
/// bytes ≥ 0x80 are sign-extended before they are mixed in.
#[inline]
pub fn c_chars(key: &[u8]) -> impl Iterator<Item = u32> + '_ {
    key.iter().map(|&b| b as i8 as i32 as u32)
}
