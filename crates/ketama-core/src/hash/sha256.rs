//! 32-bit hashes cut from SHA-256, as Varnish takes them:
//! `VRT_HashStrands32` (the shard director's ring points, `shard.key()` and
//! `by=URL`) reads the digest's last four bytes little-endian; `by=HASH`
//! in a backend fetch reads the first four bytes of the request's digest
//! (the SHA-256 of what `vcl_hash` fed it) big-endian.

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
#[inline]
pub fn last4_le(key: &[u8]) -> u32 {
    let digest = sha256(&[key]);
    u32::from_le_bytes([digest[28], digest[29], digest[30], digest[31]])
}

/// The first four bytes of SHA-256(`key`), big-endian (`vbe32dec` of a
/// request digest).
#[inline]
pub fn first4_be(key: &[u8]) -> u32 {
    let digest = sha256(&[key]);
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn published_digest() {
        // FIPS 180-2 example: SHA-256("abc") = ba7816bf ... f20015ad.
        assert_eq!(first4_be(b"abc"), 0xba78_16bf);
        assert_eq!(last4_le(b"abc"), 0xad15_00f2);
        assert_eq!(sha256(&[b"a", b"bc"]), sha256(&[b"abc"]));
    }
}
