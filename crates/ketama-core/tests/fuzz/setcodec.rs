//! A bounded fuzz run on the stable toolchain: the seed corpus
//! (fuzz/corpus/decoders, the research's adversarial list) and random
//! mutations of it (bit flips, byte insertions and deletions, splices,
//! truncations) through every decoder, with the invariants of
//! `decoder_invariants.rs` and `round_trip_invariants.rs`. `KETAMA_FUZZ_ITERATIONS` sets the number of
//! mutated inputs (default 30,000). Coverage-guided fuzzing of the same
//! checks runs with cargo-fuzz in fuzz/.

use ketama_testkit::random::{XorShift, mutate};

use crate::decoder_invariants::check_decoders;
use crate::round_trip_invariants::check_round_trip;

fn corpus() -> Vec<Vec<u8>> {
    let dir = ketama_testkit::repo_root().join("fuzz/corpus/decoders");
    let mut seeds: Vec<Vec<u8>> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{dir:?}: {e}"))
        .map(|entry| std::fs::read(entry.unwrap().path()).unwrap())
        .collect();
    seeds.sort();
    assert!(seeds.len() >= 30, "the seed corpus is missing");
    seeds
}

/// Bytes that mean something to the readings, inserted by the mutations.
const INTERESTING: &[u8] = &[
    b'+', b'-', b' ', b'\n', b',', b'|', 0x00, 0x7F, 0x80, 0xA1, 0xA2, 0xFF,
];

#[test]
fn seeds_pass_every_decoder() {
    for seed in corpus() {
        for selector in 0..6u8 {
            let mut input = seed.clone();
            input[0] = selector;
            check_decoders(&input);
        }
        check_round_trip(&seed);
    }
}

#[test]
fn mutated_inputs_keep_the_invariants() {
    let iterations: usize = std::env::var("KETAMA_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(30_000);
    let seeds = corpus();
    let mut rng = XorShift(0x5EED_CAFE_F00D_1234);
    let mut rejected = 0;
    for _ in 0..iterations {
        let mut input = seeds[rng.below(seeds.len())].clone();
        let other = &seeds[rng.below(seeds.len())];
        mutate(&mut input, other, INTERESTING, &mut rng);
        check_decoders(&input);
        check_round_trip(&input);
        if !input.is_empty()
            && ketama_core::setcodec::decode(&input[1..], &Default::default()).is_err()
        {
            rejected += 1;
        }
    }
    eprintln!("fuzz: {iterations} mutated inputs, {rejected} rejected by the auto decoder");
    assert!(
        iterations == 0 || (rejected > 0 && rejected < iterations),
        "mutations should produce both valid and invalid values"
    );
}
