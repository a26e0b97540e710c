//! CRC-32 (IEEE) as the peers use it: the full value (pecl memcache
//! `crc32`, twemproxy `crc32a`) and libmemcached's 15-bit "crc"
//! (libmemcached, twemproxy `crc32`, spymemcached `CRC_HASH`).

/// The full CRC-32 of `key` (init `!0`, final complement), via `crc32fast`.
#[inline]
pub fn crc32(key: &[u8]) -> u32 {
    crc32fast::hash(key)
}

/// libmemcached's "crc": bits 16..30 of the CRC-32, `(crc32 >> 16) & 0x7fff`.
#[inline]
pub fn crc15(key: &[u8]) -> u32 {
    (crc32(key) >> 16) & 0x7fff
}
