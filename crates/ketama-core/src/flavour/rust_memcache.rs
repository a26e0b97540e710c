//! The crates.io `memcache` client (0.21, `memcache::Client`,
//! `Client::get_connection`): not a continuum.
//!
//! * a key goes to connection `hash_function(key) as usize % n`, `n` the
//!   servers in the order given to `Client::connect` / `ClientBuilder`; the
//!   default `hash_function` is Rust's `DefaultHasher` of the key as a
//!   `&str` (SipHash-1-3 with keys 0 and 0 of its bytes and a final 0xff
//!   byte, [`rust_str_hash`]), all 64 bits taken modulo `n` (on a 64-bit
//!   target; a 32-bit target's `usize` would keep the low 32 bits);
//! * keys are `&str`: valid UTF-8 (the library hashes any bytes the same
//!   way); the client refuses keys over 250 bytes before hashing them;
//! * no weights (a weight column is ignored), no failover: a key whose
//!   server is down fails.
//!
//! The crate's experimental `memcache::exp` clients route with rendezvous
//! hashing instead (`exp::Rendezvous`); this flavour is `Client`'s.

use std::sync::Arc;

use crate::hash::HashAlgorithm;
use crate::hash::siphash::rust_str_hash;
use crate::placement::Placement;
use crate::placement::hash_pick::{HashPick, modulo};
use crate::placement::per_key::PerKey;

/// `Client`'s placement: `DefaultHasher` of the key modulo the servers.
pub static PLACEMENT: Placement =
    Placement::per_key(&[HashAlgorithm::Siphash13Str], |servers, _options| {
        Ok(Arc::new(placement(servers.len())) as PerKey)
    });

/// `hash % n` over `servers` servers (none: no key has a server).
fn placement(servers: usize) -> HashPick {
    HashPick::new(
        "the Rust memcache client's DefaultHasher modulo the number of servers",
        rust_str_hash,
        modulo,
        servers,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::placement::per_key::PerKeyPlacement;

    #[test]
    fn all_64_bits_are_taken_modulo_the_servers() {
        let placement = placement(7);
        let mut differ = 0;
        for i in 0..1000 {
            let key = format!("key:{i}");
            let hash = rust_str_hash(key.as_bytes());
            let at = placement.locate_up(key.as_bytes(), HashAlgorithm::Siphash13Str);
            assert_eq!(at.unwrap().server_index as u64, hash % 7);
            differ += usize::from(u64::from(hash as u32) % 7 != hash % 7);
        }
        assert!(
            differ > 500,
            "the low 32 bits alone would place {differ} keys alike"
        );
        let down = placement.locate(b"key:1", HashAlgorithm::Siphash13Str, &|_| true);
        assert_eq!(down, None, "a down server's keys fail");
        let none = super::placement(0);
        assert_eq!(none.locate_up(b"key", HashAlgorithm::Siphash13Str), None);
    }
}
