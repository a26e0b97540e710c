//! Structure-aware: ops → T1 and B1 payloads → decode(a ++ b) equals replay,
//! with the check of crates/ketama-core/tests/fuzz/round_trip_invariants.rs.
#![no_main]

#[path = "../../crates/ketama-core/tests/fuzz/round_trip_invariants.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check_round_trip(data));
