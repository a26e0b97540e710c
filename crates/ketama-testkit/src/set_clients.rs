//! A set client for the tests: drives the library's recipe (append → add →
//! bounded retries → probe; read → decode → compact with CAS keeping the
//! TTL) over a real memcached with the `memcache` crate's meta client.

pub mod flip_client;

use std::time::Duration;

use ketama_core::setcodec::recipe::{self, Reply, WriteAction, WriteOutcome, Writer};
use ketama_core::setcodec::{
    CompactionPolicy, DecodeOptions, DecodedSet, Format, Op, SetError, encode,
};
use memcache::exp::{Error as McError, Meta, MetaClient, MutationStatus};

/// What a read did.
#[derive(Debug)]
pub struct ReadResult {
    /// The decoded set.
    pub set: DecodedSet,
    /// `Some(true)` when a compaction was written, `Some(false)` when its
    /// CAS lost (another client changed the value), `None` when none was due.
    pub compacted: Option<bool>,
}

/// One connection's worth of set operations.
pub struct SetClient {
    pub mc: MetaClient,
}

fn store_reply(result: Result<memcache::exp::MutationResult, McError>) -> Reply {
    match result {
        Ok(r) => match r.status {
            MutationStatus::Applied => Reply::Stored,
            MutationStatus::NotFound | MutationStatus::AlreadyExists => Reply::NotStored,
            MutationStatus::CasMismatch => Reply::Exists,
            other => panic!("unexpected store status {other:?}"),
        },
        Err(McError::Server(message)) if message.contains("too large") => Reply::TooLarge,
        Err(e) => panic!("memcached error: {e}"),
    }
}

impl SetClient {
    /// Connects to `address` (`127.0.0.1:PORT`) with 10 s I/O timeouts.
    pub fn connect(address: &str) -> SetClient {
        let mc = MetaClient::builder()
            .io_timeout(Some(Duration::from_secs(10)))
            .connect_timeout(Some(Duration::from_secs(5)))
            .connect(address.to_string())
            .expect("connect to memcached");
        SetClient { mc }
    }

    /// Appends (or creates, with `ttl`) one payload through the recipe.
    pub fn write_payload(
        &self,
        key: &[u8],
        op: Op,
        payload: &[u8],
        ttl: u32,
    ) -> Result<WriteOutcome, SetError> {
        let mut writer = Writer::new(op, recipe::DEFAULT_MAX_RETRIES);
        let mut action = writer.first();
        for _step in 0..32 {
            let reply = match action {
                WriteAction::Done(outcome) => return Ok(outcome),
                WriteAction::Append => store_reply(self.mc.set(key, payload).append().send()),
                WriteAction::Add => {
                    store_reply(self.mc.set(key, payload).add().ttl_raw(ttl).send())
                }
                WriteAction::Probe => {
                    if self
                        .mc
                        .get(key)
                        .without_value()
                        .send()
                        .expect("probe")
                        .hit()
                    {
                        Reply::Exists
                    } else {
                        Reply::NotFound
                    }
                }
            };
            action = writer.on_reply(reply)?;
        }
        panic!("the recipe did not finish within 32 steps");
    }

    /// Encodes and writes one batch.
    pub fn write<M: AsRef<[u8]>>(
        &self,
        key: &[u8],
        op: Op,
        members: &[M],
        format: Format,
        ttl: u32,
    ) -> Result<WriteOutcome, SetError> {
        let payload = encode(op, members, format, 250)?;
        self.write_payload(key, op, &payload, ttl)
    }

    /// The raw value with CAS and remaining TTL, or `None` on a miss.
    pub fn fetch(&self, key: &[u8]) -> Option<(Vec<u8>, u64, i64)> {
        let got = self
            .mc
            .get(key)
            .meta(Meta::NONE.cas().ttl())
            .send()
            .expect("mg");
        if !got.hit() {
            return None;
        }
        Some((
            got.value.unwrap_or_default(),
            got.item.cas.expect("cas"),
            got.item.ttl.expect("ttl"),
        ))
    }

    /// Reads, decodes and compacts under `policy` (with CAS and the remaining TTL).
    pub fn read(
        &self,
        key: &[u8],
        policy: &CompactionPolicy,
        force: bool,
    ) -> Result<ReadResult, SetError> {
        let Some((value, cas, ttl)) = self.fetch(key) else {
            return Ok(ReadResult {
                set: DecodedSet::empty(),
                compacted: None,
            });
        };
        let plan = recipe::plan_read(
            &value,
            cas,
            Some(ttl),
            &DecodeOptions::default(),
            policy,
            force,
        )?;
        let compacted = plan.compaction.map(|write| {
            let result = self
                .mc
                .set(key, &write.value)
                .compare_cas(write.cas)
                .ttl_raw(write.exptime.expect("the remaining TTL is known"))
                .send();
            store_reply(result) == Reply::Stored
        });
        Ok(ReadResult {
            set: plan.set,
            compacted,
        })
    }

    /// Appends `payload` only if the value's CAS is still `cas` (SPOP's write).
    pub fn append_under_cas(&self, key: &[u8], payload: &[u8], cas: u64) -> Reply {
        store_reply(self.mc.set(key, payload).append().compare_cas(cas).send())
    }

    /// Stores `value` unconditionally with `ttl` (a *STORE destination).
    pub fn set_value(&self, key: &[u8], value: &[u8], ttl: u32) {
        assert_eq!(
            store_reply(self.mc.set(key, value).ttl_raw(ttl).send()),
            Reply::Stored
        );
    }
}

/// One classic multi-get (`get k1 k2 ...`) on a new connection to
/// `address`: the values found, by key, in the server's reply order.
pub fn multi_get(address: &str, keys: &[Vec<u8>]) -> Vec<(Vec<u8>, Vec<u8>)> {
    use std::io::{BufRead, BufReader, Read, Write};
    let stream = std::net::TcpStream::connect(address).expect("connect to memcached");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut request = b"get".to_vec();
    for key in keys {
        request.push(b' ');
        request.extend_from_slice(key);
    }
    request.extend_from_slice(b"\r\n");
    (&stream).write_all(&request).expect("send get");
    let mut reader = BufReader::new(&stream);
    let mut found = Vec::new();
    loop {
        let mut line = Vec::new();
        reader.read_until(b'\n', &mut line).expect("reply line");
        let text = String::from_utf8_lossy(&line).trim_end().to_string();
        if text == "END" {
            return found;
        }
        let fields: Vec<&str> = text.split(' ').collect();
        assert_eq!(fields.first(), Some(&"VALUE"), "unexpected reply {text:?}");
        let len: usize = fields[3].parse().expect("value length");
        let mut value = vec![0u8; len + 2];
        reader.read_exact(&mut value).expect("value bytes");
        value.truncate(len);
        found.push((fields[1].as_bytes().to_vec(), value));
    }
}
