//! Multi-lane MD5 against md-5: the input is split into messages of
//! fuzzer-chosen lengths (0..=300 bytes), hashed together in SIMD lanes and
//! one by one; every digest must agree.
#![no_main]

use ketama_core::hash::md5_digest;
use ketama_core::hash::md5_lanes::md5_many;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut messages: Vec<&[u8]> = Vec::new();
    let mut rest = data;
    while let Some((&len, tail)) = rest.split_first() {
        let take = (usize::from(len) * 300 / 255).min(tail.len());
        messages.push(&tail[..take]);
        rest = &tail[take..];
    }
    let mut out = vec![[0u8; 16]; messages.len()];
    md5_many(&messages, &mut out);
    for (message, digest) in messages.iter().zip(&out) {
        assert_eq!(*digest, md5_digest(message));
    }
});
