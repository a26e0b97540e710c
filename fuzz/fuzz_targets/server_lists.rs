//! Every server-list reading (strict, libketama, peer-style, SockIOPool,
//! nginx), whole and fed in pieces, with the invariants of
//! tests/parser_fuzz_support.
#![no_main]

#[path = "../../tests/parser_fuzz_support/mod.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check_server_lists(data));
