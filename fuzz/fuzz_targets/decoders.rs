//! Every set decoder (detect, T1, B1, Membase comma/tombstone/plus-minus),
//! strict and salvage, with the invariants of tests/setcodec_fuzz_support.
#![no_main]

#[path = "../../tests/setcodec_fuzz_support/mod.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check_decoders(data));
