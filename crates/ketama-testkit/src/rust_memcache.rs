//! The crates.io `memcache` client (the version this package depends on)
//! as the `rust-memcache` flavour's peer: a `memcache::Client` over real
//! servers stores keys wherever it places them, and the test reads back
//! where each one went (`Memcached::keys_held`).

use std::time::Duration;

/// What the client answered for one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stored {
    /// `set` succeeded.
    Stored,
    /// `set` failed: the client's error, as it prints it.
    Failed(String),
}

/// Builds a `memcache::Client` over `urls` (`memcache://host:port`, in
/// order; no connection is opened before a key needs one) and stores a
/// one-byte value under each of `keys` through `Client::set`, as the
/// client's users do. Keys are `&str` for the client: each must be UTF-8.
pub fn store(urls: &[String], keys: &[Vec<u8>]) -> Vec<Stored> {
    let mut builder = memcache::Client::builder()
        .with_min_idle_conns(0)
        .with_connection_timeout(Duration::from_millis(500))
        .with_read_timeout(Duration::from_secs(10))
        .with_write_timeout(Duration::from_secs(10));
    for url in urls {
        builder = builder.add_server(url.as_str()).expect("a memcache:// URL");
    }
    let client = builder.build().expect("build the memcache client");
    keys.iter()
        .map(|key| {
            let key = std::str::from_utf8(key).expect("the client takes UTF-8 keys");
            match client.set(key, "v", 0) {
                Ok(()) => Stored::Stored,
                Err(e) => Stored::Failed(e.to_string()),
            }
        })
        .collect()
}
