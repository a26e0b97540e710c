//! The exploration: every interleaving (and crash point) of the clients,
//! depth first, each distinct state visited once and checked against what
//! the clients were told.

use std::collections::{BTreeMap, HashSet};

use ketama_core::setcodec::flip::{self, ListId};

use super::memcached::*;
use super::protocols::*;

/// What every client observed, for the checks.
#[derive(Default)]
pub(super) struct Findings {
    pub(super) states: usize,
    pub(super) transitions: usize,
    pub(super) end_states: usize,
    pub(super) ghost_states: usize,
    pub(super) duplicate_states: usize,
    pub(super) reader_ghosts: usize,
    pub(super) end_anomalies_before_repair: usize,
    pub(super) ghost_phases: HashSet<String>,
}

/// The members present in the server's current values.
pub(super) fn snapshot(protocol: Protocol, server: &Server) -> (Vec<Vec<u8>>, usize) {
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
pub(super) fn count_whole(
    a: &Option<(Vec<u8>, u64)>,
    b: &Option<(Vec<u8>, u64)>,
) -> (Vec<Vec<u8>>, usize) {
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
pub(super) fn read_members(
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

pub(super) fn phases(state: &State) -> String {
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
pub(super) fn check_state(
    protocol: Protocol,
    state: &State,
    findings: &mut Findings,
    path: &[usize],
) {
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
pub(super) fn check_reader(
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
pub(super) fn repair_and_check(protocol: Protocol, state: &State, path: &[usize]) -> bool {
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
pub(super) fn explore(protocol: Protocol, roles: &[Role], crashes: u8) -> Findings {
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
