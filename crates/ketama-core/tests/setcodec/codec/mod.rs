//! The set codec without a server: the research's adversarial inputs
//! (setcodec.md e.1), encoders, compaction, Membase lists, sharding, the
//! recipe state machine, and property tests against simple models.

mod formats;
mod properties;
mod queries;
mod recipes;
mod sharding;

use ketama_core::setcodec::{DecodeOptions, SetErrorKind, decode};

pub(super) fn auto() -> DecodeOptions {
    DecodeOptions::default()
}

pub(super) fn members(value: &[u8]) -> Vec<Vec<u8>> {
    decode(value, &auto())
        .unwrap_or_else(|e| panic!("{value:?}: {e}"))
        .members
        .to_vec()
}

pub(super) fn set(items: &[&str]) -> Vec<Vec<u8>> {
    items.iter().map(|s| s.as_bytes().to_vec()).collect()
}

pub(super) fn error(value: &[u8]) -> (SetErrorKind, usize, usize) {
    let e = decode(value, &auto()).expect_err("value should be rejected");
    (e.kind, e.offset, e.record)
}
