//! Invariants of the server-list readings, shared by the bounded stable run
//! (`server_lists.rs`) and the cargo-fuzz target
//! (`fuzz/fuzz_targets/server_lists.rs`):
//! no reading panics; feeding a file in pieces reads it exactly as feeding it
//! whole; an error names its source; whatever the strict reading accepts the
//! original libketama reading reads identically (addresses of at most 23
//! bytes; longer ones the original refuses); an accepted list builds a ring
//! (or fails with an error, never a panic).

use ketama_core::parser::{self, ParseMode, ServerListParser};
use ketama_core::{Flavour, Ring, RingConfig};

const MODES: [ParseMode; 4] = [
    ParseMode::Strict,
    ParseMode::Libketama,
    ParseMode::Peers,
    ParseMode::SockIoPool,
];

/// Checks every reading of `data`; the first byte picks where the input is
/// split for the piecewise feed.
pub fn check_server_lists(data: &[u8]) {
    let Some((&split_seed, content)) = data.split_first() else {
        return;
    };
    for mode in MODES {
        let whole = parser::parse_server_file(content, "fuzz", mode);
        if let Err(error) = &whole {
            assert!(
                error.to_string().contains("fuzz"),
                "{mode:?}: the error does not name its source: {error}"
            );
        }
        let step = 1 + usize::from(split_seed);
        let mut pieces = ServerListParser::new(mode, "fuzz");
        let fed = content.chunks(step).try_for_each(|c| pieces.feed(c));
        let piecewise = fed.and_then(|()| pieces.finish());
        assert_eq!(piecewise, whole, "{mode:?}: fed in pieces of {step} bytes");
        if let Ok(servers) = whole {
            let flavour = match mode {
                ParseMode::SockIoPool => Flavour::LibketamaJava,
                ParseMode::Peers => Flavour::Twemproxy,
                _ => Flavour::Libketama,
            };
            let config = RingConfig::new(flavour, None);
            if let Ok(ring) = Ring::new(servers, config) {
                let _ = ring.locate(content);
            }
        }
    }
    // Strict also takes addresses longer than the original's 23 bytes
    // (hostnames, IPv6); every other list it takes, the original reads alike.
    if let Ok(strict) = parser::strict::parse(content, "fuzz") {
        let original = parser::libketama::parse(content, "fuzz");
        if strict.iter().all(|s| s.address.len() <= 23) {
            assert_eq!(
                Ok(strict),
                original,
                "strict accepted what libketama reads differently"
            );
        } else {
            let error = original.expect_err("libketama refuses addresses over 23 bytes");
            assert!(
                error
                    .to_string()
                    .starts_with("Address longer than 23 bytes")
            );
        }
    }
    let _ = parser::nginx::parse(content, "fuzz");
}
