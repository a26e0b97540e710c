//! Point formulas shared by the continuum flavours: the float weight
//! formula of libmemcached, twemproxy and spymemcached, point labels
//! `"<prefix>-<k>"` and their MD5 digests (four points each, hashed in
//! SIMD lanes), one hashed point per label, and CRC-32 labels
//! `"<prefix><i>"`.

use std::io::Write;

use crate::hash::md5_lanes::{Block, MAX_LANE_MESSAGE, md5_blocks};
use crate::hash::{HashAlgorithm, md5_digest, md5_word};

/// MD5 digests (four points each) for a server under the float formula that
/// libmemcached (KETAMA_WEIGHTED), twemproxy and spymemcached's weighted path
/// share: `floor((float)(pct * 160 / 4 * (float)n + 1e-10))` with
/// `pct = (float)w / (float)total`, all products in single precision.
/// 100 equal servers get 39 digests (156 points), not 40.
pub fn float_weighted_digests(weight: u64, total: u64, servers: usize) -> u32 {
    let pct = weight as f32 / total as f32;
    let product = pct * 160.0f32 / 4.0f32 * servers as f32;
    ((f64::from(product) + 0.000_000_000_1) as f32).floor() as u32
}

/// Writes `"<prefix>-<k>"` into `label` (cleared first).
pub fn label_into(label: &mut Vec<u8>, prefix: &[u8], k: u32) {
    label.clear();
    label.extend_from_slice(prefix);
    write!(label, "-{k}").expect("writing to a Vec cannot fail");
}

/// Appends `digests` MD5 digests (4 points each) of `"<prefix>-<k>"`,
/// k = 0..digests. The labels are hashed several at a time in SIMD lanes
/// (`md5_many`); [`Md5Points`] batches labels across servers.
pub fn push_md5_server(prefix: &[u8], digests: u32, server: u32, points: &mut Vec<(u32, u32)>) {
    let mut batch = Md5Points::new(points);
    batch.push_server(prefix, digests, server);
    batch.finish();
}

/// Labels hashed per batch: a multiple of every lane count.
const MD5_BATCH: usize = 128;

/// Collects `"<prefix>-<k>"` point labels of many servers and hashes them
/// in batches across the SIMD lanes, appending four points per digest in
/// the order the labels were pushed. Call [`Md5Points::finish`] at the end.
/// Each label is written straight into its padded MD5 block; labels too
/// long for one block are hashed one at a time, in order.
pub struct Md5Points<'a> {
    points: &'a mut Vec<(u32, u32)>,
    /// Blocks waiting for `flush`, and the server of each.
    blocks: Vec<Block>,
    servers: Vec<u32>,
}

impl<'a> Md5Points<'a> {
    /// A batcher appending to `points`.
    pub fn new(points: &'a mut Vec<(u32, u32)>) -> Self {
        Md5Points {
            points,
            blocks: Vec::with_capacity(MD5_BATCH),
            servers: Vec::with_capacity(MD5_BATCH),
        }
    }

    /// Queues the labels `"<prefix>-0"` .. `"<prefix>-<digests - 1>"` of
    /// `server`.
    pub fn push_server(&mut self, prefix: &[u8], digests: u32, server: u32) {
        let longest = prefix.len() + 1 + decimal_len(digests.saturating_sub(1));
        if longest > MAX_LANE_MESSAGE {
            self.flush(); // keep the generation order
            let mut label = Vec::with_capacity(longest);
            for k in 0..digests {
                label_into(&mut label, prefix, k);
                let digest = md5_digest(&label);
                self.points
                    .extend((0..4).map(|word| (md5_word(&digest, word), server)));
            }
            return;
        }
        // The label's bytes up to the number, the rest zero: each block is
        // a copy with the number, the 0x80 byte and the length added.
        let mut template: Block = [0; 64];
        template[..prefix.len()].copy_from_slice(prefix);
        template[prefix.len()] = b'-';
        let number_at = prefix.len() + 1;
        for k in 0..digests {
            // Written in place in the queue: one copy of the template.
            self.blocks.push(template);
            let block = self.blocks.last_mut().expect("just pushed");
            let len = number_at + write_decimal(&mut block[number_at..], k);
            block[len] = 0x80;
            block[56..].copy_from_slice(&((len as u64) * 8).to_le_bytes());
            self.servers.push(server);
            if self.blocks.len() == MD5_BATCH {
                self.flush();
            }
        }
    }

