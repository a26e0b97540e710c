//! A memcached text-protocol client just big enough to drive the
//! migration's step functions: the commands of `migration::Command`, each
//! answered as a `migration::Reply`, a connection error or a timeout being
//! `ReplyKind::Failed` (and the connection dropped, so a CAS unique read on
//! it is never used on another one).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::time::Duration;

use ketama_core::migration::{Action, Command, Migration, ReplyKind};

/// A server's answer, owning the value of a hit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    pub kind: ReplyKind,
    pub value: Vec<u8>,
    pub cas: u64,
}

impl Answer {
    fn of(kind: ReplyKind) -> Answer {
        Answer {
            kind,
            value: Vec::new(),
            cas: 0,
        }
    }
}

/// One connection per server address, opened on first use.
#[derive(Default)]
pub struct Connections {
    open: HashMap<Vec<u8>, BufReader<TcpStream>>,
}

impl Connections {
    /// Sends `action` for `key` (with `value` for storage commands: the
    /// caller's value, the lease or the copy) and reads the answer.
    pub fn run(
        &mut self,
        migration: &Migration,
        action: &Action,
        key: &[u8],
        value: &[u8],
        exptime: u32,
    ) -> Answer {
        let address = migration.address(action).to_vec();
        let answer = self.send(&address, action, key, value, exptime);
        answer.unwrap_or_else(|_| {
            self.open.remove(&address);
            Answer::of(ReplyKind::Failed)
        })
    }

    fn send(
        &mut self,
        address: &[u8],
        action: &Action,
        key: &[u8],
        value: &[u8],
        exptime: u32,
    ) -> std::io::Result<Answer> {
        if !self.open.contains_key(address) {
            let stream = TcpStream::connect(std::str::from_utf8(address).unwrap())?;
            stream.set_read_timeout(Some(Duration::from_secs(2)))?;
            stream.set_write_timeout(Some(Duration::from_secs(2)))?;
            stream.set_nodelay(true)?;
            self.open.insert(address.to_vec(), BufReader::new(stream));
        }
        let conn = self.open.get_mut(address).unwrap();
        let key = std::str::from_utf8(key).expect("ASCII keys");
        let exptime = action.exptime.unwrap_or(exptime);
        let mut request = match action.command {
            Command::Get => format!("get {key}\r\n").into_bytes(),
            Command::Gets => format!("gets {key}\r\n").into_bytes(),
            Command::Set => format!("set {key} 0 {exptime} {}\r\n", value.len()).into_bytes(),
            Command::Add | Command::AddLease => {
                format!("add {key} 0 {exptime} {}\r\n", value.len()).into_bytes()
            }
            Command::CasCopy | Command::CasValue => {
                format!("cas {key} 0 {exptime} {} {}\r\n", value.len(), action.cas).into_bytes()
            }
            Command::Delete => format!("delete {key}\r\n").into_bytes(),
        };
        if !matches!(
            action.command,
            Command::Get | Command::Gets | Command::Delete
        ) {
            request.extend_from_slice(value);
            request.extend_from_slice(b"\r\n");
        }
        conn.get_mut().write_all(&request)?;
        let mut line = String::new();
        conn.read_line(&mut line)?;
        let line = line.trim_end();
        let answer = match line {
            "END" => Answer::of(ReplyKind::Miss),
            "STORED" => Answer::of(ReplyKind::Stored),
            "NOT_STORED" => Answer::of(ReplyKind::NotStored),
            "EXISTS" => Answer::of(ReplyKind::Exists),
            "NOT_FOUND" => Answer::of(ReplyKind::NotFound),
            "DELETED" => Answer::of(ReplyKind::Deleted),
            _ if line.starts_with("VALUE ") => {
                // VALUE <key> <flags> <bytes> [<cas>]
                let fields: Vec<&str> = line.split(' ').collect();
                let bytes: usize = fields[3].parse().map_err(bad)?;
                let cas: u64 = fields.get(4).map_or(Ok(0), |c| c.parse()).map_err(bad)?;
                let mut data = vec![0u8; bytes + 2];
                std::io::Read::read_exact(conn, &mut data)?;
                data.truncate(bytes);
                let mut end = String::new();
                conn.read_line(&mut end)?;
                if end.trim_end() != "END" {
                    return Err(bad(end));
                }
                Answer {
                    kind: ReplyKind::Hit,
                    value: data,
                    cas,
                }
            }
            other => return Err(bad(other)),
        };
        Ok(answer)
    }
}

fn bad(what: impl std::fmt::Debug) -> std::io::Error {
    std::io::Error::other(format!("unexpected memcached answer {what:?}"))
}
