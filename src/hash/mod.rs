//! Hash functions: MD5 as libketama uses it, and the key hashes of the peers.

pub mod md5;
pub mod md5_lanes;

pub use md5::{md5_digest, md5_word};

/// libketama's key hash: the first four bytes of MD5(key) as a little-endian
/// `u32` (`ketama_hashi`).
#[inline]
pub fn ketama_hash(key: &[u8]) -> u32 {
    md5_word(&md5_digest(key), 0)
}

/// A key hash: how a key's bytes become a position on the circle.
///
/// Each placement flavour has a default; some peers let users choose another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HashAlgorithm {
    /// Word 0 of MD5(key), little-endian (libketama, KETAMA_HASH).
    Md5,
}

impl HashAlgorithm {
    /// Hashes `key` to a 32-bit value.
    #[inline]
    pub fn hash(self, key: &[u8]) -> u32 {
        match self {
            HashAlgorithm::Md5 => ketama_hash(key),
        }
    }

    /// Hashes every key into `out` (same length). MD5 keys of up to 55 bytes
    /// are hashed several at a time in SIMD lanes.
    ///
    /// # Panics
    /// If `out` is shorter than `keys`.
    pub fn hash_many(self, keys: &[&[u8]], out: &mut [u32]) {
        match self {
            HashAlgorithm::Md5 => {
                let mut digests = [[0u8; 16]; 64];
                for (chunk, hashes) in keys.chunks(64).zip(out.chunks_mut(64)) {
                    md5_lanes::md5_many(chunk, &mut digests[..chunk.len()]);
                    for (hash, digest) in hashes.iter_mut().zip(&digests) {
                        *hash = md5_word(digest, 0);
                    }
                }
            }
            #[allow(unreachable_patterns)]
            other => {
                for (hash, key) in out.iter_mut().zip(keys) {
                    *hash = other.hash(key);
                }
            }
        }
    }

    /// The canonical name (as accepted by `--hash`).
    pub fn name(self) -> &'static str {
        match self {
            HashAlgorithm::Md5 => "md5",
        }
    }

    /// Looks a hash up by any of its accepted spellings.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.to_ascii_lowercase().as_str() {
            "md5" | "ketama" => Some(HashAlgorithm::Md5),
            _ => None,
        }
    }
}
