//! A bounded fuzz run of the server-list readings on the stable toolchain:
//! seed lists in each syntax and random mutations of them through every
//! reading, with the invariants of `server_list_invariants.rs`.
//! `KETAMA_FUZZ_ITERATIONS` sets the number of mutated inputs (default
//! 4,000, about 25 s in a debug build). Coverage-guided fuzzing of the same checks: fuzz/run.sh.

use ketama_testkit::random::{XorShift, mutate};

use crate::server_list_invariants::check_server_lists;

/// Server lists in every syntax the readings take, and their edge cases.
const SEEDS: &[&[u8]] = &[
    b"10.0.0.1:11211\t100\n10.0.0.2:11211\t200\n",
    b"# pool\n\n10.0.0.1:11211 100\r\n  10.0.0.2:11211 \t 7\r\n",
    b"10.0.0.1:11211\t100 \n",
    b"12345678901234567890123\t1\n",
    b"a:1\t9223372036854775807\nb:1\t9223372036854775807\n",
    b"a:1:2, b:2\n# comment\n\nc:3",
    b"- 127.0.0.1:11211:1 cache-a\n[::1]:11212:3\n",
    b"cache1.example.com:11211\t600\ncache2\tx\n",
    b"upstream u {\n hash $key consistent;\n server 10.0.0.1:11211 weight=3;\n server b;\n}\n",
    b"\xEF\xBB\xBF10.0.0.1:11211\t1\n",
    b"\x00\x00\x00\n\t\t\n",
];

/// Bytes that mean something to the readings, inserted by the mutations.
const INTERESTING: &[u8] = b"0123456789:.\t \n\r#-+,[]{};=\x00\xff";

#[test]
fn seeds_keep_the_invariants() {
    for seed in SEEDS {
        for split in [0u8, 1, 6, 125, 255] {
            let mut input = vec![split];
            input.extend_from_slice(seed);
            check_server_lists(&input);
        }
    }
}

#[test]
fn mutated_lists_keep_the_invariants() {
    let iterations: usize = std::env::var("KETAMA_FUZZ_ITERATIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4_000);
    let mut rng = XorShift(0x5EED_0F5E_47E4_5A11);
    let (mut accepted, mut rejected) = (0usize, 0usize);
    for _ in 0..iterations {
        let mut input = vec![rng.next() as u8];
        input.extend_from_slice(SEEDS[rng.below(SEEDS.len())]);
        mutate(
            &mut input,
            SEEDS[rng.below(SEEDS.len())],
            INTERESTING,
            &mut rng,
        );
        check_server_lists(&input);
        match ketama_core::parser::strict::parse(input.get(1..).unwrap_or_default(), "fuzz") {
            Ok(_) => accepted += 1,
            Err(_) => rejected += 1,
        }
    }
    eprintln!("fuzz: {iterations} mutated lists, strict accepted {accepted}, rejected {rejected}");
    assert!(
        iterations == 0 || (accepted > 0 && rejected > 0),
        "mutations should produce both accepted and rejected lists"
    );
}
