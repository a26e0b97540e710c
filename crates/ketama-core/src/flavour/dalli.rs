//! Ruby dalli 3.0's `Dalli::Ring` (Rails' memcache store), as read from
//! `lib/dalli/ring.rb`, `key_manager.rb` and `protocol/server_config_parser.rb`:
//!
//! * server name `hostname:port` (IPv6 without its brackets, port 11211
//!   when none is written; a unix socket path as written);
//! * `floor(n·160·w / Float(total))` points per server, each the first four
//!   bytes (big-endian) of `SHA1("<name>:<i>")`;
//! * keys hashed with the full CRC-32 (`Zlib.crc32`), after the client's key
//!   preparation ([`prepare_key`]: a key longer than 250 characters becomes
//!   its first 212 characters, `:md5:` and its MD5 hex digest);
//! * lookup: the *last* point ≤ the hash, wrapping to the last point
//!   ([`Search::AtOrBefore`]).
//!
//! Equal points are ordered by Ruby's unstable `sort_by`; here the later
//! server wins them (a server listed twice, or a 32-bit SHA-1 collision).

use std::borrow::Cow;
use std::io::Write;

use md5::{Digest, Md5};
use sha1::Sha1;

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::prepare::Preparation;
use crate::placement::servers::{DEFAULT_PORT, HostPort, weights};
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// Dalli::Ring: CRC-32 keys.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, _| generate(servers));

/// Points per server in an equally weighted ring (`POINTS_PER_SERVER`).
const POINTS_PER_SERVER: u128 = 160;

/// Longest key dalli sends as it is (`MAX_KEY_LENGTH`, in characters).
const MAX_KEY_LENGTH: usize = 250;

/// Characters kept before `:md5:<digest>` (`249 - (5 + 32)`).
const TRUNCATED_PREFIX: usize = 212;

/// Largest integer a Ruby `Float` holds exactly.
const EXACT_FLOAT: u128 = 1 << 53;

/// dalli's key preparation ([`prepare_key`]).
pub static PREPARATION: Preparation = Preparation {
    name: "dalli's digest of keys over 250 characters",
    rule: prepare_key,
};

/// The byte length of each character as Ruby counts the characters of a
/// UTF-8 string: a valid character is one, and so is each byte that starts
/// no valid character.
fn ruby_chars(key: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut at = 0;
    std::iter::from_fn(move || {
        if at >= key.len() {
            return None;
        }
        let len = match key[at] {
            0x00..=0x7f => 1,
            0xc0..=0xdf => 2,
            0xe0..=0xef => 3,
            0xf0..=0xf7 => 4,
            _ => 1,
        };
        let valid = at + len <= key.len() && std::str::from_utf8(&key[at..at + len]).is_ok();
        let step = if valid { len } else { 1 };
        at += step;
        Some(step)
    })
}

/// The key as dalli's `KeyManager#validate_key` hands it to the ring (no
/// namespace): unchanged up to 250 characters, else its first 212
/// characters, `:md5:` and the MD5 hex digest of the whole key.
pub fn prepare_key(key: &[u8]) -> Cow<'_, [u8]> {
    if key.len() <= MAX_KEY_LENGTH || ruby_chars(key).count() <= MAX_KEY_LENGTH {
        return Cow::Borrowed(key);
    }
    let prefix: usize = ruby_chars(key).take(TRUNCATED_PREFIX).sum();
    let mut out = key[..prefix].to_vec();
    out.extend_from_slice(b":md5:");
    for byte in Md5::digest(key) {
        write!(out, "{byte:02x}").expect("writing to a Vec cannot fail");
    }
    Cow::Owned(out)
}

