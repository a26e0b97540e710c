//! libketama's own Java port (`java_ketama/SockIOPool.java`, Last.fm's patch
//! of Greg Whalin's memcached client), as read from that class:
//!
//! * the total weight is a Java `int` sum (wrapping); `initialize()` adds the
//!   weights once more when that sum is ≤ 0;
//! * a server gets `Math.floor((double)(40·n·w) / (double)total)` MD5
//!   digests, the product `40·n·w` an `int` that wraps for large weights
//!   (0 or negative → no points);
//! * labels `server + "-" + j` as the address was written, four little-endian
//!   words per digest (as libketama);
//! * a `TreeMap.put` per point, so a later server replaces an earlier one on
//!   an equal point; lookup `ceilingKey`, else `firstKey`; keys are MD5'd
//!   from their bytes (`getBytes()` on a UTF-8 JVM).
//!
//! Weights are Java ints: a weight above `i32::MAX` is an error, and so is a
//! list on which the class would divide by a total of 0 (it loops forever or
//! throws) or generate more than [`budget::MAX_POINTS`] (2^24) points.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::parser::ParseMode;
use crate::placement::Placement;
use crate::placement::points::push_md5_server;
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// libketama's Java port: MD5, and its own `SERVER<TAB>WEIGHT` files.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Md5], |servers, _, _| generate(servers))
        .with_syntax(ParseMode::SockIoPool, ParseMode::SockIoPool);

/// Each server's weight as a Java `int` (1 where none is given).
fn java_weights(servers: &[ServerSpec]) -> Result<Vec<i32>, Error> {
    servers
        .iter()
        .map(|s| {
            let weight = s.weight.unwrap_or(1);
            i32::try_from(weight)
                .ok()
                .filter(|&w| w > 0)
                .ok_or_else(|| {
                    Error::InvalidArgument(format!(
                        "server '{}': weight {weight} is not a positive Java int (SockIOPool weights are Integer)",
                        String::from_utf8_lossy(&s.address)
                    ))
                })
        })
        .collect()
}

/// The total weight `initialize()` divides by: the wrapping `int` sum that
/// `setServersAndWeights` keeps, plus the sum once more when it is ≤ 0.
pub fn total_weight(weights: &[i32]) -> i32 {
    let sum = weights.iter().fold(0i32, |t, &w| t.wrapping_add(w));
    if sum <= 0 { sum.wrapping_add(sum) } else { sum }
}

/// MD5 digests (four points each) for a server of weight `weight` among
/// `servers` servers of total weight `total`: `floor((double)(40*n*w) /
/// (double)total)` with the product in wrapping `int` arithmetic, and none
/// when that is not positive. `None` when `total` is 0 and the product
/// positive (the class would loop without end).
pub fn digests_per_server(weight: i32, total: i32, servers: usize) -> Option<u64> {
    let product = 40i32.wrapping_mul(servers as i32).wrapping_mul(weight);
    let factor = (f64::from(product) / f64::from(total)).floor();
    if factor.is_infinite() && factor > 0.0 {
        return None;
    }
    // NaN (0/0) and negative factors run the loop zero times.
    Some(if factor > 0.0 { factor as u64 } else { 0 })
}

/// Generates SockIOPool's continuum.
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let weights = java_weights(servers)?;
    let total = total_weight(&weights);
    let mut counts = Vec::with_capacity(servers.len());
    let mut all = 0u64;
    for (server, &weight) in servers.iter().zip(&weights) {
        let digests = digests_per_server(weight, total, servers.len()).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "the weights sum to 0 as a Java int: SockIOPool would loop forever on server '{}'",
                String::from_utf8_lossy(&server.address)
            ))
        })?;
        all = all.saturating_add(digests.saturating_mul(4));
        counts.push(digests);
    }
    // An overflowed int product over a negative total can ask for billions.
    let peer = format!("SockIOPool (int total weight {total})");
    let mut points = crate::prefault::vec_with_capacity(budget::check(&peer, all)?);
    for (index, (server, &digests)) in servers.iter().zip(&counts).enumerate() {
        push_md5_server(&server.address, digests as u32, index as u32, &mut points);
    }
    Ok(GeneratedPoints {
        points,
        ties: TiePolicy::LastWins,
        search: Search::AtOrAfter,
        prepare: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sixty_one_equal_servers_get_forty_digests() {
        assert_eq!(digests_per_server(1, 61, 61), Some(40));
        assert_eq!(digests_per_server(2, 7, 3), Some(34));
    }

    #[test]
    fn the_int_product_wraps() {
        // 40·3·20,000,000 = 2,400,000,000 wraps to -1,894,967,296: no points.
        assert_eq!(digests_per_server(20_000_000, 20_000_002, 3), Some(0));
        // 40·2·53,687,092 = 4,294,967,360 wraps to 64.
        assert_eq!(digests_per_server(53_687_092, 53_687_093, 2), Some(0));
        assert_eq!(digests_per_server(53_687_092, 1, 2), Some(64));
    }

    #[test]
    fn a_total_that_wraps_is_summed_twice() {
        assert_eq!(total_weight(&[1, 2, 3]), 6);
        let wrapped = i32::MAX.wrapping_add(2);
        assert_eq!(total_weight(&[i32::MAX, 2]), wrapped.wrapping_add(wrapped));
        assert_eq!(total_weight(&[i32::MAX, 1]), 0);
        assert!(digests_per_server(1, 0, 2).is_none());
    }
}
