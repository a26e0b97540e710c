//! Structure-aware: ops → T1 and B1 payloads → decode(a ++ b) equals replay.
#![no_main]

#[path = "../../tests/setcodec_fuzz_support/mod.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check_round_trip(data));
