//! Bob Jenkins' lookup3 `hashlittle` with libmemcached's initial value 13
//! (libmemcached and twemproxy `jenkins`).

const INITVAL: u32 = 13;

/// lookup3 `hashlittle(key, len, 13)`, little-endian reading.
pub fn jenkins(key: &[u8]) -> u32 {
    let start = 0xdead_beef_u32
        .wrapping_add(key.len() as u32)
        .wrapping_add(INITVAL);
    let (mut a, mut b, mut c) = (start, start, start);
    let word = |bytes: &[u8]| {
        bytes
            .iter()
            .enumerate()
            .fold(0u32, |w, (i, &x)| w | u32::from(x) << (8 * i))
    };
    let mut rest = key;
    while rest.len() > 12 {
        a = a.wrapping_add(word(&rest[0..4]));
        b = b.wrapping_add(word(&rest[4..8]));
        c = c.wrapping_add(word(&rest[8..12]));
        mix(&mut a, &mut b, &mut c);
        rest = &rest[12..];
    }
    if rest.is_empty() {
        return c;
    }
    let part = |from: usize| word(&rest[from.min(rest.len())..(from + 4).min(rest.len())]);
    a = a.wrapping_add(part(0));
    b = b.wrapping_add(part(4));
    c = c.wrapping_add(part(8));
    final_mix(&mut a, &mut b, &mut c);
    c
}

fn mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *a = a.wrapping_sub(*c) ^ c.rotate_left(4);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(6);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(8);
    *b = b.wrapping_add(*a);
    *a = a.wrapping_sub(*c) ^ c.rotate_left(16);
    *c = c.wrapping_add(*b);
    *b = b.wrapping_sub(*a) ^ a.rotate_left(19);
    *a = a.wrapping_add(*c);
    *c = c.wrapping_sub(*b) ^ b.rotate_left(4);
    *b = b.wrapping_add(*a);
}

fn final_mix(a: &mut u32, b: &mut u32, c: &mut u32) {
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(14));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(11));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(25));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(16));
    *a = (*a ^ *c).wrapping_sub(c.rotate_left(4));
    *b = (*b ^ *a).wrapping_sub(a.rotate_left(14));
    *c = (*c ^ *b).wrapping_sub(b.rotate_left(24));
}
