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

/// A `memcache::Client` over servers given by URL, as its users build one.
pub struct Client(memcache::Client);

impl Client {
    /// Builds the client over `urls` (`memcache://host:port`, in order).
    /// The client connects to every server while it is built (it sets each
    /// connection's timeouts), so they must all be up now; a server stopped
    /// afterwards fails its keys, each after `connect_timeout` (the pool
    /// retries a refused connection until then).
    pub fn new(urls: &[String], connect_timeout: Duration) -> Client {
        let mut builder = memcache::Client::builder()
            .with_max_pool_size(1)
            .with_connection_timeout(connect_timeout)
            .with_read_timeout(Duration::from_secs(10))
            .with_write_timeout(Duration::from_secs(10));
        for url in urls {
            builder = builder.add_server(url.as_str()).expect("a memcache:// URL");
        }
        Client(builder.build().expect("build the memcache client"))
    }

    /// Stores a one-byte value under each of `keys` through `Client::set`,
    /// as the client's users do. Keys are `&str` for the client: each must
    /// be UTF-8.
    pub fn store(&self, keys: &[Vec<u8>]) -> Vec<Stored> {
        keys.iter()
            .map(|key| {
                let key = std::str::from_utf8(key).expect("the client takes UTF-8 keys");
                match self.0.set(key, "v", 0) {
                    Ok(()) => Stored::Stored,
                    Err(e) => Stored::Failed(e.to_string()),
                }
            })
            .collect()
    }
}

/// Builds a [`Client`] over `urls` (all up) and stores `keys` through it.
pub fn store(urls: &[String], keys: &[Vec<u8>]) -> Vec<Stored> {
    Client::new(urls, Duration::from_secs(5)).store(keys)
}
