//! MD5 digests and the little-endian words libketama reads from them.

use md5::{Digest, Md5};

/// The 16-byte MD5 digest of `bytes`.
#[inline]
pub fn md5_digest(bytes: &[u8]) -> [u8; 16] {
    Md5::digest(bytes).into()
}

/// Word `j` (0..=3) of a digest: bytes `4j..4j+3` read as a little-endian `u32`.
///
/// libketama takes all four words of each server digest as points and word 0
/// of a key digest as the key's hash.
#[inline]
pub fn md5_word(digest: &[u8; 16], j: usize) -> u32 {
    let at = 4 * j;
    u32::from_le_bytes([digest[at], digest[at + 1], digest[at + 2], digest[at + 3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_vectors_from_the_original() {
        // ketama_hashi("test") and ketama_hashi("") as pinned by libketama's own tests.
        assert_eq!(md5_word(&md5_digest(b"test"), 0), 3_446_378_249);
        assert_eq!(md5_word(&md5_digest(b""), 0), 0xd98c_1dd4);
    }
}
