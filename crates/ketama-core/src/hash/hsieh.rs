//! Paul Hsieh's SuperFastHash as twemproxy and libmemcached compute it:
//! initial hash 0; the third byte of a 3-byte tail is read as a
//! sign-extended C `char`, a 1-byte tail as unsigned (as measured against
//! nutcracker with non-ASCII keys).

/// twemproxy's / libmemcached's `hsieh`.
pub fn hsieh(key: &[u8]) -> u32 {
    if key.is_empty() {
        return 0;
    }
    let get16 = |b: &[u8]| u32::from(u16::from_le_bytes([b[0], b[1]]));
    let mut hash = 0u32;
    let mut blocks = key.chunks_exact(4);
    for block in &mut blocks {
        hash = hash.wrapping_add(get16(&block[0..2]));
        let tmp = (get16(&block[2..4]) << 11) ^ hash;
        hash = (hash << 16) ^ tmp;
        hash = hash.wrapping_add(hash >> 11);
    }
    match blocks.remainder() {
        [x, y, z] => {
            hash = hash.wrapping_add(get16(&[*x, *y]));
            hash ^= hash << 16;
            hash ^= (*z as i8 as i32 as u32) << 18;
            hash = hash.wrapping_add(hash >> 11);
        }
        [x, y] => {
            hash = hash.wrapping_add(get16(&[*x, *y]));
            hash ^= hash << 11;
            hash = hash.wrapping_add(hash >> 17);
        }
        [x] => {
            hash = hash.wrapping_add(u32::from(*x));
            hash ^= hash << 10;
            hash = hash.wrapping_add(hash >> 1);
        }
        _ => {}
    }
    hash ^= hash << 3;
    hash = hash.wrapping_add(hash >> 5);
    hash ^= hash << 4;
    hash = hash.wrapping_add(hash >> 17);
    hash ^= hash << 25;
    hash.wrapping_add(hash >> 6)
}
