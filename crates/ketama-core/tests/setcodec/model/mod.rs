//! Model checking of the contended-set recipes: a model of memcached's
//! storage commands (get/gets, append, prepend, add, cas, delete; each one
//! atomic, as memcached applies it under the item lock) and an exhaustive
//! exploration of every interleaving of 2-3 clients driven by the
//! library's own state machines (`recipe::Writer`, `recipe::plan_read`,
//! `flip::read`, `flip::plan_flip`), with a client crash allowed at any
//! step. Every reachable state is checked against what the clients were
//! told (acknowledged writes):
//!
//! * **loss**: a member whose last acknowledged write is an add, with no
//!   write of it in flight, reads absent. Must never happen: the test fails
//!   with the path that leads there.
//! * **ghost**: a member whose last acknowledged write is a remove reads
//!   present (a reappearing item).
//! * **duplicate**: a member counted more than once (flipped lists).
//!
//! Reads are checked twice: an atomic snapshot of both lists at every
//! state, and a reader client whose multi-get reads one list after the
//! other (other clients' commands may come in between). At every end
//! state, and again after one more compactor runs alone (the repair),
//! the set must hold exactly the acknowledged writes.

mod explore;
mod memcached;
mod protocols;

use explore::{Findings, explore};
use protocols::{Protocol, Role};

fn report(name: &str, f: &Findings) {
    eprintln!(
        "{name}: {} states, {} transitions, {} end states; ghost states {}, duplicate states {}, \
         reader ghosts {}, end states wrong before the repair {}",
        f.states,
        f.transitions,
        f.end_states,
        f.ghost_states,
        f.duplicate_states,
        f.reader_ghosts,
        f.end_anomalies_before_repair
    );
    let mut phases: Vec<&String> = f.ghost_phases.iter().collect();
    phases.sort();
    for phases in phases.iter().take(4) {
        eprintln!("  e.g. a ghost while {phases}");
    }
}

fn writers(count: usize, ops: usize) -> Vec<Role> {
    (0..count).map(|n| Role::Writer { n, ops }).collect()
}

/// CAS-only compaction of one list: every interleaving of two writers
/// (add then remove each), a compactor and a reader, with one crash.
#[test]
fn cas_only_compaction_loses_no_acknowledged_write() {
    let mut roles = writers(2, 2);
    roles.push(Role::Compactor { rounds: 2 });
    roles.push(Role::Reader);
    let f = explore(Protocol::CasOnly, &roles, 1);
    report(
        "cas-only, 2 writers x 2 writes + compactor x 2 + reader, 1 crash",
        &f,
    );
    assert!(f.states > 1_000, "the exploration is not trivial");
    assert_eq!(f.ghost_states + f.reader_ghosts + f.duplicate_states, 0);
    assert_eq!(f.end_anomalies_before_repair, 0);
}

/// Flipped lists: every interleaving of two writers, a compactor flipping
/// twice (a to b, then back) and a reader, with a crash at any step.
#[test]
fn flipping_loses_no_acknowledged_write_and_never_double_counts() {
    let mut roles = writers(2, 2);
    roles.push(Role::Compactor { rounds: 2 });
    roles.push(Role::Reader);
    let f = explore(Protocol::Flip, &roles, 1);
    report(
        "flip, 2 writers x 2 writes + compactor x 2 + reader, 1 crash",
        &f,
    );
    assert!(f.states > 10_000, "the exploration is not trivial");
    assert_eq!(
        f.duplicate_states, 0,
        "the copy header is never counted twice"
    );
    assert_eq!(f.ghost_states + f.reader_ghosts, 0);
}

/// Two compactors racing each other and a writer, with a crash anywhere:
/// at most one flip wins each round, a half-done flip is finished by the
/// other, and nothing acknowledged is lost.
#[test]
fn racing_compactors_lose_no_acknowledged_write() {
    let mut roles = writers(1, 2);
    roles.push(Role::Compactor { rounds: 2 });
    roles.push(Role::Compactor { rounds: 1 });
    let f = explore(Protocol::Flip, &roles, 1);
    report("flip, 1 writer x 2 writes + 2 compactors, 1 crash", &f);
    assert!(f.states > 1_000);
    assert_eq!(f.duplicate_states, 0);
    assert_eq!(f.ghost_states, 0);
}

/// The checker sees the hole the copy header closes: when reads count both
/// lists whole, the copy is counted twice from the moment it is written,
/// and a remove written then leaves its member present (a reappearing
/// item), until a later flip folds the lists again.
#[test]
fn counting_both_lists_whole_shows_the_manuals_duplicates() {
    let mut roles = writers(2, 2);
    roles.push(Role::Compactor { rounds: 2 });
    let f = explore(Protocol::FlipCountingBothWhole, &roles, 1);
    report(
        "flip read whole (the manual's combined read), 2 writers x 2 writes + compactor x 2, 1 crash",
        &f,
    );
    assert!(f.duplicate_states > 0, "the copy is counted twice");
    assert!(
        f.ghost_states > 0,
        "a remove after the copy leaves its member present"
    );
    assert!(f.end_anomalies_before_repair > 0);
}
