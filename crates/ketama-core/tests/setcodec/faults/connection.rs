//! The faults tests' memcached client: one text-protocol connection that
//! reports every failure, so that a writer can tell an acknowledged write
//! from one whose fate is unknown.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use ketama_core::setcodec::recipe::Reply;

use super::RECONNECT_LIMIT;

/// One memcached text-protocol connection; every failure is an `Err`, so a
/// client can tell an acknowledged write from one whose fate is unknown.
pub(super) struct Connection {
    reader: BufReader<TcpStream>,
}

impl Connection {
    pub(super) fn open(address: &str) -> io::Result<Connection> {
        let stream = TcpStream::connect(address)?;
        // While the server is down, a connect can pick the server's port as
        // its own ephemeral port and connect to itself (TCP simultaneous
        // open), which would keep the restarted server from binding.
        if stream.local_addr()? == stream.peer_addr()? {
            return Err(io::Error::new(
                io::ErrorKind::AddrInUse,
                "connected to itself",
            ));
        }
        stream.set_read_timeout(Some(Duration::from_secs(5)))?;
        stream.set_write_timeout(Some(Duration::from_secs(5)))?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            reader: BufReader::new(stream),
        })
    }

    /// Connects, retrying while the server is down (bounded).
    pub(super) fn open_retrying(address: &str) -> Connection {
        let deadline = Instant::now() + RECONNECT_LIMIT;
        loop {
            match Connection::open(address) {
                Ok(connection) => return connection,
                Err(e) if Instant::now() > deadline => panic!("{address} unreachable: {e}"),
                Err(_) => std::thread::sleep(Duration::from_millis(5)),
            }
        }
    }

    fn line(&mut self) -> io::Result<String> {
        let mut line = String::new();
        if self.reader.read_line(&mut line)? == 0 {
            return Err(io::Error::new(io::ErrorKind::UnexpectedEof, "closed"));
        }
        Ok(line.trim_end().to_string())
    }

    /// `append`/`add`/`cas` (with `cas`); the reply as the recipe reads it,
    /// or an error for a reply that stores nothing the recipe can use
    /// (`SERVER_ERROR out of memory`) or a lost connection.
    pub(super) fn store(
        &mut self,
        verb: &str,
        key: &[u8],
        value: &[u8],
        cas: Option<u64>,
    ) -> io::Result<Reply> {
        let key = std::str::from_utf8(key).unwrap();
        let mut request = match cas {
            Some(cas) => format!("{verb} {key} 0 0 {} {cas}\r\n", value.len()),
            None => format!("{verb} {key} 0 0 {}\r\n", value.len()),
        }
        .into_bytes();
        request.extend_from_slice(value);
        request.extend_from_slice(b"\r\n");
        self.reader.get_mut().write_all(&request)?;
        let reply = self.line()?;
        Ok(match reply.as_str() {
            "STORED" => Reply::Stored,
            "NOT_STORED" => Reply::NotStored,
            "EXISTS" => Reply::Exists,
            "NOT_FOUND" => Reply::NotFound,
            r if r.contains("too large") => Reply::TooLarge,
            other => return Err(io::Error::other(other.to_string())),
        })
    }

    /// Whether `key` is stored, asked with `me` (meta debug), which does not
    /// bump the item in the LRU as a fetch would.
    pub(super) fn exists_without_bumping(&mut self, key: &[u8]) -> bool {
        let key = std::str::from_utf8(key).unwrap();
        let request = format!("me {key}\r\n");
        self.reader
            .get_mut()
            .write_all(request.as_bytes())
            .expect("me");
        let reply = self.line().expect("me reply");
        match reply.split(' ').next() {
            Some("ME") => true,
            Some("EN") => false,
            _ => panic!("unexpected reply to me: {reply}"),
        }
    }

    /// `gets`: the value and its CAS, or `None` on a miss.
    pub(super) fn gets(&mut self, key: &[u8]) -> io::Result<Option<(Vec<u8>, u64)>> {
        let key = std::str::from_utf8(key).unwrap();
        self.reader
            .get_mut()
            .write_all(format!("gets {key}\r\n").as_bytes())?;
        let header = self.line()?;
        if header == "END" {
            return Ok(None);
        }
        let fields: Vec<&str> = header.split(' ').collect();
        if fields.len() != 5 || fields[0] != "VALUE" {
            return Err(io::Error::other(header));
        }
        let length: usize = fields[3].parse().map_err(io::Error::other)?;
        let cas: u64 = fields[4].parse().map_err(io::Error::other)?;
        let mut value = vec![0; length + 2];
        self.reader.read_exact(&mut value)?;
        value.truncate(length);
        if self.line()? != "END" {
            return Err(io::Error::other("no END after the value"));
        }
        Ok(Some((value, cas)))
    }
}
