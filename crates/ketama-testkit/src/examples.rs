//! What the bindings' examples and benchmark programs print, checked the
//! same way for every language.

use std::process::Command;
use std::time::Duration;

use crate::{cli, run_with_timeout};

/// Checks a bench program's output: exactly the rows `names`, in order, each
/// `NAME<TAB>SERVERS<TAB>NS_PER_KEY` with a positive number (the shape only;
/// timings belong to scripts/bench.sh, not to the tests).
pub fn assert_bench_rows(stdout: &str, servers: &str, names: &[&str]) {
    let rows: Vec<&str> = stdout
        .lines()
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(fields.len(), 3, "{line}");
            assert_eq!(fields[1], servers, "{line}");
            let ns: f64 = fields[2].parse().unwrap_or_else(|_| panic!("{line}"));
            assert!(ns > 0.0, "{line}");
            fields[0]
        })
        .collect();
    assert_eq!(rows, names, "{stdout}");
}

/// Checks the lines every binding example prints against real memcached
/// servers at `addresses`: keys read back from their servers, the set kept
/// by APPEND/ADD and compacted under CAS with nothing lost, and the
/// placement of `user:0..300` equal to `ketama find --servers`.
pub fn assert_example_output(stdout: &str, addresses: &[String]) {
    for line in [
        "read back 300/300 keys from their servers, 0 found elsewhere",
        "read 77 members from 229 records (152 redundant)\n",
        "after compaction: 77 members in 77 records, none lost\n",
    ] {
        assert!(stdout.contains(line), "missing {line:?} in:\n{stdout}");
    }
    let placed = run_with_timeout(
        Command::new(cli())
            .args(["find", "--servers", &addresses.join(",")])
            .args((0..300).map(|i| format!("user:{i}"))),
        Duration::from_secs(60),
    );
    let placed = String::from_utf8_lossy(&placed.stdout);
    let expected = addresses
        .iter()
        .map(|a| {
            format!(
                "{a}={}",
                placed
                    .lines()
                    .filter(|l| l.ends_with(&format!("\t{a}")))
                    .count()
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        stdout.contains(&format!("placed 300 keys: {expected}\n")),
        "{stdout}\nexpected {expected}"
    );
}
