//! The exploration: every interleaving of the clients' steps, with skew,
//! evictions and failures, and the checker that judges each read.

use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

use ketama_core::migration::{
    Command, Leases, Migration, Mode, OpKind, Outcome, Phase, Reply, ReplyKind, Schedule, Side,
    Step,
};
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

use super::memcached::{Server, Val};
use super::protocols::{Machine, NaiveOp};

/// What a client is doing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Running {
    pub(super) machine: Machine,
    pub(super) kind: OpKind,
    /// This operation's write id (writes, adds and deletes).
    pub(super) id: u8,
    /// Index of its phase in the mode's phase list.
    pub(super) phase: u8,
    /// The values it read last from each side.
    pub(super) last_new: Option<Val>,
    pub(super) last_old: Option<Val>,
    /// Reads: the writes acknowledged when it began.
    pub(super) acked_at_start: u16,
    /// Reads: a write or delete ran beside it.
    pub(super) overlapped: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct Client {
    pub(super) next: usize,
    pub(super) running: Option<Running>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct State {
    pub(super) old: Server,
    pub(super) new: Server,
    pub(super) clients: Vec<Client>,
    /// The lowest phase a new operation may take (it may take the next one
    /// too when clients are skewed).
    pub(super) window: u8,
    /// Writes that ended (acknowledged or not), and those acknowledged.
    pub(super) ended: u16,
    pub(super) acked: u16,
    /// For each write: the writes that had ended when it began.
    pub(super) preceded: [u16; 16],
    /// For each write: a delete (its value is nothing), and its phase.
    pub(super) deletes: u16,
    pub(super) write_phase: [u8; 16],
    pub(super) evictions_left: u8,
    pub(super) failures_left: u8,
    pub(super) faulted: bool,
}

/// One exploration's setting.
#[derive(Clone)]
pub(super) struct Setting {
    pub(super) mode: Mode,
    pub(super) scripts: Vec<Vec<OpKind>>,
    pub(super) skew: bool,
    pub(super) evictions: u8,
    pub(super) failures: u8,
    pub(super) naive: bool,
    /// The new owner holds a value from before (write id 15, older than
    /// everything) that nobody flushed.
    pub(super) stale_new_owner: bool,
}

#[derive(Debug, Default)]
pub(super) struct Findings {
    pub(super) states: usize,
    pub(super) reads: usize,
    pub(super) stale: Vec<String>,
    pub(super) lost: Vec<String>,
    /// The steps to the first finding.
    pub(super) trace: Option<String>,
}

/// The steps that led to a state, newest first.
pub(super) struct Trace {
    pub(super) what: String,
    pub(super) before: Option<Rc<Trace>>,
}

impl Trace {
    pub(super) fn render(trace: &Option<Rc<Trace>>, last: &str) -> String {
        let mut steps = vec![last.to_string()];
        let mut at = trace.clone();
        while let Some(step) = at {
            steps.push(step.what.clone());
            at = step.before.clone();
        }
        steps.reverse();
        steps.join("\n  ")
    }
}

pub(super) struct Model {
    pub(super) setting: Setting,
    pub(super) phases: Vec<Phase>,
    pub(super) times: Vec<u64>,
    pub(super) migrations: Vec<Migration>,
    pub(super) key: Vec<u8>,
}

pub(super) const INITIAL: u8 = 0;
pub(super) const UNFLUSHED: u8 = 15;

impl Model {
    pub(super) fn new(setting: Setting) -> Model {
        let ring = |addresses: &[&str]| {
            let servers = addresses.iter().map(|a| ServerSpec::new(*a, 100)).collect();
            Arc::new(Ring::new(servers, RingConfig::flavour(Flavour::Libketama)).unwrap())
        };
        let old = ring(&["10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"]);
        let new = ring(&[
            "10.0.0.1:11211",
            "10.0.0.2:11211",
            "10.0.0.3:11211",
            "10.0.0.4:11211",
        ]);
        let schedule = Schedule {
            mode: setting.mode,
            start_ms: 1000,
            interval_ms: 100,
            warmup_ms: 100,
        };
        let migrations: Vec<Migration> = (0..setting.scripts.len())
            .map(|c| {
                Migration::new(old.clone(), new.clone(), schedule)
                    .unwrap()
                    .with_leases(Leases::with_seed(c as u64 + 1))
            })
            .collect();
        let key = (0..)
            .map(|i| format!("key:{i}").into_bytes())
            .find(|k| migrations[0].route(k).unwrap().moved)
            .unwrap();
        // A moment of each phase the key goes through, in order.
        let mut phases = Vec::new();
        let mut times = Vec::new();
        for t in 0..=schedule.end_ms() + 1 {
            let phase = migrations[0].phase(&key, t);
            if phases.last() != Some(&phase) {
                phases.push(phase);
                times.push(t);
            }
        }
        Model {
            setting,
            phases,
            times,
            migrations,
            key,
        }
    }

    pub(super) fn initial(&self) -> State {
        let mut old = Server::default();
        old.store(Val::Data(INITIAL));
        let mut new = Server::default();
        if self.setting.stale_new_owner {
            new.store(Val::Data(UNFLUSHED));
        }
        let mut preceded = [0u16; 16];
        // The value from before precedes every write; the unflushed one is older still.
        for p in preceded.iter_mut() {
            *p = 1 << INITIAL | 1 << UNFLUSHED;
        }
        preceded[INITIAL as usize] = 1 << UNFLUSHED;
        preceded[UNFLUSHED as usize] = 0;
        State {
            old,
            new,
            clients: vec![
                Client {
                    next: 0,
                    running: None
                };
                self.setting.scripts.len()
            ],
            window: 0,
            ended: 1 << INITIAL | 1 << UNFLUSHED,
            acked: 1 << INITIAL | 1 << UNFLUSHED,
            preceded,
            deletes: 0,
            write_phase: [0; 16],
            evictions_left: self.setting.evictions,
            failures_left: self.setting.failures,
            faulted: self.setting.stale_new_owner,
        }
    }

    /// Write ids: client c's i-th operation is `1 + 4c + i`.
    pub(super) fn write_id(c: usize, i: usize) -> u8 {
        (1 + 4 * c + i) as u8
    }

    pub(super) fn explore(&self) -> Findings {
        let mut findings = Findings::default();
        let mut seen: HashSet<State> = HashSet::new();
        let mut stack = vec![(self.initial(), None::<Rc<Trace>>)];
        while let Some((state, trace)) = stack.pop() {
            if !seen.insert(state.clone()) {
                continue;
            }
            findings.states += 1;
            let found = findings.stale.len() + findings.lost.len();
            for (next, what) in self.successors(&state, &mut findings) {
                if findings.trace.is_none() && findings.stale.len() + findings.lost.len() > found {
                    findings.trace = Some(Trace::render(&trace, &what));
                }
                if !seen.contains(&next) {
                    let step = Rc::new(Trace {
                        what,
                        before: trace.clone(),
                    });
                    stack.push((next, Some(step)));
                }
            }
        }
        findings
    }

    pub(super) fn successors(&self, s: &State, findings: &mut Findings) -> Vec<(State, String)> {
        let mut out = Vec::new();
        let last_phase = (self.phases.len() - 1) as u8;
        let in_flight: Vec<u8> = s
            .clients
            .iter()
            .filter_map(|c| c.running.as_ref().map(|r| r.phase))
            .collect();
        // The clock moves on once no operation of the lowest phase runs
        // (the interval is longer than any skew plus any request).
        let may_advance = if self.setting.skew {
            !in_flight.contains(&s.window)
        } else {
            in_flight.is_empty()
        };
        if s.window < last_phase && may_advance {
            let mut n = s.clone();
            n.window += 1;
            out.push((
                n,
                format!(
                    "the clock reaches {}",
                    self.phases[s.window as usize + 1].name()
                ),
            ));
        }
        // Evictions.
        if s.evictions_left > 0 {
            for side in [Side::Old, Side::New] {
                let mut n = s.clone();
                let server = match side {
                    Side::Old => &mut n.old,
                    Side::New => &mut n.new,
                };
                if server.item.take().is_some() {
                    n.evictions_left -= 1;
                    n.faulted = true;
                    out.push((n, format!("eviction on the {} owner", side.name())));
                }
            }
        }
        for (c, client) in s.clients.iter().enumerate() {
            match &client.running {
                None => {
                    let script = &self.setting.scripts[c];
                    if client.next >= script.len() {
                        continue;
                    }
                    let top = if self.setting.skew {
                        s.window.saturating_add(1).min(last_phase)
                    } else {
                        s.window
                    };
                    for phase in s.window..=top {
                        let what = format!(
                            "client {c} begins {} in phase {}",
                            script[client.next].name(),
                            self.phases[phase as usize].name()
                        );
                        out.push((self.begin(s, c, phase), what));
                    }
                }
                Some(running) => {
                    for fault in [Fault::None, Fault::Before, Fault::After] {
                        if fault != Fault::None && s.failures_left == 0 {
                            continue;
                        }
                        out.push(self.advance(s, c, running, fault, findings));
                    }
                }
            }
        }
        out
    }

    pub(super) fn begin(&self, s: &State, c: usize, phase: u8) -> State {
        let mut n = s.clone();
        let kind = self.setting.scripts[c][s.clients[c].next];
        let id = Model::write_id(c, s.clients[c].next);
        let machine = if self.setting.naive {
            Machine::Naive(NaiveOp {
                kind,
                at: 0,
                done: None,
            })
        } else {
            let now = self.times[phase as usize];
            Machine::Library(self.migrations[c].begin(kind, &self.key, now).unwrap())
        };
        if kind != OpKind::Get {
            n.preceded[id as usize] = s.ended;
            n.write_phase[id as usize] = phase;
            if kind == OpKind::Delete {
                n.deletes |= 1 << id;
            }
            for other in n.clients.iter_mut().flat_map(|c| c.running.as_mut()) {
                other.overlapped = true;
            }
        }
        let overlapped = s
            .clients
            .iter()
            .flat_map(|c| c.running.as_ref())
            .any(|r| r.kind != OpKind::Get);
        n.clients[c].running = Some(Running {
            machine,
            kind,
            id,
            phase,
            last_new: None,
            last_old: None,
            acked_at_start: s.acked,
            overlapped,
        });
        n
    }

    pub(super) fn advance(
        &self,
        s: &State,
        c: usize,
        running: &Running,
        fault: Fault,
        findings: &mut Findings,
    ) -> (State, String) {
        let mut n = s.clone();
        let mut r = running.clone();
        let Step::Do(action) = r.machine.step() else {
            unreachable!("finished operations are cleared")
        };
        let value = match action.command {
            Command::AddLease => Some(Val::Lease(r.machine.lease().try_into().expect("a lease"))),
            Command::CasCopy => Some(r.last_old.clone().expect("a value read from the old owner")),
            Command::Set | Command::Add | Command::CasValue => Some(Val::Data(r.id)),
            _ => None,
        };
        let server = match action.side {
            Side::Old => &mut n.old,
            Side::New => &mut n.new,
        };
        let (kind, hit) = if fault == Fault::Before {
            (ReplyKind::Failed, None)
        } else {
            // WarmUpRoute copies with `add` (the model's CasCopy carries the value).
            let command = match (&r.machine, action.command) {
                (Machine::Naive(_), Command::CasCopy) => Command::Add,
                (_, command) => command,
            };
            let answer = server.apply(command, value, action.cas);
            if fault == Fault::After {
                (ReplyKind::Failed, None)
            } else {
                answer
            }
        };
        if fault != Fault::None {
            n.failures_left -= 1;
            n.faulted = true;
        }
        let bytes = hit.as_ref().map(|(v, _)| v.bytes()).unwrap_or_default();
        let reply = Reply {
            kind,
            value: &bytes,
            cas: hit.as_ref().map_or(0, |h| h.1),
        };
        match action.side {
            Side::Old => r.last_old = hit.clone().map(|h| h.0).or(r.last_old.take()),
            Side::New => r.last_new = hit.clone().map(|h| h.0).or(r.last_new.take()),
        }
        let mut what = format!(
            "client {c}: {} on the {} owner -> {}{}",
            action.command.name(),
            action.side.name(),
            kind.name(),
            match (fault, &hit) {
                (Fault::Before, _) => " (failed before it ran)".to_string(),
                (Fault::After, _) => " (failed after it ran)".to_string(),
                (_, Some((v, cas))) => format!(" {v:?} cas {cas}"),
                _ => String::new(),
            }
        );
        r.machine.reply(reply);
        match r.machine.step() {
            Step::Do(_) => n.clients[c].running = Some(r),
            Step::Done(outcome) => {
                what.push_str(&format!("; {} ends: {}", r.kind.name(), outcome.name()));
                n.clients[c].running = None;
                n.clients[c].next += 1;
                self.finish(&mut n, &r, outcome, findings);
            }
        }
        (n, what)
    }

    pub(super) fn finish(
        &self,
        n: &mut State,
        r: &Running,
        outcome: Outcome,
        findings: &mut Findings,
    ) {
        if r.kind != OpKind::Get {
            n.ended |= 1 << r.id;
            let acknowledged = match r.kind {
                OpKind::Delete => matches!(outcome, Outcome::Deleted | Outcome::NotFound),
                _ => outcome == Outcome::Stored,
            };
            if acknowledged {
                n.acked |= 1 << r.id;
            }
            return;
        }
        findings.reads += 1;
        let value = match outcome {
            Outcome::HitNew => r.last_new.clone(),
            Outcome::HitOld => r.last_old.clone(),
            _ => None,
        };
        let returned = match value {
            Some(Val::Data(id)) => Some(id),
            Some(Val::Lease(_)) => panic!("a lease was returned to a caller"),
            None => None,
        };
        if let Some(x) = returned {
            // Stale: x ended before a write began that was acknowledged
            // before this read began.
            let acked = r.acked_at_start;
            if let Some(y) =
                (0..16).find(|&y| acked & (1 << y) != 0 && n.preceded[y] & (1 << x) != 0)
            {
                findings.stale.push(format!(
                    "a read in phase {} returned write {x}, older than {} {y} acknowledged before it began",
                    self.phases[r.phase as usize].name(),
                    if n.deletes & (1 << y) != 0 { "delete" } else { "write" }
                ));
            }
        }
        if !self.setting.skew && !n.faulted && !r.overlapped {
            // The latest acknowledged writes (none acknowledged after them).
            let acked = r.acked_at_start;
            let latest: Vec<u8> = (0..16u8)
                .filter(|&y| acked & (1 << y) != 0 && y != UNFLUSHED)
                .filter(|&y| {
                    !(0..16).any(|z| acked & (1 << z) != 0 && n.preceded[z] & (1 << y) != 0)
                })
                .collect();
            let explained = latest.iter().any(|&y| {
                let expected = if n.deletes & (1 << y) != 0 {
                    None
                } else {
                    Some(y)
                };
                expected == returned
                    || self.expected_loss(returned, n.write_phase[y as usize], r.phase)
            });
            if !explained {
                findings.lost.push(format!(
                    "a read in phase {} returned {returned:?}; the latest acknowledged writes were {latest:?}",
                    self.phases[r.phase as usize].name()
                ));
            }
        }
    }

    /// A miss the schedule explains: a switch without warm-up (phased
    /// modes, or after the warm phase) is cold for keys written before it.
    pub(super) fn expected_loss(&self, returned: Option<u8>, written: u8, read: u8) -> bool {
        let switched = self
            .phases
            .iter()
            .position(|&p| p == Phase::Switched)
            .unwrap() as u8;
        let warm = self.phases.iter().position(|&p| p == Phase::Warm);
        let written_before_switch = match warm {
            Some(warm) => written < warm as u8,
            None => written < switched,
        };
        returned.is_none()
            && read >= switched
            && (written_before_switch || warm.is_some() && written < switched)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fault {
    None,
    Before,
    After,
}
