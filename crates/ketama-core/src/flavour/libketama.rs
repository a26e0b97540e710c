//! libketama's continuum: `4 * floorf(pct * 40.0 * n)` points per server,
//! from MD5 digests of `"<address>-<k>"`, four little-endian words each.

use crate::continuum::TiePolicy;
use crate::hash::HashAlgorithm;
use crate::placement::Placement;
use crate::placement::points::Md5Points;
use crate::placement::servers::weights;
use crate::placement::{GeneratedPoints, budget};
use crate::search::Search;
use crate::{Error, ServerSpec};

/// The original libketama: MD5 keys and points.
pub static PLACEMENT: Placement =
    Placement::continuum(&[HashAlgorithm::Md5], |servers, _, _| generate(servers));

/// Number of MD5 digests (each giving four points) libketama computes for a
/// server of weight `weight` out of `total` among `servers` servers.
///
/// The original evaluates `floorf(pct * 40.0 * (float)n)` with
/// `pct = (float)w / (float)total`: the product in double precision, narrowed
/// to float before flooring. This differs from the exact
/// `floor(40 * n * w / total)`, e.g. 61 equal servers get 39 digests each.
pub fn digests_per_server(weight: u64, total: u64, servers: usize) -> u32 {
    let pct = weight as f32 / total as f32;
    let product = f64::from(pct) * 40.0 * f64::from(servers as f32);
    (product as f32).floor() as u32
}

/// Generates the libketama points for `servers` (weight 1 where none is given).
pub fn generate(servers: &[ServerSpec]) -> Result<GeneratedPoints, Error> {
    let (weights, total) = weights(servers)?;
    let digests: Vec<u32> = weights
        .iter()
        .map(|&weight| digests_per_server(weight, total, servers.len()))
        .collect();
    let count = budget::check("libketama", digests.iter().map(|&d| u64::from(d) * 4).sum())?;
    let mut points = crate::prefault::vec_with_capacity(count);
    let mut batch = Md5Points::new(&mut points);
    for (index, (server, &digests)) in servers.iter().zip(&digests).enumerate() {
        batch.push_server(&server.address, digests, index as u32);
    }
    batch.finish();
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
    fn float_rule_matches_the_measured_quirks() {
        assert_eq!(
            digests_per_server(1, 61, 61),
            39,
            "61 equal servers get 156 points"
        );
        assert_eq!(digests_per_server(1, 60, 60), 40);
        assert_eq!(
            digests_per_server(512, 7040, 11),
            31,
            "exact arithmetic would give 32"
        );
        assert_eq!(
            digests_per_server(1, 2001, 3),
            0,
            "a tiny weight gets no points"
        );
    }

    #[test]
    fn python_binding_vector() {
        // From libketama's python binding tests: 600/400 gives 320 points.
        let servers = [
            ServerSpec::new("127.0.0.1:11211", 600),
            ServerSpec::new("127.0.0.1:11212", 400),
        ];
        let generated = generate(&servers).unwrap();
        assert_eq!(generated.points.len(), 320);
        let per_server: Vec<usize> = (0..2)
            .map(|s| {
                generated
                    .points
                    .iter()
                    .filter(|&&(_, owner)| owner == s)
                    .count()
            })
            .collect();
        assert_eq!(per_server, vec![192, 128]);
    }
}
