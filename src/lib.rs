//! The C ABI.
//!
//! * [`compat`]: the eight functions and the structs of the original
//!   libketama `ketama.h`, with the same signatures and layouts.
//! * [`ring`]: the modern ring API (`ketama_ring_*`, `ketama_find_server`).
//! * [`hash`]: `ketama_hash_bytes`, the hash family by id.
//! * [`names`]: names, ids and lists of the flavours, hashes and parse modes.
//! * [`set`]: the set codec (`ketama_set_*`).
//! * [`status`]: status codes and the per-thread error message.
//! * `boundary`: the panic boundary and argument checks every export uses;
//!   `handle`: the one cast between each handle type and its Rust value.
//!
//! Conventions of the modern API (after rustls-ffi): fallible functions
//! return a [`status::ketama_status`]; outputs go through trailing
//! out-pointers and are written only on success; byte buffers are passed
//! with their length; every pointer argument is checked for NULL; a panic
//! becomes `KETAMA_ERR_PANIC`, never an abort; every object handed out has a
//! `*_free` function that accepts NULL. Rings are immutable and may be used
//! from many threads at once.

#![allow(non_camel_case_types)]

pub mod batch;
mod boundary;
pub mod compat;
pub mod file_ring;
mod handle;
pub mod hash;
pub mod names;
pub mod ring;
pub mod set;
pub mod status;

#[cfg(test)]
mod abi_tests;
