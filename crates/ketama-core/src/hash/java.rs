//! spymemcached's string hashes: Java's `String.hashCode` (`NATIVE_HASH`) and
//! its FNV variants, which run over UTF-16 code units rather than bytes.
//!
//! Keys arrive as bytes; they are decoded as UTF-8 (invalid sequences become
//! U+FFFD, as Java's decoder does) to get the `String` spymemcached would hash.

use super::fnv::{FNV32_INIT, FNV32_PRIME, FNV64_INIT_LOW, FNV64_PRIME_LOW, fnv1, fnv1a};

/// Which of spymemcached's FNV variants.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JavaFnv {
    /// `FNV1_32_HASH`.
    Fnv1_32,
    /// `FNV1A_32_HASH`.
    Fnv1a32,
    /// `FNV1_64_HASH` (low 32 bits).
    Fnv1_64,
    /// `FNV1A_64_HASH` (low 32 bits).
    Fnv1a64,
}

/// `String.hashCode()` of the key, as an unsigned 32-bit value.
pub fn native(key: &[u8]) -> u32 {
    fn hash_code(units: impl Iterator<Item = u32>) -> u32 {
        units.fold(0u32, |h, unit| h.wrapping_mul(31).wrapping_add(unit))
    }
    // An ASCII key's UTF-16 units are its bytes: no decoding, no allocation.
    if key.is_ascii() {
        return hash_code(key.iter().map(|&b| u32::from(b)));
    }
    hash_code(String::from_utf8_lossy(key).encode_utf16().map(u32::from))
}

/// spymemcached's FNV `variant` over the key's UTF-16 code units.
pub fn fnv(variant: JavaFnv, key: &[u8]) -> u32 {
    if key.is_ascii() {
        return fnv_units(variant, key.iter().map(|&b| u32::from(b)));
    }
    fnv_units(
        variant,
        String::from_utf8_lossy(key).encode_utf16().map(u32::from),
    )
}

fn fnv_units(variant: JavaFnv, units: impl Iterator<Item = u32>) -> u32 {
    match variant {
        JavaFnv::Fnv1_32 => fnv1(units, FNV32_INIT, FNV32_PRIME),
        JavaFnv::Fnv1a32 => fnv1a(units, FNV32_INIT, FNV32_PRIME),
        JavaFnv::Fnv1_64 => fnv1(units, FNV64_INIT_LOW, FNV64_PRIME_LOW),
        JavaFnv::Fnv1a64 => fnv1a(units, FNV64_INIT_LOW, FNV64_PRIME_LOW),
    }
}
