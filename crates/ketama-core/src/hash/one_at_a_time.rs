//! Bob Jenkins' one-at-a-time hash, libmemcached's default key hash
//! (and twemproxy's `one_at_a_time`), over sign-extended C `char`s; and
//! over unsigned bytes, as Java clients compute it (xmemcached's
//! `ONE_AT_A_TIME` over a key's UTF-8 bytes, `bt & 0xFF`).

use super::fnv::c_chars;

/// One-at-a-time over `key`, bytes sign-extended as the C peers read them.
pub fn one_at_a_time(key: &[u8]) -> u32 {
    mix(c_chars(key))
}

/// One-at-a-time over `key`, bytes read as unsigned (0..=255).
pub fn one_at_a_time_unsigned(key: &[u8]) -> u32 {
    mix(key.iter().map(|&b| u32::from(b)))
}

fn mix(units: impl Iterator<Item = u32>) -> u32 {
    let mut value = units.fold(0u32, |mut value, unit| {
        value = value.wrapping_add(unit);
        value = value.wrapping_add(value << 10);
        value ^ (value >> 6)
    });
    value = value.wrapping_add(value << 3);
    value ^= value >> 11;
    value.wrapping_add(value << 15)
}
