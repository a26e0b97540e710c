//! Model checking of the migration protocols: a model of memcached (one key
//! on its old and its new owner; get, gets, add, cas, set and delete, each
//! atomic as memcached applies it) and an exhaustive exploration of every
//! interleaving of 2–3 clients driven by the library's own step functions
//! (`migration::Op`), with clients up to one phase apart (clock skew), the
//! key evicted from either server at any moment, and commands that fail
//! before or after the server applied them.
//!
//! Every read is checked against the history when it returns:
//!
//! * **stale**: it returns a value whose write ended before some write or
//!   delete began that was acknowledged before the read began (a resurrected
//!   delete is the same finding). Must never happen.
//! * **lost** (runs without faults or skew): a read with no write running
//!   beside it returns neither the latest acknowledged write nor a miss
//!   that the phase explains (see `expected_loss`).
//!
//! Two protocols are explored beside the library's, to show that the
//! checker finds what it looks for: mcrouter's `WarmUpRoute` as documented
//! (a miss copies the old value with `add`; sets go to the new owner only;
//! deletes to both) and the library's own protocol with the new owner
//! holding a value from before (a server that was not flushed).

mod explore;
mod memcached;
mod protocols;

use ketama_core::migration::{Mode, OpKind};

use explore::{Findings, Model, Setting};

use OpKind::{Add, Delete, Get, Set};

fn setting(mode: Mode, scripts: &[&[OpKind]]) -> Setting {
    Setting {
        mode,
        scripts: scripts.iter().map(|s| s.to_vec()).collect(),
        skew: true,
        evictions: 1,
        failures: 1,
        naive: false,
        stale_new_owner: false,
    }
}

fn check(setting: Setting, what: &str) -> Findings {
    let findings = Model::new(setting).explore();
    println!(
        "{what}: {} states, {} reads checked, {} stale, {} lost",
        findings.states,
        findings.reads,
        findings.stale.len(),
        findings.lost.len()
    );
    findings
}

fn assert_clean(findings: &Findings) {
    assert!(findings.reads > 0);
    let first = findings.stale.first().or(findings.lost.first());
    assert!(
        first.is_none(),
        "{} stale reads, {} lost writes; the first: {}, after:\n  {}",
        findings.stale.len(),
        findings.lost.len(),
        first.unwrap(),
        findings.trace.as_deref().unwrap_or("")
    );
}

/// The scripts explored: two clients by default (every race of a copy with
/// one write, add or delete, and a read after it), three with
/// `KETAMA_MODEL_FULL=1` (about 33 million states; the figures are in
/// docs/migration.md).
fn scripts(two: &[&[&[OpKind]]], three: &[&[&[OpKind]]]) -> Vec<Vec<Vec<OpKind>>> {
    let full = std::env::var_os("KETAMA_MODEL_FULL").is_some_and(|v| v == "1");
    two.iter()
        .chain(if full { three } else { &[] })
        .map(|clients| clients.iter().map(|ops| ops.to_vec()).collect())
        .collect()
}

fn setting_of(mode: Mode, scripts: Vec<Vec<OpKind>>) -> Setting {
    Setting {
        scripts,
        ..setting(mode, &[])
    }
}

#[test]
fn warm_up_reads_nothing_stale_with_skew_evictions_and_failures() {
    for clients in scripts(
        &[
            &[&[Get, Get], &[Set]],
            &[&[Get, Get], &[Delete]],
            &[&[Get], &[Set, Get]],
            &[&[Get], &[Delete, Get]],
            &[&[Get, Get], &[Add]],
            &[&[Add, Get], &[Get]],
        ],
        &[
            &[&[Get, Get], &[Set], &[Delete]],
            &[&[Get], &[Get], &[Delete]],
            &[&[Get], &[Set, Delete], &[Get]],
            &[&[Get, Get], &[Add], &[Delete]],
            &[&[Add, Get], &[Get], &[Set]],
        ],
    ) {
        let what = format!("warm-up {clients:?}");
        assert_clean(&check(setting_of(Mode::Warmup, clients), &what));
    }
}

#[test]
fn phased_and_gradual_read_nothing_stale_with_skew_evictions_and_failures() {
    for mode in [Mode::Phased, Mode::Gradual] {
        for clients in scripts(
            &[
                &[&[Get, Get], &[Set]],
                &[&[Get], &[Delete, Get]],
                &[&[Add, Get], &[Set]],
            ],
            &[
                &[&[Get, Get], &[Set], &[Delete]],
                &[&[Get], &[Set, Delete], &[Add]],
            ],
        ) {
            let what = format!("{} {clients:?}", mode.name());
            assert_clean(&check(setting_of(mode, clients), &what));
        }
    }
}

#[test]
fn without_faults_or_skew_no_acknowledged_write_is_lost() {
    for mode in [Mode::Warmup, Mode::Phased] {
        for clients in scripts(
            &[
                &[&[Get, Get, Get], &[Set, Delete, Set]],
                &[&[Get, Get], &[Add, Get]],
            ],
            &[
                &[&[Get, Get, Get], &[Set], &[Delete, Set]],
                &[&[Get, Get], &[Add, Get], &[Set]],
            ],
        ) {
            let s = Setting {
                skew: false,
                evictions: 0,
                failures: 0,
                ..setting_of(mode, clients)
            };
            let what = format!("{} without faults {:?}", mode.name(), s.scripts);
            assert_clean(&check(s, &what));
        }
    }
}

#[test]
fn the_checker_finds_what_warm_up_route_and_an_unflushed_server_serve() {
    // WarmUpRoute: a copy racing a delete resurrects it; an eviction on the
    // new owner exposes the old owner's value after a newer set.
    let naive = Setting {
        naive: true,
        failures: 0,
        ..setting(Mode::Warmup, &[&[Get], &[Delete, Get]])
    };
    let findings = check(naive, "WarmUpRoute, get beside delete");
    assert!(
        findings
            .stale
            .iter()
            .any(|f| f.contains("older than delete")),
        "{:?}",
        findings.stale
    );
    let naive = Setting {
        naive: true,
        failures: 0,
        skew: false,
        ..setting(Mode::Warmup, &[&[Set, Get]])
    };
    let findings = check(naive, "WarmUpRoute, set then get with an eviction");
    assert!(
        findings
            .stale
            .iter()
            .any(|f| f.contains("older than write")),
        "{:?}",
        findings.stale
    );
    // The library's protocol over a new owner that was not flushed.
    let unflushed = Setting {
        stale_new_owner: true,
        failures: 0,
        evictions: 0,
        ..setting(Mode::Warmup, &[&[Get], &[Set]])
    };
    let findings = check(unflushed, "an unflushed new owner");
    assert!(!findings.stale.is_empty());
}
