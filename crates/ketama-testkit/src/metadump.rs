//! What a memcached holds: its keys, read with `lru_crawler metadump all`,
//! to see where a real client stored what it was given.

use std::net::TcpStream;
use std::time::Duration;

use super::Memcached;

impl Memcached {
    /// Every key the server holds, from `lru_crawler metadump all`
    /// (URI-decoded): where a client stored what it was given.
    pub fn keys_held(&self) -> Vec<Vec<u8>> {
        use std::io::{BufRead, BufReader, Write};
        let mut stream = TcpStream::connect(self.address()).expect("connect for metadump");
        stream
            .set_read_timeout(Some(Duration::from_secs(60)))
            .unwrap();
        stream.write_all(b"lru_crawler metadump all\r\n").unwrap();
        let mut reader = BufReader::new(stream);
        let mut keys = Vec::new();
        loop {
            let mut line = Vec::new();
            reader.read_until(b'\n', &mut line).unwrap();
            assert!(!line.is_empty(), "memcached closed the metadump");
            if line.starts_with(b"END") {
                return keys;
            }
            let field = line
                .split(|&b| b == b' ')
                .next()
                .and_then(|f| f.strip_prefix(b"key="))
                .unwrap_or_else(|| panic!("metadump line {:?}", String::from_utf8_lossy(&line)));
            keys.push(uri_decode(field));
        }
    }
}

/// `%XX` escapes decoded (memcached's metadump writes keys so).
fn uri_decode(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i] == b'%' {
            let hex = std::str::from_utf8(&text[i + 1..i + 3]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 3;
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}
