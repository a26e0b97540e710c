//! Bob Jenkins' one-at-a-time hash, libmemcached's default key hash
//! (and twemproxy's `one_at_a_time`), over sign-extended C `char`s.

use super::fnv::c_chars;

/// One-at-a-time over `key`, bytes sign-extended as the C peers read them.
pub fn one_at_a_time(key: &[u8]) -> u32 {
    let mut value = c_chars(key).fold(0u32, |mut value, unit| {
        value = value.wrapping_add(unit);
        value = value.wrapping_add(value << 10);
        value ^ (value >> 6)
    });
    value = value.wrapping_add(value << 3);
    value ^= value >> 11;
    value.wrapping_add(value << 15)
}
