//! The point budget: the most points (or buckets, or list entries) one
//! placement may hold, so that a short server list with large weights or
//! many points per server cannot make the library allocate without bound.
//! Every build counts what it will hold and asks [`check`] before it
//! allocates.

use crate::Error;

/// Most points a placement may hold: 2^24 (64 MiB of points and owners).
pub const MAX_POINTS: u64 = 1 << 24;

/// `points` as a length, or an error naming the `peer` and the count when
/// it is more than [`MAX_POINTS`].
pub fn check(peer: &str, points: u64) -> Result<usize, Error> {
    if points > MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "{peer}: the servers would place {points} points, more than {MAX_POINTS}"
        )));
    }
    Ok(points as usize)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_names_the_peer_and_the_count() {
        assert_eq!(check("peer", MAX_POINTS), Ok(1 << 24));
        assert!(check("peer", MAX_POINTS + 1).is_err());
        assert_eq!(
            check("peer", u64::MAX).unwrap_err().to_string(),
            "peer: the servers would place 18446744073709551615 points, more than 16777216"
        );
    }
}
