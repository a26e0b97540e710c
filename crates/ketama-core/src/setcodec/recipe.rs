//! The recipe, written once: step functions a client drives with its own
//! memcached connection (the library does no network I/O).
//!
//! **Write** (add or remove a batch; one payload = one round trip):
//!
//! 1. `append <key> 0 0 <len>` with the payload ([`WriteAction::Append`]).
//!    `STORED` → done. `NOT_STORED` means *missing* or *cannot grow*.
//! 2. For adds, `add <key> <flags> <ttl> <len>` with the same payload
//!    ([`WriteAction::Add`]). `STORED` → created. `NOT_STORED` → somebody
//!    created it meanwhile, or it exists but is full: append again.
//! 3. After `max_retries` failed add/append rounds (removes: after every
//!    failed append, appending again while rounds remain), probe existence ([`WriteAction::Probe`], e.g.
//!    `mg <key>` or `get`): present → [`SetErrorKind::SetFull`] (compact or
//!    shard); missing → [`SetErrorKind::Contended`] for adds, nothing to
//!    remove for removes. It never loops forever.
//!
//! On memcached ≥ 1.6.20, `ms <key> <len> MA N<ttl>` does steps 1-2 in one
//! command; its `NS` is then a full value (probe to be sure).
//!
//! **Read**: fetch value, CAS and remaining TTL (`mg <key> v c t`), then
//! [`plan_read`]: decode strictly; when the policy says so, write the
//! compacted value with `ms <key> <len> C<cas> T<ttl>` (the remaining TTL,
//! so compaction never resets the expiry; an empty set is written as a
//! 0-byte value under CAS, never `delete`). `EX`/`NF` on that write are
//! ignored: another client changed the value and a later read compacts. A
//! successful CAS proves no append came in between, so nothing is lost.
//! A value that fails to decode is never compacted.
//!
//! APPEND never refreshes the TTL: a set expires at its creation TTL
//! however often it is appended to; refresh with `touch`/`gat`. The set is
//! a cache: after an eviction, removes are no-ops and adds recreate a set
//! holding only the new members.
//!
//! A restarted memcached starts its CAS counter again, so a CAS read before
//! the restart can match an unrelated value after it: a compaction belongs to
//! the connection that read its value, and is dropped, never retried on a new
//! connection, when that connection fails. Under kill-and-restart and under
//! eviction by filler traffic, with 8 writers and 2 compacting readers
//! (`crates/ketama-core/tests/setcodec/faults.rs`), no acknowledged write of a surviving set
//! was lost.

use super::compact::{CompactionPolicy, compacted, should_compact};
use super::decode::{DecodeOptions, DecodedSet, decode};
use super::error::{SetError, SetErrorKind};
use super::{Format, Op};

/// Default number of add/append rounds before probing.
pub const DEFAULT_MAX_RETRIES: u32 = 3;

crate::named_enum! {
    /// What the server answered to the last action (`ketama_set_reply`).
    pub enum Reply: "ketama_set_reply" {
        /// `STORED` / `HD`.
        Stored = 0, KETAMA_SET_REPLY_STORED, "stored", ["hd"];
        /// `NOT_STORED` / `NS`.
        NotStored = 1, KETAMA_SET_REPLY_NOT_STORED, "not-stored", ["ns"];
        /// `EXISTS` / `EX`; for a probe: the key is present.
        Exists = 2, KETAMA_SET_REPLY_EXISTS, "exists", ["ex"];
        /// `NOT_FOUND` / `NF` / `EN`; for a probe: the key is missing.
        NotFound = 3, KETAMA_SET_REPLY_NOT_FOUND, "not-found", ["nf", "en"];
        /// `SERVER_ERROR object too large for cache`.
        TooLarge = 4, KETAMA_SET_REPLY_TOO_LARGE, "too-large", [];
    }
}

/// What the client must do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WriteAction {
    /// APPEND the payload.
    Append,
    /// ADD the payload (with the set's flags and TTL).
    Add,
    /// Check whether the key exists (`mg <key>` / `get`), reply `Exists` or `NotFound`.
    Probe,
    /// Finished.
    Done(WriteOutcome),
}

/// How a write finished successfully.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WriteOutcome {
    /// The payload was appended to the existing set.
    Appended,
    /// The set did not exist and was created with the payload.
    Created,
    /// A remove on a missing set: nothing to do.
    NothingToRemove,
}

