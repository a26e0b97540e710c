//! CRCs as the peers use them: CRC-32 (IEEE) in full (pecl memcache
//! `crc32`, twemproxy `crc32a`), libmemcached's 15-bit "crc" (libmemcached,
//! twemproxy `crc32`, spymemcached `CRC_HASH`), and twemproxy's `crc16`.

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
}
