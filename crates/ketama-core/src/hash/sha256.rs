//! 32-bit hashes cut from SHA-256, as Varnish takes them:
//! `VRT_HashStrands32` (the shard director's ring points, `shard.key()` and
//! `by=URL`) reads the digest's last four bytes little-endian; `by=HASH`
//! in a backend fetch reads the first four bytes of the request's digest
//! big-endian, the SHA-256 of what `vcl_hash` fed it, where every
//! `hash_data()` call adds its strings and then one NUL byte.

use sha2::{Digest, Sha256};

/// The SHA-256 digest of the concatenated `parts`.
#[inline]
pub fn sha256(parts: &[&[u8]]) -> [u8; 32] {
    let mut hasher = Sha256::new();
    for part in parts {
        hasher.update(part);
    }
    hasher.finalize().into()
}

/// The last four bytes of SHA-256(`key`), little-endian
/// (`VRT_HashStrands32`).
#[inline(never)]
pub fn last4_le(key: &[u8]) -> u32 {
    let digest = sha256(&[key]);
    u32::from_le_bytes([digest[28], digest[29], digest[30], digest[31]])
}

/// The first four bytes, big-endian, of SHA-256(`key` NUL): the request
/// digest of a `vcl_hash` that calls `hash_data(key)` once, as `by=HASH`
/// reads it (`vbe32dec`). For several `hash_data()` calls, give their
/// strings joined by NUL bytes.
#[inline(never)]
pub fn varnish_digest(key: &[u8]) -> u32 {
    let digest = sha256(&[key, &[0]]);
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_digest() {
        // FIPS 180-2 example: SHA-256("abc") = ba7816bf ... f20015ad.
        assert_eq!(last4_le(b"abc"), 0xad15_00f2);
        let digest = sha256(&[b"abc"]);
        assert_eq!(&digest[..4], &[0xba, 0x78, 0x16, 0xbf]);
        let with_nul = sha256(&[b"abc\0"]);
        assert_eq!(varnish_digest(b"abc").to_be_bytes(), with_nul[..4]);
        assert_eq!(sha256(&[b"a", b"bc"]), sha256(&[b"abc"]));
    }
}
