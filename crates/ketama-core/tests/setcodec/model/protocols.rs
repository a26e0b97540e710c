//! The recipes the model's clients follow: their phases, the next command
//! each sends, and one step of a client (its command applied, its reply
//! taken by the library's state machines).

use ketama_core::setcodec::flip::{self, Fetched, FlipStep, ListId};
use ketama_core::setcodec::recipe::{self, Reply, WriteAction, Writer};
use ketama_core::setcodec::{CompactionPolicy, DecodeOptions, Format, Op, encode};

use super::memcached::*;

/// Which recipe the clients follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Protocol {
    /// One list; compaction is a CAS of the whole value (replay semantics).
    CasOnly,
    /// Two lists flipped with the copy header and the `^` seal (counted).
    Flip,
    /// The same clients, but reads count both lists whole, as the Membase
    /// manual's "the combined result would contain the full list" (no copy
    /// header): shows what the header prevents, and that the checker sees it.
    FlipCountingBothWhole,
}

pub(super) const BASE: &[u8] = b"topic-X";
pub(super) const SINGLE: &[u8] = b"topic-X";

pub(super) fn list_key(id: ListId) -> Vec<u8> {
    id.key(BASE)
}

pub(super) fn fetched(value: &Option<(Vec<u8>, u64)>) -> Fetched<'_> {
    match value {
        Some((v, cas)) => Fetched::hit(v, *cas),
        None => Fetched::miss(),
    }
}

