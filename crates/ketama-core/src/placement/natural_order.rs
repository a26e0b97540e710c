//! Natural order as `github.com/facette/natsort` computes it (`Compare`,
//! `Sort`), the order Grafana dskit's and Thanos' jump-hash selectors put
//! their servers in before a key picks one:
//!
//! * a name is cut into runs of ASCII digits and runs of other bytes
//!   (`(\d+|\D+)`; a byte ≥ 0x80 is not a digit);
//! * two names compare run by run: two digit runs as integers
//!   (`strconv.Atoi`, so `011211` equals `11211`), any other pair as
//!   bytes; at the first run that differs the smaller name comes first;
//!   a name whose runs all equal the other's first runs comes first.
//!
//! `Compare` says "less" both ways for two names that are equal run by run
//! (`a1` and `a01`, a name and itself), and a digit run too long for a
//! 64-bit int is compared as bytes against every other run, which is no
//! order at all; where such names sit after Go's `sort.Sort` depends on its
//! sorting algorithm's internals. [`natural_order`] refuses both (a name
//! listed twice, byte for byte, is fine: its places are alike).

use std::cmp::Ordering;

use crate::Error;

/// The runs of `name`: ASCII digits, and everything else.
fn runs(name: &[u8]) -> impl Iterator<Item = &[u8]> {
    name.chunk_by(|a, b| a.is_ascii_digit() == b.is_ascii_digit())
}

/// A digit run as Go's `strconv.Atoi` reads it: `None` past `i64::MAX`
/// (and for a run of other bytes).
fn number(run: &[u8]) -> Option<i64> {
    if !run.first()?.is_ascii_digit() {
        return None;
    }
    run.iter().try_fold(0i64, |n, &d| {
        n.checked_mul(10)?.checked_add(i64::from(d - b'0'))
    })
}

/// `natsort.Compare(a, b)`: true when `a` comes before `b` (and for two
/// names equal run by run, both ways).
pub fn natsort_less(a: &[u8], b: &[u8]) -> bool {
    let (a_runs, b_runs): (Vec<&[u8]>, Vec<&[u8]>) = (runs(a).collect(), runs(b).collect());
    for (i, &run_a) in a_runs.iter().enumerate() {
        let Some(&run_b) = b_runs.get(i) else {
            return false;
        };
        let same = match (number(run_a), number(run_b)) {
            (Some(x), Some(y)) if x != y => return x < y,
            (Some(_), Some(_)) => true,
            _ if run_a != run_b => return run_a < run_b,
            _ => true,
        };
        debug_assert!(same);
        if i == a_runs.len() - 1 {
            return true;
        }
        if i == b_runs.len() - 1 {
            return false;
        }
    }
    false
}

/// The indices of `names` in natural order, as `natsort.Sort` leaves
/// them; names listed twice keep their list order. Fails, naming them,
/// on two different names equal run by run and on a digit run past
/// `i64::MAX`, whose places `natsort.Sort` leaves to Go's sort.
pub fn natural_order(names: &[&[u8]], peer: &str) -> Result<Vec<usize>, Error> {
    for name in names {
        if let Some(run) = runs(name).find(|r| r[0].is_ascii_digit() && number(r).is_none()) {
            return Err(Error::InvalidArgument(format!(
                "{peer}: server '{}' has the number {} in its name, too long for natural \
                 order to compare (its place would depend on Go's sort)",
                String::from_utf8_lossy(name),
                String::from_utf8_lossy(run)
            )));
        }
    }
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&x, &y| {
        let (a, b) = (names[x], names[y]);
        if a == b {
            Ordering::Equal
        } else if natsort_less(a, b) {
            Ordering::Less
        } else {
            Ordering::Greater
        }
    });
    for pair in order.windows(2) {
        let (a, b) = (names[pair[0]], names[pair[1]]);
        if a != b && natsort_less(b, a) {
            return Err(Error::InvalidArgument(format!(
                "{peer}: servers '{}' and '{}' are equal in natural order (numbers with \
                 leading zeros?): their order would depend on Go's sort",
                String::from_utf8_lossy(a),
                String::from_utf8_lossy(b)
            )));
        }
    }
    Ok(order)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(names: &[&str]) -> Vec<String> {
        let bytes: Vec<&[u8]> = names.iter().map(|n| n.as_bytes()).collect();
        natural_order(&bytes, "test")
            .unwrap()
            .into_iter()
            .map(|i| names[i].to_string())
            .collect()
    }

    #[test]
    fn numbers_compare_as_numbers() {
        assert_eq!(
            sorted(&[
                "memcached-10:11211",
                "memcached-9:11211",
                "memcached-1:11211"
            ]),
            [
                "memcached-1:11211",
                "memcached-9:11211",
                "memcached-10:11211"
            ]
        );
        assert_eq!(
            sorted(&["b", "a1", "a", "a1b", "a-"]),
            ["a", "a1", "a1b", "a-", "b"]
        );
        assert!(
            natsort_less(b"x", b"x"),
            "Compare says less for equal names"
        );
        assert!(!natsort_less(b"", b"x") && !natsort_less(b"x", b""));
    }

    #[test]
    fn names_whose_order_go_leaves_to_its_sort_are_refused() {
        let err = natural_order(&[b"h:011211", b"h:11211"], "p").unwrap_err();
        assert!(err.to_string().contains("equal in natural order"), "{err}");
        let long = natural_order(&[b"h99999999999999999999", b"h1"], "p").unwrap_err();
        assert!(long.to_string().contains("too long"), "{long}");
        assert_eq!(natural_order(&[b"a", b"b", b"a"], "p").unwrap(), [0, 2, 1]);
    }
}
