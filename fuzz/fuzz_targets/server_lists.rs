//! Every server-list reading (strict, libketama, peer-style, SockIOPool,
//! nginx), whole and fed in pieces, with the invariants of
//! crates/ketama-core/tests/fuzz/server_list_invariants.rs.
#![no_main]

#[path = "../../crates/ketama-core/tests/fuzz/server_list_invariants.rs"]
mod check;

libfuzzer_sys::fuzz_target!(|data: &[u8]| check::check_server_lists(data));
