//! Hash functions: MD5 as libketama uses it, and the key hashes of the peers.
//!
//! One file per family: [`md5`], [`crc`], [`fnv`], [`one_at_a_time`],
//! [`murmur`], [`jenkins`], [`hsieh`], spymemcached's string hashes in
//! [`java`], HAProxy's in [`haproxy`], Varnish's SHA-256 cuts in
//! [`sha256`]; the 64-bit hashes of mcrouter and Envoy: [`murmur64`],
//! [`furc`], [`spooky`], [`xxhash64`]; Rust's `DefaultHasher` in
//! [`siphash`]; MurmurHash3_x64_128 and emcache's score in
//! [`murmur128`]; npm memcache's FNV-1a and SHA-1 as
//! its JavaScript computes them in [`javascript`]; memcached's proxy's
//! XXH3 in [`xxh3`]. Each is checked against its real peer by the integration
//! tests.

pub mod crc;
pub mod enyim;
pub mod fnv;
pub mod furc;
pub mod haproxy;
pub mod hsieh;
pub mod java;
pub mod javascript;
pub mod jenkins;
pub mod md5;
pub mod md5_lanes;
pub mod murmur;
pub mod murmur128;
pub mod murmur64;
pub mod one_at_a_time;
pub mod sha256;
pub mod siphash;
pub mod spooky;
pub mod xxh3;
pub mod xxhash64;

pub use md5::{md5_digest, md5_word};

use fnv::{FNV32_INIT, FNV32_PRIME, FNV64_INIT_LOW, FNV64_PRIME_LOW, c_chars, fnv1, fnv1a};
use java::JavaFnv;

/// libketama's key hash: the first four bytes of MD5(key) as a little-endian
/// `u32` (`ketama_hashi`).
#[inline]
pub fn ketama_hash(key: &[u8]) -> u32 {
    md5_word(&md5_digest(key), 0)
}

