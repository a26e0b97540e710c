//! EnyimMemcached's `FNV1a` (`Enyim.Caching/FnvHash.cs`), a .NET
//! `HashAlgorithm`: FNV-1a 32 over the bytes (unsigned), its state kept in
//! the instance. .NET's `ComputeHash` runs `HashCore`, then `HashFinal`,
//! then `Initialize()`; so an instance whose constructor does not call
//! `Initialize()` starts its *first* hash from 0, not from the offset
//! basis, and every later one from the basis. EnyimMemcached's `FNV1()`
//! constructor never calls it, nor does EnyimMemcachedCore's
//! `FNV1(initialize: false)` (its `LegacyNodeLocator`); `FNV1(true)` does
//! (EnyimMemcachedCore's `DefaultNodeLocator` since January 2024).

use super::fnv::{FNV32_INIT, FNV32_PRIME};

/// FNV-1a 32 of `key`'s bytes from `basis`.
#[inline]
pub fn fnv1a(key: &[u8], basis: u32) -> u32 {
    key.iter()
        .fold(basis, |h, &b| (h ^ u32::from(b)).wrapping_mul(FNV32_PRIME))
}

/// FNV-1a 32 with the offset basis (`FNV1a(true)`, or any hash after an
/// instance's first).
#[inline]
pub fn fnv1a_basis(key: &[u8]) -> u32 {
    fnv1a(key, FNV32_INIT)
}

/// The first hash of a `FNV1a` instance never initialized: from 0.
#[inline]
pub fn fnv1a_uninitialized(key: &[u8]) -> u32 {
    fnv1a(key, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_basis_is_the_only_difference() {
        // FNV-1a 32 reference values (the FNV test suite).
        assert_eq!(fnv1a_basis(b""), 0x811c_9dc5);
        assert_eq!(fnv1a_basis(b"foobar"), 0xbf9c_f968);
        assert_eq!(
            fnv1a_basis(&[0xff]),
            (0x811c_9dc5 ^ 0xff_u32).wrapping_mul(FNV32_PRIME)
        );
        assert_eq!(fnv1a_uninitialized(b""), 0);
        assert_eq!(
            fnv1a_uninitialized(b"a"),
            0x61_u32.wrapping_mul(FNV32_PRIME)
        );
    }
}
