//! A flipped-list client over a real memcached (the `memcache` crate's
//! meta client) driving the library's `setcodec::flip` planners: reads
//! get both lists, writes append to the current list through the write
//! recipe, compaction flips (CAS or ADD of the inactive list, then PREPEND
//! of the `^` seal).

use ketama_core::setcodec::flip::{self, Fetched, FlipRead, FlipStep, ListId};
use ketama_core::setcodec::recipe::{self, Reply, WriteAction, WriteOutcome, Writer};
use ketama_core::setcodec::{DecodeOptions, Format, Op, SetError, encode};
use memcache::exp::{Error as McError, Meta, MetaClient, MutationStatus};

/// What a compaction attempt did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compaction {
    /// Nothing was due, or the lists were mid-flip.
    Nothing,
    /// Finished a half-done flip by sealing its old list.
    Sealed,
    /// Wrote the inactive list and sealed the old one.
    Flipped,
    /// The write of the inactive list lost (a late record or another compactor).
    Lost,
}

fn stored(result: Result<memcache::exp::MutationResult, McError>) -> Reply {
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

/// One connection's view of the flipped set `base`.
pub struct FlipClient {
    /// The connection.
    pub mc: MetaClient,
    base: Vec<u8>,
}

impl FlipClient {
    /// Connects to `address` for the set `base`.
    pub fn connect(address: &str, base: &[u8]) -> FlipClient {
        let mc = MetaClient::builder()
            .io_timeout(Some(std::time::Duration::from_secs(10)))
            .connect_timeout(Some(std::time::Duration::from_secs(5)))
            .connect(address.to_string())
            .expect("connect to memcached");
        FlipClient {
            mc,
            base: base.to_vec(),
        }
    }

    fn fetch(&self, id: ListId) -> Option<(Vec<u8>, u64)> {
        let got = self
            .mc
            .get(id.key(&self.base))
            .meta(Meta::NONE.cas())
            .send()
            .expect("mg");
        got.hit()
            .then(|| (got.value.unwrap_or_default(), got.item.cas.expect("cas")))
    }

    fn both(&self) -> [Option<(Vec<u8>, u64)>; 2] {
        [self.fetch(ListId::A), self.fetch(ListId::B)]
    }

    /// Reads the set from both lists.
    pub fn read(&self) -> FlipRead {
        let [a, b] = self.both();
        flip::read(as_fetched(&a), as_fetched(&b), &DecodeOptions::default()).expect("decodes")
    }

    /// Sizes of both values in bytes (0 when missing).
    pub fn sizes(&self) -> [usize; 2] {
        let [a, b] = self.both();
        [a.map_or(0, |(v, _)| v.len()), b.map_or(0, |(v, _)| v.len())]
    }

    /// Adds or removes `members` (one payload) in the current list, as
    /// last read by this client (`target`, or a fresh read when `None`).
    pub fn write(
        &self,
        op: Op,
        members: &[&[u8]],
        target: Option<ListId>,
    ) -> Result<WriteOutcome, SetError> {
        let target = target.unwrap_or_else(|| flip::write_target(&self.read()));
        let key = target.key(&self.base);
        let payload = encode(op, members, Format::T1, 250)?;
        let mut writer = Writer::new(op, recipe::DEFAULT_MAX_RETRIES);
        let mut action = writer.first();
        loop {
            let reply = match action {
                WriteAction::Done(outcome) => return Ok(outcome),
                WriteAction::Append => stored(self.mc.set(&key, &payload).append().send()),
                WriteAction::Add => stored(self.mc.set(&key, &payload).add().send()),
                WriteAction::Probe => {
                    if self
                        .mc
                        .get(&key)
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
    }

    /// One compaction step: flips when the current list counts more than
    /// `min_records` records (or always with `force`).
    pub fn compact(&self, min_records: usize, force: bool) -> Compaction {
        let [a, b] = self.both();
        let step = flip::plan_flip(
            as_fetched(&a),
            as_fetched(&b),
            &DecodeOptions::default(),
            Format::T1,
            min_records,
            force,
        )
        .expect("plans");
        match step {
            FlipStep::Nothing => Compaction::Nothing,
            FlipStep::Seal(id) => {
                self.seal(id);
                Compaction::Sealed
            }
            FlipStep::Flip {
                target,
                value,
                cas,
                source,
            } => {
                let key = target.key(&self.base);
                let reply = match cas {
                    Some(cas) => stored(self.mc.set(&key, &value).compare_cas(cas).send()),
                    None => stored(self.mc.set(&key, &value).add().send()),
                };
                if reply != Reply::Stored {
                    return Compaction::Lost;
                }
                self.seal(source);
                Compaction::Flipped
            }
        }
    }

    fn seal(&self, id: ListId) {
        // A missing list needs no seal: PREPEND then answers NOT_STORED.
        let _ = stored(self.mc.set(id.key(&self.base), b"^").prepend().send());
    }
}

fn as_fetched(value: &Option<(Vec<u8>, u64)>) -> Fetched<'_> {
    match value {
        Some((v, cas)) => Fetched::hit(v, *cas),
        None => Fetched::miss(),
    }
}
