//! Bounded fuzz runs on the stable toolchain: seeds and random mutations
//! through every server-list reading and every set decoder, with the same
//! invariants the cargo-fuzz targets of `fuzz/` check (coverage-guided,
//! `fuzz/run.sh`). `KETAMA_FUZZ_ITERATIONS` sets the number of mutated
//! inputs of each run.

mod decoder_invariants;
mod round_trip_invariants;
mod server_list_invariants;
mod server_lists;
mod setcodec;