crate::named_enum! {
    /// A [`WriteAction`] as one id (`ketama_set_action`): what to do next,
    /// or how the write finished.
    pub enum SetAction: "ketama_set_action" {
        /// APPEND the payload.
        DoAppend = 1, KETAMA_SET_DO_APPEND, "append", [];
        /// ADD the payload (with the set's flags and TTL).
        DoAdd = 2, KETAMA_SET_DO_ADD, "add", [];
        /// Probe whether the key exists; reply EXISTS or NOT_FOUND.
        DoProbe = 3, KETAMA_SET_DO_PROBE, "probe", [];
        /// Done: the payload was appended.
        DoneAppended = 4, KETAMA_SET_DONE_APPENDED, "appended", [];
        /// Done: the set was created with the payload.
        DoneCreated = 5, KETAMA_SET_DONE_CREATED, "created", [];
        /// Done: a remove on a missing set, nothing to do.
        DoneNothingToRemove = 6, KETAMA_SET_DONE_NOTHING_TO_REMOVE, "nothing-to-remove", [];
    }
}

impl From<WriteAction> for SetAction {
    fn from(action: WriteAction) -> Self {
        match action {
            WriteAction::Append => SetAction::DoAppend,
            WriteAction::Add => SetAction::DoAdd,
            WriteAction::Probe => SetAction::DoProbe,
            WriteAction::Done(WriteOutcome::Appended) => SetAction::DoneAppended,
            WriteAction::Done(WriteOutcome::Created) => SetAction::DoneCreated,
            WriteAction::Done(WriteOutcome::NothingToRemove) => SetAction::DoneNothingToRemove,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Phase {
    Appending,
    Adding,
    Probing,
    Finished,
}

/// The write state machine: start with [`Writer::first`], then feed every
/// reply to [`Writer::on_reply`] until it returns `Done` or an error. At
/// most `2 * (max_retries + 1) + 1` steps.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Writer {
    op: Op,
    max_retries: u32,
    rounds: u32,
    phase: Phase,
}

impl Writer {
    /// A writer for one payload of `op` records.
    pub fn new(op: Op, max_retries: u32) -> Writer {
        Writer {
            op,
            max_retries,
            rounds: 0,
            phase: Phase::Appending,
        }
    }

    /// The first action: always an append.
    pub fn first(&self) -> WriteAction {
        WriteAction::Append
    }

    /// Failed add/append rounds so far.
    pub fn rounds(&self) -> u32 {
        self.rounds
    }

    /// Advances on the server's reply to the last action.
    pub fn on_reply(&mut self, reply: Reply) -> Result<WriteAction, SetError> {
        let next = match (self.phase, reply) {
            (Phase::Finished, _) => return Err(SetError::invalid("the write already finished")),
            (_, Reply::TooLarge) => {
                return Err(self.full("the server says the item would be too large"));
            }
            (Phase::Appending, Reply::Stored) => self.done(WriteOutcome::Appended),
            (Phase::Appending, Reply::NotStored | Reply::NotFound) => match self.op {
                Op::Add => {
                    self.phase = Phase::Adding;
                    WriteAction::Add
                }
                Op::Remove => self.probe(),
            },
            (Phase::Adding, Reply::Stored) => self.done(WriteOutcome::Created),
            (Phase::Adding, Reply::NotStored | Reply::Exists) => {
                self.rounds += 1;
                if self.rounds > self.max_retries {
                    self.probe()
                } else {
                    self.phase = Phase::Appending;
                    WriteAction::Append
                }
            }
            (Phase::Probing, Reply::Exists | Reply::Stored) => {
                // A remove probes after its first failed append: the key may
                // have been created meanwhile, so append again while rounds remain.
                if self.op == Op::Remove && self.rounds < self.max_retries {
                    self.rounds += 1;
                    self.phase = Phase::Appending;
                    WriteAction::Append
                } else {
                    self.phase = Phase::Finished;
                    return Err(self.full("the key exists but appends keep failing"));
                }
            }
            (Phase::Probing, Reply::NotFound | Reply::NotStored) => match self.op {
                Op::Remove => self.done(WriteOutcome::NothingToRemove),
                Op::Add => {
                    self.phase = Phase::Finished;
                    return Err(SetError::new(
                        SetErrorKind::Contended,
                        0,
                        self.rounds as usize,
                        format!(
                            "append and add failed {} times while the key came and went",
                            self.rounds
                        ),
                    ));
                }
            },
            (phase, reply) => {
                return Err(SetError::invalid(format!(
                    "reply {reply:?} is not possible while {phase:?}"
                )));
            }
        };
        Ok(next)
    }

    fn done(&mut self, outcome: WriteOutcome) -> WriteAction {
        self.phase = Phase::Finished;
        WriteAction::Done(outcome)
    }

    fn probe(&mut self) -> WriteAction {
        self.phase = Phase::Probing;
        WriteAction::Probe
    }

    fn full(&mut self, why: &str) -> SetError {
        self.phase = Phase::Finished;
        SetError::new(
            SetErrorKind::SetFull,
            0,
            self.rounds as usize,
            format!("{why}: compact or shard the set"),
        )
    }
}

/// The compaction write a read asks for: `ms <key> <len> C<cas> T<exptime>`
/// (or classic `cas <key> <flags> <exptime> <len> <cas>`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionWrite {
    /// The canonical value (empty for an empty set).
    pub value: Vec<u8>,
    /// The CAS of the value that was decoded.
    pub cas: u64,
    /// The exptime to write: the remaining TTL, 0 for "never expires";
    /// `None` when the caller did not know the remaining TTL (it must pick
    /// one, and compaction then resets the expiry).
    pub exptime: Option<u32>,
}

/// The outcome of a read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadPlan {
    /// The decoded set.
    pub set: DecodedSet,
    /// The compaction to attempt, if any.
    pub compaction: Option<CompactionWrite>,
}