crate::named_enum! {
    /// A key hash: how a key's bytes become a position on the circle.
    ///
    /// Each placement flavour has a default; some peers let users choose another.
    /// The C peers' functions read bytes as signed `char`s; spymemcached's
    /// `native` and FNV variants read UTF-16 code units, so they are separate.
    /// Peer spellings whose meaning depends on the peer (twemproxy's `crc32`
    /// is 15-bit, pecl's is full) are resolved by
    /// [`crate::Flavour::hash_from_name`].
    #[non_exhaustive]
    pub enum HashAlgorithm: "ketama_hash", extra 0 KETAMA_HASH_DEFAULT "default" "The flavour's default key hash." {
        /// Word 0 of MD5(key), little-endian (libketama, KETAMA_HASH, libmemcached md5).
        Md5 = 1, KETAMA_HASH_MD5, "md5", ["ketama", "ketama_hash"];
        /// `(crc32 >> 16) & 0x7fff` (libmemcached crc, twemproxy crc32, spymemcached CRC_HASH).
        Crc = 2, KETAMA_HASH_CRC, "crc", ["crc15", "crc_hash"];
        /// The full CRC-32 (pecl memcache crc32, twemproxy crc32a).
        Crc32 = 3, KETAMA_HASH_CRC32, "crc32", ["crc32a"];
        /// Jenkins' one-at-a-time (libmemcached's default).
        OneAtATime = 4, KETAMA_HASH_ONE_AT_A_TIME, "one_at_a_time", ["oaat"];
        /// FNV-1 32-bit over C chars.
        Fnv1_32 = 5, KETAMA_HASH_FNV1_32, "fnv1_32", [];
        /// FNV-1a 32-bit over C chars (also pecl memcache `fnv`).
        Fnv1a32 = 6, KETAMA_HASH_FNV1A_32, "fnv1a_32", ["fnv"];
        /// FNV-1 64-bit over C chars, low 32 bits.
        Fnv1_64 = 7, KETAMA_HASH_FNV1_64, "fnv1_64", [];
        /// FNV-1a 64-bit over C chars, low 32 bits (twemproxy's default).
        Fnv1a64 = 8, KETAMA_HASH_FNV1A_64, "fnv1a_64", [];
        /// MurmurHash2, libmemcached seeding.
        Murmur = 9, KETAMA_HASH_MURMUR, "murmur", [];
        /// MurmurHash3 x86_32, libmemcached seeding.
        Murmur3 = 10, KETAMA_HASH_MURMUR3, "murmur3", [];
        /// Jenkins lookup3 `hashlittle`, initval 13.
        Jenkins = 11, KETAMA_HASH_JENKINS, "jenkins", [];
        /// Hsieh's SuperFastHash (twemproxy).
        Hsieh = 12, KETAMA_HASH_HSIEH, "hsieh", [];
        /// spymemcached `NATIVE_HASH`: Java `String.hashCode()`.
        SpyNative = 13, KETAMA_HASH_SPY_NATIVE, "spy-native", ["native", "native_hash"];
        /// spymemcached `FNV1_32_HASH` over UTF-16 code units.
        SpyFnv1_32 = 14, KETAMA_HASH_SPY_FNV1_32, "spy-fnv1_32", [];
        /// spymemcached `FNV1A_32_HASH` over UTF-16 code units.
        SpyFnv1a32 = 15, KETAMA_HASH_SPY_FNV1A_32, "spy-fnv1a_32", [];
        /// spymemcached `FNV1_64_HASH` over UTF-16 code units, low 32 bits.
        SpyFnv1_64 = 16, KETAMA_HASH_SPY_FNV1_64, "spy-fnv1_64", [];
        /// spymemcached `FNV1A_64_HASH` over UTF-16 code units, low 32 bits.
        SpyFnv1a64 = 17, KETAMA_HASH_SPY_FNV1A_64, "spy-fnv1a_64", [];
        /// twemproxy `crc16` (CRC-16/XMODEM steps in a 32-bit register).
        Crc16 = 18, KETAMA_HASH_CRC16, "crc16", [];
        /// MurmurHash3 x86_32 with seed 0 (pymemcache's `murmur3_32`).
        Murmur3Seed0 = 19, KETAMA_HASH_MURMUR3_SEED0, "murmur3_seed0", ["murmur3_32"];
        /// python-memcached's `cmemcache_hash`: `(crc32 >> 16) & 0x7fff`, 0 read as 1.
        Cmemcache = 20, KETAMA_HASH_CMEMCACHE, "cmemcache", ["cmemcache_hash"];
        /// The CRC-32 register without the final complement (`!crc32`), as
        /// phpredis `RedisArray` hashes keys onto its `consistent` ring.
        Crc32NoXor = 30, KETAMA_HASH_CRC32_NOXOR, "crc32-noxor", ["phpredis-crc32"];
        /// The first four bytes of SHA-256, big-endian (django-redis orders
        /// whole SHA-256 digests; this is their top 32 bits).
        Sha256 = 31, KETAMA_HASH_SHA256, "sha256", [];
        /// HAProxy `sdbm` (its default): `hash * 65599 + byte`.
        Sdbm = 40, KETAMA_HASH_SDBM, "sdbm", [];
        /// HAProxy `djb2`: `hash * 33 + byte` from 5381.
        Djb2 = 41, KETAMA_HASH_DJB2, "djb2", [];
        /// HAProxy `wt6`.
        Wt6 = 42, KETAMA_HASH_WT6, "wt6", [];
        /// HAProxy `sdbm avalanche`: sdbm, then Jenkins' integer hash (`full_hash`).
        SdbmAvalanche = 43, KETAMA_HASH_SDBM_AVALANCHE, "sdbm_avalanche", [];
        /// HAProxy `djb2 avalanche`.
        Djb2Avalanche = 44, KETAMA_HASH_DJB2_AVALANCHE, "djb2_avalanche", [];
        /// HAProxy `wt6 avalanche`.
        Wt6Avalanche = 45, KETAMA_HASH_WT6_AVALANCHE, "wt6_avalanche", [];
        /// HAProxy `crc32 avalanche`: the full CRC-32, then `full_hash`.
        Crc32Avalanche = 46, KETAMA_HASH_CRC32_AVALANCHE, "crc32_avalanche", [];
        /// The last four bytes of SHA-256(key), little-endian (Varnish
        /// `VRT_HashStrands32`: the shard director's `key()` and `by=URL`).
        Sha256Last4Le = 47, KETAMA_HASH_SHA256_LAST4_LE, "sha256_last4_le", ["vrt_hashstrands32", "shard_key"];
        /// The first four bytes, big-endian, of SHA-256(key + NUL): Varnish's
        /// request digest after `hash_data(key)` (`by=HASH` in a backend fetch).
        VarnishDigest = 48, KETAMA_HASH_VARNISH_DIGEST, "varnish_digest", ["vcl_hash"];
        /// mcrouter's `furc_hash` key hash: MurmurHash64A of the key with seed
        /// 4193360111, low 32 bits (its Ch3 placements rehash all 64).
        Furc = 50, KETAMA_HASH_FURC, "furc", ["ch3", "furc_hash"];
        /// XXH64 with seed 0, low 32 bits (Envoy's header hash policy hashes
        /// with all 64).
        XxHash64 = 51, KETAMA_HASH_XXHASH64, "xxhash64", ["xxh64", "xx_hash64"];
        /// CRC-16/XMODEM (polynomial 0x1021, init 0), the 16-bit CRC Redis
        /// Cluster takes a key's slot from (`crc16(key) & 0x3fff`).
        Crc16Xmodem = 52, KETAMA_HASH_CRC16_XMODEM, "crc16-xmodem", ["xmodem", "redis-crc16"];
        /// Rust's `DefaultHasher` of a `str`: SipHash-1-3 (keys 0, 0) of the
        /// key's bytes and 0xff, low 32 bits (the crates.io `memcache`
        /// client takes all 64 modulo its servers).
        Siphash13Str = 53, KETAMA_HASH_SIPHASH13_STR, "siphash13_str", ["rust-defaulthasher", "defaulthasher"];
        /// PyPI emcache's rendezvous score: MurmurHash3_x64_128 (seed 0),
        /// its first four bytes combined as emcache does (signed `char`s,
        /// shifts before `&`).
        EmcacheMurmur3 = 54, KETAMA_HASH_EMCACHE_MURMUR3, "emcache_murmur3", ["emcache"];
        /// FNV-1a as npm `memcache` computes it in JavaScript: over UTF-16
        /// code units, each multiply rounded to a double; the signed result
        /// with its sign bit flipped (unsigned order = JavaScript's order).
        JsFnv1a = 55, KETAMA_HASH_JS_FNV1A, "js_fnv1a", ["npm-memcache-fnv1a", "fnv1astring"];
        /// npm `memcache` up to 1.5: the first four bytes of the SHA-1 of
        /// the key's UTF-8 text, big-endian and signed, its sign bit
        /// flipped (unsigned order = JavaScript's order).
        JsSha1 = 56, KETAMA_HASH_JS_SHA1, "js_sha1", ["npm-memcache-sha1", "sha1-int32"];
        /// XXH3 64-bit with seed 0 (`XXH3_64bits`), low 32 bits (memcached's
        /// proxy places keys with all 64).
        Xxh3 = 57, KETAMA_HASH_XXH3, "xxh3", ["xxh3_64", "xxh3_64bits"];
        /// Jenkins' one-at-a-time over unsigned bytes (xmemcached's
        /// `ONE_AT_A_TIME` of a key's UTF-8 bytes, `bt & 0xFF`); equal to
        /// `one_at_a_time` on ASCII.
        OneAtATimeUnsigned = 58, KETAMA_HASH_ONE_AT_A_TIME_UNSIGNED, "one_at_a_time_unsigned", ["oaat_unsigned", "java-one_at_a_time"];
        /// FNV-1a 32 over the key's bytes read unsigned, from the offset
        /// basis (EnyimMemcachedCore's `FNV1a(true)`; `fnv1a_32` reads them
        /// as signed `char`s).
        Fnv1a32Bytes = 59, KETAMA_HASH_FNV1A_32_BYTES, "fnv1a_32_bytes", ["enyim-core-fnv1a", "fnv1a_32_unsigned"];
        /// FNV-1a 32 over the bytes from 0, not the offset basis: the first
        /// hash of EnyimMemcached's never-initialized `FNV1a` instance, the
        /// key hash of its `DefaultNodeLocator`.
        EnyimFnv1a = 60, KETAMA_HASH_ENYIM_FNV1A, "enyim_fnv1a", ["fnv1a_32_zero", "enyim-legacy-fnv1a"];
        /// Jedis' `Hashing.MURMUR_HASH`: MurmurHash64A with seed
        /// `0x1234ABCD`, low 32 bits (its sharding takes all 64, signed).
        JedisMurmur64a = 61, KETAMA_HASH_JEDIS_MURMUR64A, "jedis_murmur64a", ["jedis-murmur", "murmur_hash"];
    }
}