/// What a client is doing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Phase {
    /// Reading list A (flip) or the single key.
    ReadFirst,
    /// Reading list B, with A's value.
    ReadSecond(Option<(Vec<u8>, u64)>),
    /// A writer running the write recipe on `key`.
    Writing {
        key: Vec<u8>,
        payload: Vec<u8>,
        writer: Writer,
        action: WriteAction,
    },
    /// A compactor's write: CAS (or ADD) of the target, then seal `then_seal`.
    Compacting {
        cmd: Cmd,
        then_seal: Option<ListId>,
    },
    /// A compactor sealing a list.
    Sealing(ListId),
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) enum Role {
    /// Writer `n`: adds then removes its member `m<n>` (`ops` writes).
    Writer { n: usize, ops: usize },
    /// Compacts `rounds` times.
    Compactor { rounds: usize },
    /// Reads the set once (non-atomically) and checks it.
    Reader,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Client {
    pub(super) role: Role,
    pub(super) phase: Phase,
    /// Writers: writes acknowledged so far; compactors: rounds done.
    pub(super) done: usize,
    /// Readers: the writers' acknowledged counts and in-flight flags when
    /// the read started.
    pub(super) start: Vec<(usize, bool)>,
    /// Stopped for good where `phase` says.
    pub(super) crashed: bool,
}

pub(super) fn member(n: usize) -> Vec<u8> {
    format!("m{n}").into_bytes()
}

/// Write `k` of a writer: adds on even k, removes on odd k.
pub(super) fn op_of(k: usize) -> Op {
    if k % 2 == 0 { Op::Add } else { Op::Remove }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct State {
    pub(super) server: Server,
    pub(super) clients: Vec<Client>,
    pub(super) crashes_left: u8,
}

impl State {
    /// Per writer: writes acknowledged, and whether one is in flight (its
    /// record may have landed or not: sent, or crashed while sending).
    pub(super) fn writer_status(&self) -> Vec<(usize, bool)> {
        self.clients
            .iter()
            .filter(|c| matches!(c.role, Role::Writer { .. }))
            .map(|c| (c.done, matches!(c.phase, Phase::Writing { .. })))
            .collect()
    }
}

/// The command client `i` sends next (None: finished).
pub(super) fn next_cmd(protocol: Protocol, c: &Client) -> Option<Cmd> {
    if c.crashed {
        return None;
    }
    match &c.phase {
        Phase::ReadFirst => Some(Cmd::Get(match protocol {
            Protocol::CasOnly => SINGLE.to_vec(),
            Protocol::Flip | Protocol::FlipCountingBothWhole => list_key(ListId::A),
        })),
        Phase::ReadSecond(_) => Some(Cmd::Get(list_key(ListId::B))),
        Phase::Writing {
            key,
            payload,
            action,
            ..
        } => Some(match action {
            WriteAction::Append => Cmd::Append(key.clone(), payload.clone()),
            WriteAction::Add => Cmd::Add(key.clone(), payload.clone()),
            WriteAction::Probe => Cmd::Get(key.clone()),
            WriteAction::Done(_) => unreachable!("a finished write is not kept"),
        }),
        Phase::Compacting { cmd, .. } => Some(cmd.clone()),
        Phase::Sealing(id) => Some(Cmd::Prepend(list_key(*id), b"^".to_vec())),
        Phase::Done => None,
    }
}

pub(super) fn options() -> DecodeOptions {
    DecodeOptions::format(Some(Format::T1))
}

/// Applies client `i`'s next command and advances it.
pub(super) fn step(protocol: Protocol, state: &mut State, i: usize) {
    let cmd = next_cmd(protocol, &state.clients[i]).expect("a live client");
    let resp = state.server.apply(&cmd);
    let status_now = state.writer_status();
    let c = &mut state.clients[i];
    let phase = std::mem::replace(&mut c.phase, Phase::Done);
    c.phase = match (c.role, phase, resp) {
        (Role::Reader, Phase::ReadFirst, Resp::Value(v)) => {
            c.start = status_now;
            match protocol {
                Protocol::CasOnly => {
                    // One key: the read is done; `explore` checks it.
                    LAST_READ.with(|r| *r.borrow_mut() = Some((v, None)));
                    Phase::Done
                }
                _ => Phase::ReadSecond(v),
            }
        }
        (Role::Reader, Phase::ReadSecond(first), Resp::Value(second)) => {
            // Checked by the caller through `last_read`.
            LAST_READ.with(|r| *r.borrow_mut() = Some((first, second)));
            Phase::Done
        }
        (Role::Writer { n, ops }, Phase::ReadFirst, Resp::Value(v)) => match protocol {
            Protocol::CasOnly => start_write(SINGLE.to_vec(), n, c.done, ops),
            _ => Phase::ReadSecond(v),
        },
        (Role::Writer { n, ops }, Phase::ReadSecond(a), Resp::Value(b)) => {
            let read = flip::read(fetched(&a), fetched(&b), &options()).expect("decodes");
            start_write(list_key(flip::write_target(&read)), n, c.done, ops)
        }
        (
            Role::Writer { ops, .. },
            Phase::Writing {
                key,
                payload,
                mut writer,
                action,
            },
            resp,
        ) => {
            let reply = match (action, resp) {
                (WriteAction::Probe, Resp::Value(Some(_))) => Reply::Exists,
                (WriteAction::Probe, Resp::Value(None)) => Reply::NotFound,
                (_, Resp::Stored) => Reply::Stored,
                (_, Resp::NotStored) => Reply::NotStored,
                (a, r) => panic!("reply {r:?} to {a:?}"),
            };
            match writer.on_reply(reply).expect("the write recipe finishes") {
                WriteAction::Done(_) => {
                    c.done += 1;
                    if c.done == ops {
                        Phase::Done
                    } else {
                        Phase::ReadFirst
                    }
                }
                action => Phase::Writing {
                    key,
                    payload,
                    writer,
                    action,
                },
            }
        }
        (Role::Compactor { .. }, Phase::ReadFirst, Resp::Value(v)) => match protocol {
            Protocol::Flip | Protocol::FlipCountingBothWhole => Phase::ReadSecond(v),
            Protocol::CasOnly => match v {
                None => end_round(c),
                Some((value, cas)) => {
                    let plan = recipe::plan_read(
                        &value,
                        cas,
                        None,
                        &options(),
                        &CompactionPolicy::default(),
                        true,
                    )
                    .expect("decodes");
                    match plan.compaction {
                        Some(write) => Phase::Compacting {
                            cmd: Cmd::Cas(SINGLE.to_vec(), write.value, write.cas),
                            then_seal: None,
                        },
                        None => end_round(c),
                    }
                }
            },
        },
        (Role::Compactor { .. }, Phase::ReadSecond(a), Resp::Value(b)) => {
            match flip::plan_flip(fetched(&a), fetched(&b), &options(), Format::T1, 0, true)
                .expect("plans")
            {
                FlipStep::Nothing => end_round(c),
                FlipStep::Seal(id) => Phase::Sealing(id),
                FlipStep::Flip {
                    target,
                    value,
                    cas,
                    source,
                } => Phase::Compacting {
                    cmd: match cas {
                        Some(cas) => Cmd::Cas(list_key(target), value, cas),
                        None => Cmd::Add(list_key(target), value),
                    },
                    then_seal: Some(source),
                },
            }
        }
        (Role::Compactor { .. }, Phase::Compacting { then_seal, .. }, resp) => {
            match (resp, then_seal) {
                (Resp::Stored, Some(source)) => Phase::Sealing(source),
                _ => end_round(c),
            }
        }
        (Role::Compactor { .. }, Phase::Sealing(_), _) => end_round(c),
        (role, phase, resp) => panic!("{role:?} in {phase:?} got {resp:?}"),
    };
}

/// A get's answer: value and CAS, or a miss.
pub(super) type Fetch = Option<(Vec<u8>, u64)>;

thread_local! {
    pub(super) static LAST_READ: std::cell::RefCell<Option<(Fetch, Fetch)>> =
        const { std::cell::RefCell::new(None) };
}

pub(super) fn start_write(key: Vec<u8>, n: usize, k: usize, _ops: usize) -> Phase {
    let op = op_of(k);
    let payload = encode(op, &[member(n)], Format::T1, 250).expect("encodes");
    let writer = Writer::new(op, recipe::DEFAULT_MAX_RETRIES);
    let action = writer.first();
    Phase::Writing {
        key,
        payload,
        writer,
        action,
    }
}

pub(super) fn end_round(c: &mut Client) -> Phase {
    c.done += 1;
    match c.role {
        Role::Compactor { rounds } if c.done < rounds => Phase::ReadFirst,
        _ => Phase::Done,
    }
}

/// Whether member `n` must read present (`Some(true)`), absent
/// (`Some(false)`), or may read either (a write in flight).
pub(super) fn expected(done: usize, in_flight: bool) -> Option<bool> {
    if in_flight { None } else { Some(done % 2 == 1) }
}
