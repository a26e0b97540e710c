//! phpredis `RedisArray` (Debian `php8.2-redis`, phpredis 5.3.7,
//! `redis_array_impl.c`), without and with its `consistent` option.
//!
//! * Keys: the hash tag of [`hash_tags::phpredis`] (`{…}`, even an
//!   empty one, found by C string search), then the CRC-32 *register*:
//!   phpredis starts at `0xffffffff` and runs the table steps without the
//!   final complement.
//! * Without `consistent`: server `(crc32 × n) / 0xffffffff` in 64-bit
//!   integers, `crc32` being the register complemented (the CRC-32 proper),
//!   `n` the number of hosts; no weights, host strings not hashed. Placed
//!   here as a ring of one point per host: host `i` owns the CRC-32 values up
//!   to `ceil((i + 1) × 0xffffffff / n) − 1`. phpredis's formula reaches
//!   `n` for the single value `0xffffffff` and reads past its host array
//!   (observed: an empty host name, or PHP running out of memory); the ring
//!   wraps that value to the first host.
//! * With `consistent`: 40 MD5 digests per host of `"<host>-<j>"`, the
//!   host string exactly as given to `RedisArray`, four little-endian points
//!   per digest; sorted by `qsort` (glibc's is stable here, so the earlier
//!   host keeps an equal point) and searched for the first point ≥ the
//!   register, wrapping to the first point. The label is written into a
//!   64-byte buffer: a host over 60 bytes would be cut (and MD5 read past
//!   the label), so it is refused.
//!
//! The name column, when given, is the host string instead of the address.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::GeneratedPoints;
use crate::placement::Placement;
use crate::placement::budget;
use crate::placement::hash_tags;
use crate::placement::points::Md5Points;
use crate::placement::servers::{name_or_address, refuse_weights};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// MD5 digests per host on the `consistent` ring.
const DIGESTS: u32 = 40;

/// Longest host string whose labels fit phpredis's `char host[HOST_NAME_MAX]`
/// (64 bytes with the NUL): `host-39` must be at most 63 bytes.
const MAX_HOST: usize = 60;

/// `new RedisArray($hosts)`: CRC-32 keys over `n` equal ranges.
pub static MODULO: Placement =
    Placement::continuum(&[HashAlgorithm::Crc32], |servers, _, _| ranges(servers));

/// `new RedisArray($hosts, ['consistent' => true])`.
pub static CONSISTENT: Placement =
    Placement::continuum(&[HashAlgorithm::Crc32NoXor], |servers, _, _| {
        consistent(servers)
    });

/// The host ranges of a `RedisArray` without `consistent`.
pub fn ranges(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    refuse_weights(servers, "phpredis RedisArray")?;
    let n = servers.len() as u64;
    budget::check("phpredis RedisArray (one point per host)", n)?;
    let points = (0..n)
        .map(|i| {
            let end = ((i + 1) * u64::from(u32::MAX)).div_ceil(n) - 1;
            (end as u32, i as u32)
        })
        .collect();
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::AtOrAfter,
        prepare: Some(&hash_tags::PHPREDIS_TAG),
    })
}

/// The `consistent` continuum of a `RedisArray`.
pub fn consistent(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    refuse_weights(servers, "phpredis RedisArray")?;
    let count = servers.len() as u64 * u64::from(DIGESTS) * 4;
    let mut points = Vec::with_capacity(budget::check("phpredis RedisArray", count)?);
    let mut batch = Md5Points::new(&mut points);
    for (index, server) in servers.iter().enumerate() {
        let host = name_or_address(server);
        if host.len() > MAX_HOST {
            return Err(Error::InvalidArgument(format!(
                "phpredis RedisArray: host '{}' is {} bytes; with `consistent` phpredis writes \
                 '<host>-<n>' into a 64-byte buffer, so hosts over {MAX_HOST} bytes are cut",
                String::from_utf8_lossy(host),
                host.len()
            )));
        }
        batch.push_server(host, DIGESTS, index as u32);
    }
    batch.finish();
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::FirstWins,
        search: Search::AtOrAfter,
        prepare: Some(&hash_tags::PHPREDIS_TAG),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// phpredis's own arithmetic, `(crc × n) / 0xffffffff`.
    fn phpredis_position(crc: u32, n: u64) -> u64 {
        u64::from(crc) * n / u64::from(u32::MAX)
    }

    #[test]
    fn ranges_equal_the_division() {
        for n in [1u64, 2, 3, 7, 10, 100, 1000] {
            let servers: Vec<ServerSpec> = (0..n)
                .map(|i| ServerSpec::unweighted(format!("h{i}:6379")))
                .collect();
            let points = ranges(&servers).unwrap().points;
            let ring = crate::continuum::Continuum::new(points.clone(), TiePolicy::FirstWins);
            let mut probes = vec![0u32, 1, u32::MAX - 1];
            for &(end, _) in &points {
                probes.extend([end.wrapping_sub(1), end, end.wrapping_add(1)]);
            }
            for crc in probes.into_iter().filter(|&c| c != u32::MAX) {
                let at = ring.locate(crc).unwrap();
                assert_eq!(
                    u64::from(ring.owners()[at]),
                    phpredis_position(crc, n),
                    "n {n} crc {crc:#x}"
                );
            }
            assert_eq!(phpredis_position(u32::MAX, n), n, "past the host array");
        }
    }

    #[test]
    fn long_hosts_and_weights_are_refused() {
        let long = ServerSpec::unweighted("h".repeat(61));
        assert!(
            consistent(&[long])
                .unwrap_err()
                .to_string()
                .contains("64-byte")
        );
        assert!(consistent(&[ServerSpec::unweighted("h".repeat(60))]).is_ok());
        assert!(ranges(&[ServerSpec::new("a:1", 2)]).is_err());
    }
}