    /// Hashes what is queued.
    pub fn finish(mut self) {
        self.flush();
    }

    fn flush(&mut self) {
        let mut words = [[0u32; 4]; MD5_BATCH];
        let words = &mut words[..self.blocks.len()];
        md5_blocks(&self.blocks, words);
        for (words, &server) in words.iter().zip(&self.servers) {
            self.points.extend(words.iter().map(|&word| (word, server)));
        }
        self.blocks.clear();
        self.servers.clear();
    }
}

/// Number of decimal digits of `n`.
fn decimal_len(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |log| log as usize + 1)
}

/// Writes the decimal digits of `n` at the start of `out`; returns how many.
fn write_decimal(out: &mut [u8], n: u32) -> usize {
    let len = decimal_len(n);
    let mut rest = n;
    for at in (0..len).rev() {
        out[at] = b'0' + (rest % 10) as u8;
        rest /= 10;
    }
    len
}

/// Appends `count` single points `hash("<prefix>-<k>")`, k = 0..count.
pub fn push_hashed_server(
    prefix: &[u8],
    count: u32,
    hash: HashAlgorithm,
    server: u32,
    points: &mut Vec<(u32, u32)>,
) {
    let mut label = Vec::with_capacity(prefix.len() + 8);
    for k in 0..count {
        label_into(&mut label, prefix, k);
        points.push((hash.hash(&label), server));
    }
}

/// Appends `count` points `crc32("<prefix><i>")`, i = 0..count, owned by
/// `server` (Predis's `node:i`, redis-rb's `id:i`: `prefix` ends in `:`).
pub fn push_crc32_points(prefix: &[u8], count: u64, server: u32, points: &mut Vec<(u32, u32)>) {
    let mut hashed = crc32fast::Hasher::new();
    hashed.update(prefix);
    let mut digits = Vec::with_capacity(20);
    for i in 0..count {
        digits.clear();
        write!(digits, "{i}").expect("writing to a Vec cannot fail");
        let mut label = hashed.clone();
        label.update(&digits);
        points.push((label.finalize(), server));
    }
}

/// Appends `count` points of the CRC-32 chain of nginx and
/// Cache::Memcached::Fast: point `j` is `crc32(host \0 port LE(point j-1))`,
/// with 0 before the first.
pub fn push_crc32_chain(
    host: &[u8],
    port: &[u8],
    count: u64,
    server: u32,
    points: &mut Vec<(u32, u32)>,
) {
    let mut base = crc32fast::Hasher::new();
    base.update(host);
    base.update(&[0]);
    base.update(port);
    let mut previous = 0u32;
    for _ in 0..count {
        let mut hasher = base.clone();
        hasher.update(&previous.to_le_bytes());
        previous = hasher.finalize();
        points.push((previous, server));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimal_digits_match_formatting() {
        for n in [0u32, 7, 9, 10, 39, 99, 100, 159, 100_000, u32::MAX] {
            let mut out = [0u8; 10];
            let len = write_decimal(&mut out, n);
            assert_eq!(&out[..len], format!("{n}").as_bytes());
            assert_eq!(decimal_len(n), len);
        }
    }

    #[test]
    fn batched_labels_equal_md5_of_each_label_in_order() {
        // Prefixes around the one-block limit: some servers' labels are
        // hashed in lanes, some one by one, and the order must hold.
        let mut points = Vec::new();
        let mut batch = Md5Points::new(&mut points);
        let prefixes: Vec<Vec<u8>> = (40..60)
            .map(|len| vec![b'a' + (len % 26) as u8; len])
            .collect();
        for (server, prefix) in prefixes.iter().enumerate() {
            batch.push_server(prefix, 1 + (server as u32 * 7) % 120, server as u32);
        }
        batch.finish();
        let mut expected = Vec::new();
        let mut label = Vec::new();
        for (server, prefix) in prefixes.iter().enumerate() {
            for k in 0..1 + (server as u32 * 7) % 120 {
                label_into(&mut label, prefix, k);
                let digest = crate::hash::md5_digest(&label);
                expected.extend((0..4).map(|w| (md5_word(&digest, w), server as u32)));
            }
        }
        assert_eq!(points, expected);
    }

    #[test]
    fn float_formula_gives_156_for_100_equal_servers() {
        assert_eq!(float_weighted_digests(1, 100, 100), 39);
        assert_eq!(float_weighted_digests(1, 10, 10), 40);
        assert_eq!(float_weighted_digests(1, 3, 3), 40);
    }
}
