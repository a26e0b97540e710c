//! What a memcached holds: its keys, read with `lru_crawler metadump all`,
//! to see where a real client stored what it was given; and keys stored on
//! it directly, to give it something to hold.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::Memcached;

impl Memcached {
    /// The server's `lru_crawler metadump all` listing, as it sends it
    /// (`key=… exp=…` lines, `END` last).
    pub fn metadump(&self) -> Vec<u8> {
        let mut stream = TcpStream::connect(self.address()).expect("connect for metadump");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        stream.write_all(b"lru_crawler metadump all\r\n").unwrap();
        let mut reader = BufReader::new(stream);
        let mut listing = Vec::new();
        loop {
            let mut line = Vec::new();
            reader.read_until(b'\n', &mut line).unwrap();
            assert!(!line.is_empty(), "memcached closed the metadump");
            listing.extend_from_slice(&line);
            if line.starts_with(b"END") {
                return listing;
            }
        }
    }

    /// Every key the server holds, from its metadump (the escapes decoded by
    /// the library's reader of listings).
    pub fn keys_held(&self) -> Vec<Vec<u8>> {
        ketama_core::migration::plan::metadump_keys(&self.metadump()).expect("a metadump listing")
    }

    /// Stores `value` under each of `keys` (`set`, no expiry), pipelined.
    pub fn store(&self, keys: &[Vec<u8>], value: &[u8]) {
        let mut stream = TcpStream::connect(self.address()).expect("connect to store");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        let mut request = Vec::new();
        for key in keys {
            request.extend_from_slice(b"set ");
            request.extend_from_slice(key);
            request.extend_from_slice(format!(" 0 0 {}\r\n", value.len()).as_bytes());
            request.extend_from_slice(value);
            request.extend_from_slice(b"\r\n");
        }
        stream.write_all(&request).unwrap();
        let mut reader = BufReader::new(stream);
        for key in keys {
            let mut line = String::new();
            reader.read_line(&mut line).unwrap();
            assert_eq!(line, "STORED\r\n", "set {}", String::from_utf8_lossy(key));
        }
    }
}
