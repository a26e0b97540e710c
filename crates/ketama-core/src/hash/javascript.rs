//! The key hashes of npm `memcache`'s ketama ring, as its JavaScript
//! computes them (`src/ketama.ts`): both are signed 32-bit numbers and its
//! ring is in signed order, so the library flips their sign bit.
//!
//! * 1.6 and later, `fnv1aString`: FNV-1a over the key's UTF-16 code units
//!   (`charCodeAt`), with the multiply done on doubles: `hash = hash *
//!   16777619 | 0`. The product of a 32-bit number and the FNV prime needs
//!   up to 55 bits, so the double rounds it to 53 before `| 0` keeps the
//!   low 32 bits: not the FNV-1a of the C clients.
//! * up to 1.5, `createHash('sha1').update(Buffer.from(key)).digest()
//!   .readInt32BE()`: the first four bytes of the SHA-1 of the key's UTF-8
//!   text, big-endian, signed.

/// The FNV-1a 32-bit offset basis.
const BASIS: i32 = 2_166_136_261_u32 as i32;

/// The FNV 32-bit prime, as a double.
const PRIME: f64 = 16_777_619.0;

/// `fnv1aString(key)`: the key read as UTF-8 (an invalid sequence is
/// U+FFFD, as `Buffer.toString('utf8')` decodes it), hashed over its UTF-16
/// code units; the signed 32-bit result.
pub fn js_fnv1a(key: &[u8]) -> i32 {
    let mut hash = BASIS;
    for unit in String::from_utf8_lossy(key).encode_utf16() {
        hash ^= i32::from(unit);
        hash = to_int32(f64::from(hash) * PRIME);
    }
    hash
}

/// ECMAScript `ToInt32` of an integral double: its value modulo 2^32, read
/// as signed. The products here are below 2^55 in magnitude: exact in i64.
#[inline]
fn to_int32(value: f64) -> i32 {
    value as i64 as i32
}

/// A signed hash as a point of an unsigned continuum: its sign bit
/// flipped, so that unsigned order is JavaScript's numeric order.
#[inline]
fn ordered(hash: i32) -> u32 {
    (hash as u32) ^ 0x8000_0000
}

/// [`js_fnv1a`] as a point of the library's unsigned continuum.
#[inline]
pub fn js_fnv1a_ordered(key: &[u8]) -> u32 {
    ordered(js_fnv1a(key))
}

/// `readInt32BE` of the SHA-1 digest of the key's UTF-8 text (an invalid
/// sequence read as U+FFFD first, as the client gets its key as a string).
pub fn js_sha1(key: &[u8]) -> i32 {
    use sha1::{Digest, Sha1};
    let digest = Sha1::digest(String::from_utf8_lossy(key).as_bytes());
    i32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]])
}

/// [`js_sha1`] as a point of the library's unsigned continuum.
#[inline]
pub fn js_sha1_ordered(key: &[u8]) -> u32 {
    ordered(js_sha1(key))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// FNV-1a with an exact 32-bit multiply, to show where they part.
    fn exact(key: &[u8]) -> u32 {
        key.iter().fold(0x811c_9dc5_u32, |h, &b| {
            (h ^ u32::from(b)).wrapping_mul(16_777_619)
        })
    }

    #[test]
    fn the_double_multiply_parts_from_exact_fnv1a() {
        // Products of 2^31-sized numbers and the prime need 55 bits: the
        // double drops up to two low bits at each step.
        let keys: Vec<String> = (0..1000).map(|i| format!("key:{i}")).collect();
        let differ = keys
            .iter()
            .filter(|k| js_fnv1a(k.as_bytes()) as u32 != exact(k.as_bytes()))
            .count();
        assert!(differ > 900, "only {differ} of 1000 keys differ");
        assert_eq!(js_fnv1a(b""), BASIS);
        // `to_int32` keeps the low 32 bits of large and negative values.
        assert_eq!(to_int32(4_294_967_297.0), 1);
        assert_eq!(to_int32(-1.0), -1);
        assert_eq!(to_int32(2_147_483_648.0), i32::MIN);
    }

    #[test]
    fn code_units_not_bytes() {
        // "é" is one code unit (0xE9), two UTF-8 bytes; an invalid byte is
        // U+FFFD.
        let one = to_int32(f64::from(BASIS ^ 0xe9) * PRIME);
        assert_eq!(js_fnv1a("é".as_bytes()), one);
        let replaced = to_int32(f64::from(BASIS ^ 0xfffd) * PRIME);
        assert_eq!(js_fnv1a(&[0xff]), replaced);
        assert_eq!(js_fnv1a_ordered(b"") ^ 0x8000_0000, BASIS as u32);
    }

    #[test]
    fn sha1_reads_the_first_four_bytes_signed() {
        // SHA-1("abc") = a9993e36 4706816a ba3e2571 7850c26c 9cd0d89d.
        assert_eq!(js_sha1(b"abc"), 0xa999_3e36_u32 as i32);
        assert_eq!(js_sha1_ordered(b"abc"), 0x2999_3e36);
        // An invalid byte is hashed as U+FFFD's UTF-8.
        assert_eq!(js_sha1(&[0xff]), js_sha1("\u{fffd}".as_bytes()));
    }
}