/// The server's `name` as dalli builds it from `hostname[:port]`.
pub fn server_name(address: &[u8]) -> Result<Vec<u8>, Error> {
    if address.starts_with(b"/") {
        if address.contains(&b':') {
            return Err(Error::InvalidArgument(format!(
                "server '{}': a unix socket's weight is not supported here; write the path alone",
                String::from_utf8_lossy(address)
            )));
        }
        return Ok(address.to_vec());
    }
    let bare_v6 = address.starts_with(b"[") && address.ends_with(b"]");
    let has_port = !bare_v6 && (address.starts_with(b"[") || address.contains(&b':'));
    let mut name = if has_port {
        let hp = HostPort::parse(address)?;
        let mut name = hp.host.to_vec();
        write!(name, ":{}", hp.port).expect("writing to a Vec cannot fail");
        name
    } else {
        let host = if bare_v6 {
            &address[1..address.len() - 1]
        } else {
            address
        };
        host.to_vec()
    };
    if !has_port {
        write!(name, ":{DEFAULT_PORT}").expect("writing to a Vec cannot fail");
    }
    Ok(name)
}

/// Points for a server: `((n * 160 * w) / Float(total)).floor`.
pub fn points_per_server(weight: u64, total: u64, servers: usize) -> Result<u64, Error> {
    let product = servers as u128 * POINTS_PER_SERVER * u128::from(weight);
    if product >= EXACT_FLOAT || u128::from(total) >= EXACT_FLOAT {
        return Err(Error::InvalidArgument(format!(
            "dalli: weight {weight} of {total} is too large to be placed exactly (Ruby floats)"
        )));
    }
    Ok((product as f64 / total as f64).floor() as u64)
}

/// Generates dalli's continuum.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let mut counts = Vec::with_capacity(servers.len());
    for &weight in &weights {
        counts.push(points_per_server(weight, total, servers.len())?);
    }
    let all = budget::check("dalli", counts.iter().sum())?;
    let mut points = crate::prefault::vec_with_capacity(all);
    let mut label = Vec::new();
    for (index, (server, &count)) in servers.iter().zip(&counts).enumerate() {
        let name = server_name(&server.address)?;
        for i in 0..count {
            label.clear();
            label.extend_from_slice(&name);
            write!(label, ":{i}").expect("writing to a Vec cannot fail");
            let digest = Sha1::digest(&label);
            let point = u32::from_be_bytes([digest[0], digest[1], digest[2], digest[3]]);
            points.push((point, index as u32));
        }
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::AtOrBefore,
        prepare: Some(&PREPARATION),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_as_dalli_builds_them() {
        for (address, name) in [
            ("10.0.0.1:11212", "10.0.0.1:11212"),
            ("cache", "cache:11211"),
            ("[::1]:11300", "::1:11300"),
            ("[::1]", "::1:11211"),
            ("/run/memcached.sock", "/run/memcached.sock"),
        ] {
            assert_eq!(server_name(address.as_bytes()).unwrap(), name.as_bytes());
        }
        assert!(server_name(b"/run/m.sock:3").is_err());
    }

    #[test]
    fn long_keys_are_cut_by_characters() {
        assert_eq!(prepare_key(&[b'a'; 250]).len(), 250);
        let long = prepare_key(&[b'a'; 251]);
        assert_eq!(long.len(), 212 + 5 + 32);
        assert!(long.starts_with(&[b'a'; 212]) && long[212..].starts_with(b":md5:"));
        // 200 two-byte characters are 400 bytes but 200 characters: kept.
        let wide = "é".repeat(200);
        assert_eq!(&*prepare_key(wide.as_bytes()), wide.as_bytes());
        let wider = "é".repeat(251);
        assert_eq!(
            prepare_key(wider.as_bytes())[..424],
            *"é".repeat(212).as_bytes()
        );
        // As Ruby 3.1 counts broken UTF-8 (String#length).
        for (bytes, chars) in [
            (&b"a\xe3\x81b\xff"[..], 5),
            (b"\xed\xa0\x80", 3),
            (b"\xc0\x80", 2),
            (b"\xf4\x90\x80\x80", 4),
        ] {
            assert_eq!(ruby_chars(bytes).count(), chars);
        }
    }

    #[test]
    fn points_are_floored_over_a_float_total() {
        assert_eq!(points_per_server(1, 3, 3).unwrap(), 160);
        assert_eq!(points_per_server(12, 39, 10).unwrap(), 492);
        assert!(points_per_server(1 << 50, 1 << 50, 100).is_err());
    }
}