impl HashAlgorithm {
    /// Hashes `key` to a 32-bit value.
    #[inline]
    pub fn hash(self, key: &[u8]) -> u32 {
        match self {
            HashAlgorithm::Md5 => ketama_hash(key),
            HashAlgorithm::Crc => crc::crc15(key),
            HashAlgorithm::Crc32 => crc::crc32(key),
            HashAlgorithm::OneAtATime => one_at_a_time::one_at_a_time(key),
            HashAlgorithm::OneAtATimeUnsigned => one_at_a_time::one_at_a_time_unsigned(key),
            HashAlgorithm::Fnv1_32 => fnv1(c_chars(key), FNV32_INIT, FNV32_PRIME),
            HashAlgorithm::Fnv1a32 => fnv1a(c_chars(key), FNV32_INIT, FNV32_PRIME),
            HashAlgorithm::Fnv1_64 => fnv1(c_chars(key), FNV64_INIT_LOW, FNV64_PRIME_LOW),
            HashAlgorithm::Fnv1a64 => fnv1a(c_chars(key), FNV64_INIT_LOW, FNV64_PRIME_LOW),
            HashAlgorithm::Murmur => murmur::murmur(key),
            HashAlgorithm::Murmur3 => murmur::murmur3(key),
            HashAlgorithm::Jenkins => jenkins::jenkins(key),
            HashAlgorithm::Hsieh => hsieh::hsieh(key),
            HashAlgorithm::SpyNative => java::native(key),
            HashAlgorithm::SpyFnv1_32 => java::fnv(JavaFnv::Fnv1_32, key),
            HashAlgorithm::SpyFnv1a32 => java::fnv(JavaFnv::Fnv1a32, key),
            HashAlgorithm::SpyFnv1_64 => java::fnv(JavaFnv::Fnv1_64, key),
            HashAlgorithm::SpyFnv1a64 => java::fnv(JavaFnv::Fnv1a64, key),
            HashAlgorithm::Crc16 => crc::twemproxy_crc16(key),
            HashAlgorithm::Crc16Xmodem => u32::from(crc::crc16_xmodem(key)),
            HashAlgorithm::Murmur3Seed0 => murmur::murmur3_seed0(key),
            HashAlgorithm::Cmemcache => crc::cmemcache(key),
            HashAlgorithm::Crc32NoXor => !crc::crc32(key),
            HashAlgorithm::Sha256 => sha256_top(key),
            HashAlgorithm::Furc => murmur64::murmur64a(key, murmur64::FURC_SEED) as u32,
            HashAlgorithm::XxHash64 => xxhash64::xxhash64(key, 0) as u32,
            HashAlgorithm::Xxh3 => xxh3::xxh3_64(key, 0) as u32,
            HashAlgorithm::Siphash13Str => siphash::rust_str_hash(key) as u32,
            HashAlgorithm::EmcacheMurmur3 => murmur128::emcache_fold(key),
            HashAlgorithm::JsFnv1a => javascript::js_fnv1a_ordered(key),
            HashAlgorithm::JsSha1 => javascript::js_sha1_ordered(key),
            HashAlgorithm::Fnv1a32Bytes => enyim::fnv1a_basis(key),
            HashAlgorithm::EnyimFnv1a => enyim::fnv1a_uninitialized(key),
            HashAlgorithm::JedisMurmur64a => murmur64::murmur64a(key, murmur64::JEDIS_SEED) as u32,
            HashAlgorithm::Sdbm => haproxy::sdbm(key),
            HashAlgorithm::Djb2 => haproxy::djb2(key),
            HashAlgorithm::Wt6 => haproxy::wt6(key),
            HashAlgorithm::SdbmAvalanche => haproxy::avalanche(haproxy::sdbm(key)),
            HashAlgorithm::Djb2Avalanche => haproxy::avalanche(haproxy::djb2(key)),
            HashAlgorithm::Wt6Avalanche => haproxy::avalanche(haproxy::wt6(key)),
            HashAlgorithm::Crc32Avalanche => haproxy::avalanche(crc::crc32(key)),
            HashAlgorithm::Sha256Last4Le => sha256::last4_le(key),
            HashAlgorithm::VarnishDigest => sha256::varnish_digest(key),
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
}

/// The first four bytes of SHA-256(`key`), big-endian.
fn sha256_top(key: &[u8]) -> u32 {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(key);
    u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &h in HashAlgorithm::ALL {
            assert_eq!(HashAlgorithm::from_name(h.name()), Some(h));
        }
        assert_eq!(
            HashAlgorithm::from_name("One-At-A-Time"),
            Some(HashAlgorithm::OneAtATime)
        );
        assert_eq!(HashAlgorithm::from_name("sha1"), None);
    }

    #[test]
    fn published_vectors() {
        // Reference values of the published algorithms (not from a peer):
        // FNV test suite, CRC-32 check value.
        assert_eq!(HashAlgorithm::Fnv1a32.hash(b"a"), 0xe40c_292c);
        assert_eq!(HashAlgorithm::Fnv1_32.hash(b"a"), 0x050c_5d7e);
        assert_eq!(
            HashAlgorithm::Fnv1a64.hash(b"a"),
            0xaf63_dc4c_8601_ec8c_u64 as u32
        );
        assert_eq!(HashAlgorithm::Crc32.hash(b"123456789"), 0xcbf4_3926);
        assert_eq!(
            HashAlgorithm::Crc.hash(b"123456789"),
            (0xcbf4_3926 >> 16) & 0x7fff
        );
        assert_eq!(HashAlgorithm::SpyNative.hash(b"hello"), 99_162_322);
        assert_eq!(HashAlgorithm::Hsieh.hash(b""), 0);
        // Jenkins' one-at-a-time published vectors (unsigned bytes).
        assert_eq!(HashAlgorithm::OneAtATimeUnsigned.hash(b"a"), 0xca2e_9442);
        assert_eq!(
            HashAlgorithm::OneAtATimeUnsigned.hash(b"The quick brown fox jumps over the lazy dog"),
            0x519e_91f5
        );
        // SHA-256("abc") = ba7816bf...
        assert_eq!(HashAlgorithm::Sha256.hash(b"abc"), 0xba78_16bf);
        // MurmurHash3 x86_32 published vectors (seed 0).
        assert_eq!(HashAlgorithm::Murmur3Seed0.hash(b""), 0);
        assert_eq!(HashAlgorithm::Murmur3Seed0.hash(b"hello"), 0x248b_fa47);
        assert_eq!(
            HashAlgorithm::Murmur3Seed0.hash(b"The quick brown fox jumps over the lazy dog"),
            0x2e4f_f723
        );
    }
}
