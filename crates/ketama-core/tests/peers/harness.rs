//! The comparison every module of this binary reports through
//! (`ketama_testkit::harness`) fails on a single differing key or
//! continuum point, and names it.

use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};
use ketama_testkit::harness::{self, Answer, Case};

fn ring() -> Ring {
    let servers = (1..=3)
        .map(|i| ServerSpec::unweighted(format!("10.0.0.{i}:11211")))
        .collect();
    Ring::new(servers, RingConfig::flavour(Flavour::Libketama)).unwrap()
}

fn keys() -> Vec<Vec<u8>> {
    (0..100).map(|i| format!("key:{i}").into_bytes()).collect()
}

/// What the library answers, as a client that agrees would.
fn agreeing() -> Answer {
    let ring = ring();
    let c = ring.continuum();
    Answer {
        servers: keys()
            .iter()
            .map(|k| ring.locate(k).map(|at| at.server_index))
            .collect(),
        continuum: Some(
            c.points()
                .iter()
                .copied()
                .zip(c.owners().iter().copied())
                .collect(),
        ),
    }
}

/// The panic message of `compare` over one case answered with `answer`.
fn failure(answer: Answer) -> String {
    let table = [Case::new("3 servers", (), keys())];
    let run = std::panic::catch_unwind(|| {
        harness::compare("libketama", &table, |_| vec![answer], |_| ring())
    });
    let panic = run.expect_err("the harness accepted a difference");
    panic.downcast_ref::<String>().cloned().unwrap_or_default()
}

#[test]
fn the_harness_passes_an_agreeing_client() {
    let table = [Case::new("3 servers", (), keys())];
    let compared = harness::compare("libketama", &table, |_| vec![agreeing()], |_| ring());
    assert_eq!(compared, 100);
}

#[test]
fn the_harness_fails_on_one_differing_key_and_names_it() {
    let mut answer = agreeing();
    let moved = answer.servers[42].map(|s| (s + 1) % 3);
    answer.servers[42] = moved;
    let message = failure(answer);
    assert!(
        message.contains("libketama | 3 servers | 1 of 100 keys differ")
            && message.contains("\"key:42\""),
        "{message}"
    );
}

#[test]
fn the_harness_fails_on_one_differing_point() {
    let mut answer = agreeing();
    let continuum = answer.continuum.as_mut().unwrap();
    continuum[7].1 = (continuum[7].1 + 1) % 3;
    let message = failure(answer);
    assert!(
        message.contains("the continuum differs") && message.contains("at entry Some(7)"),
        "{message}"
    );
}
