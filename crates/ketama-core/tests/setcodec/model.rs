//! Model checking of the contended-set recipes: a model of memcached's
//! storage commands (get/gets, append, prepend, add, cas, delete; each one
//! atomic, as memcached applies it under the item lock) and an exhaustive
//! exploration of every interleaving of 2-3 clients driven by the
//! library's own state machines (`recipe::Writer`, `recipe::plan_read`,
//! `flip::read`, `flip::plan_flip`), with a client crash allowed at any
//! step. Every reachable state is checked against what the clients were
//! told (acknowledged writes):
//!
//! * **loss**: a member whose last acknowledged write is an add, with no
//!   write of it in flight, reads absent. Must never happen: the test fails
//!   with the path that leads there.
//! * **ghost**: a member whose last acknowledged write is a remove reads
//!   present (a reappearing item).
//! * **duplicate**: a member counted more than once (flipped lists).
//!
//! Reads are checked twice: an atomic snapshot of both lists at every
//! state, and a reader client whose multi-get reads one list after the
//! other (other clients' commands may come in between). At every end
//! state, and again after one more compactor runs alone (the repair),
//! the set must hold exactly the acknowledged writes.

use std::collections::{BTreeMap, HashSet};

use ketama_core::setcodec::flip::{self, Fetched, FlipStep, ListId};
use ketama_core::setcodec::recipe::{self, Reply, WriteAction, Writer};
use ketama_core::setcodec::{CompactionPolicy, DecodeOptions, Format, Op, encode};

// ---- memcached ----

/// A memcached command, as the model's clients send them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Cmd {
    Get(Vec<u8>),
    Append(Vec<u8>, Vec<u8>),
    Prepend(Vec<u8>, Vec<u8>),
    Add(Vec<u8>, Vec<u8>),
    Cas(Vec<u8>, Vec<u8>, u64),
    /// No recipe deletes a set (an empty set is a 0-byte value written
    /// under CAS); the command is modelled for completeness.
    #[allow(dead_code)]
    Delete(Vec<u8>),
}

/// A reply.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Resp {
    Value(Option<(Vec<u8>, u64)>),
    Stored,
    NotStored,
    Exists,
    NotFound,
    Deleted,
}

/// The server: per key an optional value and a version that every change
/// bumps (the CAS unique; it survives deletion so it never repeats).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct Server {
    items: BTreeMap<Vec<u8>, (Option<Vec<u8>>, u64)>,
}

impl Server {
    fn apply(&mut self, cmd: &Cmd) -> Resp {
        let key = match cmd {
            Cmd::Get(k)
            | Cmd::Append(k, _)
            | Cmd::Prepend(k, _)
            | Cmd::Add(k, _)
            | Cmd::Cas(k, _, _)
            | Cmd::Delete(k) => k.clone(),
        };
        let slot = self.items.entry(key).or_insert((None, 0));
        let (value, version) = slot;
        match cmd {
            Cmd::Get(_) => Resp::Value(value.clone().map(|v| (v, *version))),
            Cmd::Append(_, data) | Cmd::Prepend(_, data) => match value {
                None => Resp::NotStored,
                Some(v) => {
                    if matches!(cmd, Cmd::Append(..)) {
                        v.extend_from_slice(data);
                    } else {
                        v.splice(0..0, data.iter().copied());
                    }
                    *version += 1;
                    Resp::Stored
                }
            },
            Cmd::Add(_, data) => {
                if value.is_some() {
                    return Resp::NotStored;
                }
                *value = Some(data.clone());
                *version += 1;
                Resp::Stored
            }
            Cmd::Cas(_, data, cas) => match value {
                None => Resp::NotFound,
                Some(_) if *version != *cas => Resp::Exists,
                Some(v) => {
                    *v = data.clone();
                    *version += 1;
                    Resp::Stored
                }
            },
            Cmd::Delete(_) => match value.take() {
                None => Resp::NotFound,
                Some(_) => {
                    *version += 1;
                    Resp::Deleted
                }
            },
        }
    }

