//! CRCs as the peers use them: CRC-32 (IEEE) in full (pecl memcache
//! `crc32`, twemproxy `crc32a`), libmemcached's 15-bit "crc" (libmemcached,
//! twemproxy `crc32`, spymemcached `CRC_HASH`), twemproxy's `crc16`, and
//! CRC-16/XMODEM as Redis Cluster takes key slots from it.

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

/// python-memcached's `cmemcache_hash`: [`crc15`], with 0 read as 1
/// (`... or 1`).
#[inline]
pub fn cmemcache(key: &[u8]) -> u32 {
    crc15(key).max(1)
}

/// The CRC-16/XMODEM table entry for `index` (polynomial 0x1021).
const fn crc16_entry(index: u32) -> u32 {
    let mut crc = index << 8;
    let mut bit = 0;
    while bit < 8 {
        crc = if crc & 0x8000 != 0 {
            (crc << 1) ^ 0x1021
        } else {
            crc << 1
        };
        bit += 1;
    }
    crc & 0xffff
}

const CRC16_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        table[i] = crc16_entry(i as u32);
        i += 1;
    }
    table
};

/// twemproxy's `crc16`: the CRC-16/XMODEM table step, kept in a 32-bit
/// register that is never cut back to 16 bits (so bits above 15 remain).
pub fn twemproxy_crc16(key: &[u8]) -> u32 {
    key.iter().fold(0u32, |crc, &b| {
        (crc << 8) ^ CRC16_TABLE[(((crc >> 8) ^ u32::from(b)) & 0xff) as usize]
    })
}

/// CRC-16/XMODEM of `key` (Redis `crc16()`, `cluster.c`'s key slots): the
/// same table steps as [`twemproxy_crc16`], cut to 16 bits (the low 16 bits
/// of the wider register never depend on the bits above them).
#[inline]
pub fn crc16_xmodem(key: &[u8]) -> u16 {
    key.iter().fold(0u16, |crc, &b| {
        (crc << 8) ^ CRC16_TABLE[usize::from((crc >> 8) as u8 ^ b)] as u16
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc16_table_is_xmodem() {
        // The CRC-16/XMODEM check value of "123456789" is 0x31c3; twemproxy's
        // register keeps the bits above 15, the low 16 bits are the CRC.
        assert_eq!(twemproxy_crc16(b"123456789") & 0xffff, 0x31c3);
        assert_eq!(CRC16_TABLE[1], 0x1021);
    }

    #[test]
    fn crc16_xmodem_check_value_and_redis_slots() {
        // The catalogue check value, and the key slots the Redis Cluster
        // specification gives as examples (`HASH_SLOT = CRC16(key) mod 16384`).
        assert_eq!(crc16_xmodem(b"123456789"), 0x31c3);
        assert_eq!(crc16_xmodem(b""), 0);
        // CLUSTER KEYSLOT's documented answers.
        assert_eq!(crc16_xmodem(b"somekey") & 0x3fff, 11058);
        assert_eq!(crc16_xmodem(b"hash_tag") & 0x3fff, 2515);
        for key in [&b"a"[..], b"foo", b"user1000", &[0xffu8; 300][..]] {
            assert_eq!(u32::from(crc16_xmodem(key)), twemproxy_crc16(key) & 0xffff);
        }
    }
}