/// Longest exptime memcached reads as relative seconds (30 days); larger
/// values are Unix times.
pub const MAX_RELATIVE_EXPTIME: i64 = 2_592_000;

fn unix_now() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

/// Decodes a fetched value and decides on compaction. `remaining_ttl` is
/// what `mg <key> t` returned (-1: never expires) or `None` if unknown. A
/// value about to expire (remaining 0) is not compacted, since writing
/// exptime 0 would make it permanent. A remaining TTL over 30 days is written
/// back as the absolute Unix expiry time (now + TTL), because memcached
/// reads exptimes above 30 days as Unix times. Membase lists are read-only and are
/// never compacted in place.
pub fn plan_read(
    value: &[u8],
    cas: u64,
    remaining_ttl: Option<i64>,
    options: &DecodeOptions,
    policy: &CompactionPolicy,
    force: bool,
) -> Result<ReadPlan, SetError> {
    let set = decode(value, options)?;
    let writable = set.stats.format.filter(|f| f.writable());
    let exptime = match remaining_ttl {
        None => Some(None),
        Some(-1) => Some(Some(0)),
        Some(t) if t > 0 && t <= MAX_RELATIVE_EXPTIME => Some(Some(t as u32)),
        // memcached reads an exptime above 30 days as a Unix time: write the
        // absolute expiry instead (client clock), or skip if it cannot fit.
        Some(t) if t > 0 => unix_now()
            .checked_add(t)
            .and_then(|at| u32::try_from(at).ok())
            .map(Some),
        Some(_) => None,
    };
    let compaction = match (writable, exptime) {
        (Some(format), Some(exptime))
            if should_compact(&set.stats, set.members.len(), policy, force) =>
        {
            Some(CompactionWrite {
                value: compacted(&set.members, format, options.max_member_len)?,
                cas,
                exptime,
            })
        }
        _ => None,
    };
    Ok(ReadPlan { set, compaction })
}

/// The format new writes to a value should use: the value's own, or
/// `default` for an empty or missing value.
pub fn write_format(set: &DecodedSet, default: Format) -> Format {
    set.stats.format.filter(|f| f.writable()).unwrap_or(default)
}

/// A seedable random source for randomised piggy-back compaction
/// (SplitMix64): a client keeps one per process, seeded however it likes,
/// and the same seed gives the same decisions (tests, replays).
#[derive(Debug, Clone)]
pub struct Sampler {
    state: u64,
}

impl Sampler {
    /// A sampler starting from `seed`.
    pub fn new(seed: u64) -> Sampler {
        Sampler { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        splitmix64(self.state)
    }

    /// True with probability `probability` (clamped to 0..=1).
    pub fn chance(&mut self, probability: f64) -> bool {
        chance(probability, self.next_u64())
    }
}

/// The SplitMix64 finaliser of `x`.
pub fn splitmix64(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// True when the random `draw` falls below `probability` (0: never, 1: always).
pub fn chance(probability: f64, draw: u64) -> bool {
    if probability >= 1.0 {
        return true;
    }
    if probability.is_nan() || probability <= 0.0 {
        return false;
    }
    (draw >> 11) as f64 * (1.0 / (1u64 << 53) as f64) < probability
}

/// [`plan_read`] with randomised piggy-back compaction: a dirty set is
/// compacted only with `probability`, so that many readers of a hot set do
/// not all send their CAS at once (with N readers and probability p, about
/// N·p of them try). `force` still compacts whatever the draw.
#[allow(clippy::too_many_arguments)]
pub fn plan_read_sampled(
    value: &[u8],
    cas: u64,
    remaining_ttl: Option<i64>,
    options: &DecodeOptions,
    policy: &CompactionPolicy,
    force: bool,
    probability: f64,
    sampler: &mut Sampler,
) -> Result<ReadPlan, SetError> {
    let mut plan = plan_read(value, cas, remaining_ttl, options, policy, force)?;
    if plan.compaction.is_some() && !force && !sampler.chance(probability) {
        plan.compaction = None;
    }
    Ok(plan)
}