    fn fetch(&self, key: &[u8]) -> Option<(Vec<u8>, u64)> {
        self.items
            .get(key)
            .and_then(|(v, version)| v.clone().map(|v| (v, *version)))
    }
}

// ---- the protocols ----

/// Which recipe the clients follow.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Protocol {
    /// One list; compaction is a CAS of the whole value (replay semantics).
    CasOnly,
    /// Two lists flipped with the copy header and the `^` seal (counted).
    Flip,
    /// The same clients, but reads count both lists whole, as the Membase
    /// manual's "the combined result would contain the full list" (no copy
    /// header): shows what the header prevents, and that the checker sees it.
    FlipCountingBothWhole,
}

const BASE: &[u8] = b"topic-X";
const SINGLE: &[u8] = b"topic-X";

fn list_key(id: ListId) -> Vec<u8> {
    id.key(BASE)
}

fn fetched(value: &Option<(Vec<u8>, u64)>) -> Fetched<'_> {
    match value {
        Some((v, cas)) => Fetched::hit(v, *cas),
        None => Fetched::miss(),
    }
}

/// What a client is doing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Phase {
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
enum Role {
    /// Writer `n`: adds then removes its member `m<n>` (`ops` writes).
    Writer { n: usize, ops: usize },
    /// Compacts `rounds` times.
    Compactor { rounds: usize },
    /// Reads the set once (non-atomically) and checks it.
    Reader,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Client {
    role: Role,
    phase: Phase,
    /// Writers: writes acknowledged so far; compactors: rounds done.
    done: usize,
    /// Readers: the writers' acknowledged counts and in-flight flags when
    /// the read started.
    start: Vec<(usize, bool)>,
    /// Stopped for good where `phase` says.
    crashed: bool,
}

fn member(n: usize) -> Vec<u8> {
    format!("m{n}").into_bytes()
}

/// Write `k` of a writer: adds on even k, removes on odd k.
fn op_of(k: usize) -> Op {
    if k % 2 == 0 { Op::Add } else { Op::Remove }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct State {
    server: Server,
    clients: Vec<Client>,
    crashes_left: u8,
}

impl State {
    /// Per writer: writes acknowledged, and whether one is in flight (its
    /// record may have landed or not: sent, or crashed while sending).
    fn writer_status(&self) -> Vec<(usize, bool)> {
        self.clients
            .iter()
            .filter(|c| matches!(c.role, Role::Writer { .. }))
            .map(|c| (c.done, matches!(c.phase, Phase::Writing { .. })))
            .collect()
    }
}

/// The command client `i` sends next (None: finished).
fn next_cmd(protocol: Protocol, c: &Client) -> Option<Cmd> {
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

fn options() -> DecodeOptions {
    DecodeOptions::format(Some(Format::T1))
}

/// What every client observed, for the checks.
#[derive(Default)]
struct Findings {
    states: usize,
    transitions: usize,
    end_states: usize,
    ghost_states: usize,
    duplicate_states: usize,
    reader_ghosts: usize,
    end_anomalies_before_repair: usize,
    ghost_phases: HashSet<String>,
}

/// The members present in the server's current values.
fn snapshot(protocol: Protocol, server: &Server) -> (Vec<Vec<u8>>, usize) {
    match protocol {
        Protocol::CasOnly => {
            let value = server.fetch(SINGLE).map(|(v, _)| v).unwrap_or_default();
            let set = ketama_core::setcodec::decode(&value, &options()).expect("decodes");
            (set.members.to_vec(), 0)
        }
        Protocol::Flip => {
            let a = server.fetch(&list_key(ListId::A));
            let b = server.fetch(&list_key(ListId::B));
            let read = flip::read(fetched(&a), fetched(&b), &options()).expect("decodes");
            (read.members.to_vec(), read.over_counted)
        }
        Protocol::FlipCountingBothWhole => {
            let a = server.fetch(&list_key(ListId::A));
            let b = server.fetch(&list_key(ListId::B));
            count_whole(&a, &b)
        }
    }
}

/// Counts every record of both lists (skipping only seal and header
/// bytes): the members present and how many are counted more than once.
fn count_whole(a: &Option<(Vec<u8>, u64)>, b: &Option<(Vec<u8>, u64)>) -> (Vec<Vec<u8>>, usize) {
    let mut counts: BTreeMap<Vec<u8>, i64> = BTreeMap::new();
    for (value, _) in [a, b].into_iter().flatten() {
        let start = flip::parse_prefix(value).expect("prefix").records_start;
        for token in value[start..]
            .split(|b| *b == b' ')
            .filter(|t| !t.is_empty())
        {
            let step = if token[0] == b'+' { 1 } else { -1 };
            *counts.entry(token[1..].to_vec()).or_insert(0) += step;
        }
    }
    let members = counts
        .iter()
        .filter(|&(_, &c)| c > 0)
        .map(|(m, _)| m.clone())
        .collect();
    (members, counts.values().filter(|&&c| c > 1).count())
}

/// Where the set is read from in one read of `values` (first and second key).
fn read_members(
    protocol: Protocol,
    first: &Option<(Vec<u8>, u64)>,
    second: &Option<(Vec<u8>, u64)>,
) -> Vec<Vec<u8>> {
    match protocol {
        Protocol::CasOnly => {
            let value = first.as_ref().map(|(v, _)| v.clone()).unwrap_or_default();
            ketama_core::setcodec::decode(&value, &options())
                .expect("decodes")
                .members
                .to_vec()
        }
        Protocol::Flip => flip::read(fetched(first), fetched(second), &options())
            .expect("decodes")
            .members
            .to_vec(),
        Protocol::FlipCountingBothWhole => count_whole(first, second).0,
    }
}

/// Applies client `i`'s next command and advances it.
fn step(protocol: Protocol, state: &mut State, i: usize) {
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
type Fetch = Option<(Vec<u8>, u64)>;

thread_local! {
    static LAST_READ: std::cell::RefCell<Option<(Fetch, Fetch)>> =
        const { std::cell::RefCell::new(None) };
}

fn start_write(key: Vec<u8>, n: usize, k: usize, _ops: usize) -> Phase {
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

fn end_round(c: &mut Client) -> Phase {
    c.done += 1;
    match c.role {
        Role::Compactor { rounds } if c.done < rounds => Phase::ReadFirst,
        _ => Phase::Done,
    }
}

/// Whether member `n` must read present (`Some(true)`), absent
/// (`Some(false)`), or may read either (a write in flight).
fn expected(done: usize, in_flight: bool) -> Option<bool> {
    if in_flight { None } else { Some(done % 2 == 1) }
}

fn phases(state: &State) -> String {
    state
        .clients
        .iter()
        .map(|c| {
            let phase = match &c.phase {
                Phase::ReadFirst => "read-first",
                Phase::ReadSecond(_) => "read-second",
                Phase::Writing { .. } => "writing",
                Phase::Compacting { .. } => "copy",
                Phase::Sealing(_) => "seal",
                Phase::Done => "done",
            };
            let crashed = if c.crashed { " (crashed)" } else { "" };
            format!("{:?}:{phase}{crashed}", c.role)
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Checks one state's atomic snapshot; panics on a loss.
fn check_state(protocol: Protocol, state: &State, findings: &mut Findings, path: &[usize]) {
    let (members, over_counted) = snapshot(protocol, &state.server);
    let mut ghost = false;
    for (n, (done, in_flight)) in state.writer_status().into_iter().enumerate() {
        let present = members.contains(&member(n));
        match expected(done, in_flight) {
            Some(true) if !present => panic!(
                "{protocol:?}: acknowledged add of m{n} lost; path {path:?}; state {state:#?}"
            ),
            Some(false) if present => ghost = true,
            _ => {}
        }
    }
    if ghost {
        findings.ghost_states += 1;
        findings.ghost_phases.insert(phases(state));
    }
    if over_counted > 0 {
        findings.duplicate_states += 1;
    }
}

/// Checks a reader's finished read against what was acknowledged both
/// when it started and now.
fn check_reader(
    protocol: Protocol,
    start: &[(usize, bool)],
    now: &[(usize, bool)],
    members: &[Vec<u8>],
    findings: &mut Findings,
    path: &[usize],
) {
    for (n, (&(done0, flight0), &(done1, flight1))) in start.iter().zip(now).enumerate() {
        if done0 != done1 || flight0 || flight1 {
            continue; // a write of m<n> overlapped the read: either answer is right
        }
        let present = members.contains(&member(n));
        match expected(done0, false) {
            Some(true) if !present => {
                panic!("{protocol:?}: a reader missed acknowledged m{n}; path {path:?}")
            }
            Some(false) if present => findings.reader_ghosts += 1,
            _ => {}
        }
    }
}

/// Runs compactors alone until the set is settled, then checks it holds
/// exactly the acknowledged writes. Returns whether anything was off
/// before the repair.
fn repair_and_check(protocol: Protocol, state: &State, path: &[usize]) -> bool {
    let status = state.writer_status();
    let wrong = |server: &Server| {
        let (members, over) = snapshot(protocol, server);
        let mut wrong = over > 0;
        for (n, &(done, in_flight)) in status.iter().enumerate() {
            if in_flight {
                continue; // a writer crashed while sending: either answer is right
            }
            let present = members.contains(&member(n));
            if done % 2 == 1 && !present {
                panic!("{protocol:?}: acknowledged add of m{n} lost at the end; path {path:?}");
            }
            wrong |= done % 2 == 0 && present;
        }
        wrong
    };
    let before = wrong(&state.server);
    let mut repaired = State {
        server: state.server.clone(),
        clients: vec![Client {
            role: Role::Compactor { rounds: 3 },
            phase: Phase::ReadFirst,
            done: 0,
            start: Vec::new(),
            crashed: false,
        }],
        crashes_left: 0,
    };
    while next_cmd(protocol, &repaired.clients[0]).is_some() {
        step(protocol, &mut repaired, 0);
    }
    if protocol == Protocol::FlipCountingBothWhole {
        return before;
    }
    assert!(
        !wrong(&repaired.server),
        "{protocol:?}: still wrong after a compactor ran alone; path {path:?}; {:#?}",
        repaired.server
    );
    before
}

/// Explores every interleaving (and crash point) from `roles`, depth
/// first, visiting each distinct state once.
fn explore(protocol: Protocol, roles: &[Role], crashes: u8) -> Findings {
    let initial = State {
        server: Server::default(),
        clients: roles
            .iter()
            .map(|&role| Client {
                role,
                phase: Phase::ReadFirst,
                done: 0,
                start: Vec::new(),
                crashed: false,
            })
            .collect(),
        crashes_left: crashes,
    };
    let mut findings = Findings::default();
    let mut seen: HashSet<State> = HashSet::new();
    let mut stack: Vec<(State, Vec<usize>)> = vec![(initial, Vec::new())];
    while let Some((state, path)) = stack.pop() {
        if !seen.insert(state.clone()) {
            continue;
        }
        findings.states += 1;
        check_state(protocol, &state, &mut findings, &path);
        let live: Vec<usize> = (0..state.clients.len())
            .filter(|&i| next_cmd(protocol, &state.clients[i]).is_some())
            .collect();
        if live.is_empty() {
            findings.end_states += 1;
            if repair_and_check(protocol, &state, &path) {
                findings.end_anomalies_before_repair += 1;
            }
            continue;
        }
        for &i in &live {
            let mut next = state.clone();
            step(protocol, &mut next, i);
            findings.transitions += 1;
            if let Some((first, second)) = LAST_READ.with(|r| r.borrow_mut().take()) {
                let members = read_members(protocol, &first, &second);
                let now = next.writer_status();
                check_reader(
                    protocol,
                    &next.clients[i].start,
                    &now,
                    &members,
                    &mut findings,
                    &path,
                );
                // The check is done; forget the start so equal states merge.
                next.clients[i].start.clear();
            }
            let mut p = path.clone();
            p.push(i);
            stack.push((next, p));
            if state.crashes_left > 0 && !matches!(state.clients[i].role, Role::Reader) {
                let mut crashed = state.clone();
                crashed.clients[i].crashed = true;
                crashed.crashes_left -= 1;
                let mut p = path.clone();
                p.push(100 + i);
                stack.push((crashed, p));
            }
        }
    }
    findings
}

fn report(name: &str, f: &Findings) {
    eprintln!(
        "{name}: {} states, {} transitions, {} end states; ghost states {}, duplicate states {}, \
         reader ghosts {}, end states wrong before the repair {}",
        f.states,
        f.transitions,
        f.end_states,
        f.ghost_states,
        f.duplicate_states,
        f.reader_ghosts,
        f.end_anomalies_before_repair
    );
    let mut phases: Vec<&String> = f.ghost_phases.iter().collect();
    phases.sort();
    for phases in phases.iter().take(4) {
        eprintln!("  e.g. a ghost while {phases}");
    }
}

fn writers(count: usize, ops: usize) -> Vec<Role> {
    (0..count).map(|n| Role::Writer { n, ops }).collect()
}

/// CAS-only compaction of one list: every interleaving of two writers
/// (add then remove each), a compactor and a reader, with one crash.
#[test]
fn cas_only_compaction_loses_no_acknowledged_write() {
    let mut roles = writers(2, 2);
    roles.push(Role::Compactor { rounds: 2 });
    roles.push(Role::Reader);
    let f = explore(Protocol::CasOnly, &roles, 1);
    report(
        "cas-only, 2 writers x 2 writes + compactor x 2 + reader, 1 crash",
        &f,
    );
    assert!(f.states > 1_000, "the exploration is not trivial");
    assert_eq!(f.ghost_states + f.reader_ghosts + f.duplicate_states, 0);
    assert_eq!(f.end_anomalies_before_repair, 0);
}

/// Flipped lists: every interleaving of two writers, a compactor flipping
/// twice (a to b, then back) and a reader, with a crash at any step.
#[test]
fn flipping_loses_no_acknowledged_write_and_never_double_counts() {
    let mut roles = writers(2, 2);
    roles.push(Role::Compactor { rounds: 2 });
    roles.push(Role::Reader);
    let f = explore(Protocol::Flip, &roles, 1);
    report(
        "flip, 2 writers x 2 writes + compactor x 2 + reader, 1 crash",
        &f,
    );
    assert!(f.states > 10_000, "the exploration is not trivial");
    assert_eq!(
        f.duplicate_states, 0,
        "the copy header is never counted twice"
    );
    assert_eq!(f.ghost_states + f.reader_ghosts, 0);
}

/// Two compactors racing each other and a writer, with a crash anywhere:
/// at most one flip wins each round, a half-done flip is finished by the
/// other, and nothing acknowledged is lost.
#[test]
fn racing_compactors_lose_no_acknowledged_write() {
    let mut roles = writers(1, 2);
    roles.push(Role::Compactor { rounds: 2 });
    roles.push(Role::Compactor { rounds: 1 });
    let f = explore(Protocol::Flip, &roles, 1);
    report("flip, 1 writer x 2 writes + 2 compactors, 1 crash", &f);
    assert!(f.states > 1_000);
    assert_eq!(f.duplicate_states, 0);
    assert_eq!(f.ghost_states, 0);
}

/// The checker sees the hole the copy header closes: when reads count both
/// lists whole, the copy is counted twice from the moment it is written,
/// and a remove written then leaves its member present (a reappearing
/// item), until a later flip folds the lists again.
#[test]
fn counting_both_lists_whole_shows_the_manuals_duplicates() {
    let mut roles = writers(2, 2);
    roles.push(Role::Compactor { rounds: 2 });
    let f = explore(Protocol::FlipCountingBothWhole, &roles, 1);
    report(
        "flip read whole (the manual's combined read), 2 writers x 2 writes + compactor x 2, 1 crash",
        &f,
    );
    assert!(f.duplicate_states > 0, "the copy is counted twice");
    assert!(
        f.ghost_states > 0,
        "a remove after the copy leaves its member present"
    );
    assert!(f.end_anomalies_before_repair > 0);
}
