//! Every set decoder (detect, T1, B1, Membase comma/tombstone/plus-minus),
//! strict and salvage, with the invariants of
//! crates/ketama-core/tests/fuzz/decoder_invariants.rs.
#![no_main]

#[path = "../../crates/ketama-core/tests/fuzz/decoder_invariants.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check_decoders(data));
