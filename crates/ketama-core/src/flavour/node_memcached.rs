//! The npm `memcached` client (2.2's default `compatibility: 'ketama'`)
//! through its `hashring` 3.2 dependency, as read from their sources:
//!
//! * each server gets `Math.floor(w / total * 40 * n)` MD5 digests (double
//!   precision, in that order), four little-endian words each;
//! * labels `<server>-<i>` with the server string as written, except that a
//!   server whose `server.split(':')[1]` is the number 11211 is labelled by
//!   the text before its first `:` alone (hashring's `default port`);
//! * a weight is `+value || 1` (servers given as `{ "host:port": weight }`),
//!   1 for a string or array list; keys are MD5'd from their UTF-8 bytes;
//! * V8's stable sort and hashring's search: the first of equal points wins.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::points::push_md5_server;
use crate::placement::servers::weights;
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// hashring in ketama compatibility: MD5.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Md5], |servers, _, _| generate(servers));

/// hashring's `vnode count` default.
const VNODES: f64 = 40.0;

/// Largest integer a JavaScript number holds exactly.
const EXACT_NUMBER: u64 = 1 << 53;

/// What JavaScript's `Number(text)` gives for a port field, where it is a
/// finite number (decimal, with blanks around, or `0x`/`0o`/`0b`).
fn js_number(text: &[u8]) -> Option<f64> {
    let text = std::str::from_utf8(text).ok()?.trim();
    if text.is_empty() {
        return Some(0.0);
    }
    let radix = |prefix: &str, radix| {
        text.get(..2)
            .filter(|p| p.eq_ignore_ascii_case(prefix))
            .and_then(|_| u64::from_str_radix(&text[2..], radix).ok())
            .map(|n| n as f64)
    };
    radix("0x", 16)
        .or_else(|| radix("0o", 8))
        .or_else(|| radix("0b", 2))
        .or_else(|| {
            let finite = text
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'E' | b'+' | b'-'));
            finite.then(|| text.parse::<f64>().ok()).flatten()
        })
}

/// The label prefix hashring uses for a server string.
pub fn label_prefix(address: &[u8]) -> &[u8] {
    let mut fields = address.split(|&b| b == b':');
    let host = fields.next().unwrap_or_default();
    match fields.next().and_then(js_number) {
        Some(11211.0) => host,
        _ => address,
    }
}

/// MD5 digests for a server: `Math.floor(w / total * 40 * n)`.
pub fn digests_per_server(weight: u64, total: u64, servers: usize) -> u32 {
    (weight as f64 / total as f64 * VNODES * servers as f64).floor() as u32
}

/// Generates the npm memcached client's continuum.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    if total >= EXACT_NUMBER {
        return Err(Error::InvalidArgument(format!(
            "node-memcached: the weights sum to {total}, past what a JavaScript number holds exactly"
        )));
    }
    let digests: Vec<u32> = weights
        .iter()
        .map(|&weight| digests_per_server(weight, total, servers.len()))
        .collect();
    let count = digests.iter().map(|&d| u64::from(d) * 4).sum();
    let mut points = crate::prefault::vec_with_capacity(budget::check("node-memcached", count)?);
    for (index, (server, &digests)) in servers.iter().zip(&digests).enumerate() {
        push_md5_server(
            label_prefix(&server.address),
            digests,
            index as u32,
            &mut points,
        );
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::AtOrAfter,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_port_drops_from_labels_as_split_reads_it() {
        assert_eq!(label_prefix(b"10.0.0.1:11211"), b"10.0.0.1");
        assert_eq!(label_prefix(b"10.0.0.1:011211"), b"10.0.0.1");
        assert_eq!(label_prefix(b"10.0.0.1:11212"), b"10.0.0.1:11212");
        assert_eq!(label_prefix(b"cache"), b"cache");
        assert_eq!(label_prefix(b"[::1]:11211"), b"[::1]:11211");
        assert_eq!(js_number(b"0x2bcb"), Some(11211.0));
        assert_eq!(js_number(b"db8"), None);
    }

    #[test]
    fn double_precision_floor() {
        assert_eq!(digests_per_server(1, 61, 61), 40);
        assert_eq!(digests_per_server(1, 100, 100), 40);
        assert_eq!(
            digests_per_server(1, 7, 7),
            39,
            "1/7*40*7 is 39.99999999999999"
        );
        assert_eq!(digests_per_server(12, 39, 10), 123);
    }
}
