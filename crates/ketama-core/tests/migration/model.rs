//! Model checking of the migration protocols: a model of memcached (one key
//! on its old and its new owner; get, gets, add, cas, set and delete, each
//! atomic as memcached applies it) and an exhaustive exploration of every
//! interleaving of 2–3 clients driven by the library's own step functions
//! (`migration::Op`), with clients up to one phase apart (clock skew), the
//! key evicted from either server at any moment, and commands that fail
//! before or after the server applied them.
//!
//! Every read is checked against the history when it returns:
//!
//! * **stale**: it returns a value whose write ended before some write or
//!   delete began that was acknowledged before the read began (a resurrected
//!   delete is the same finding). Must never happen.
//! * **lost** (runs without faults or skew): a read with no write running
//!   beside it returns neither the latest acknowledged write nor a miss
//!   that the phase explains (see `expected_loss`).
//!
//! Two protocols are explored beside the library's, to show that the
//! checker finds what it looks for: mcrouter's `WarmUpRoute` as documented
//! (a miss copies the old value with `add`; sets go to the new owner only;
//! deletes to both) and the library's own protocol with the new owner
//! holding a value from before (a server that was not flushed).

use std::collections::HashSet;
use std::rc::Rc;
use std::sync::Arc;

use ketama_core::migration::{
    Action, Command, Lease, Leases, Migration, Mode, Op, OpKind, Outcome, Phase, Reply, ReplyKind,
    Schedule, Side, Step,
};
use ketama_core::{Flavour, Ring, RingConfig, ServerSpec};

// ---- memcached, one key ----

/// A value: a write's id (0: the value from before the migration) or a lease.
#[derive(Clone, PartialEq, Eq, Hash)]
enum Val {
    Data(u8),
    Lease(Lease),
}

impl std::fmt::Debug for Val {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Val::Data(id) => write!(f, "value of write {id}"),
            // The token: the client's seed and its lease counter.
            Val::Lease(lease) => {
                let token = String::from_utf8_lossy(&lease[lease.len() - 32..]).into_owned();
                write!(
                    f,
                    "lease {}/{}",
                    token[..16].trim_start_matches('0'),
                    token[16..].trim_start_matches('0')
                )
            }
        }
    }
}

impl Val {
    fn bytes(&self) -> Vec<u8> {
        match self {
            Val::Data(id) => format!("value-{id}").into_bytes(),
            Val::Lease(lease) => lease.to_vec(),
        }
    }
}

/// One server's copy of the key and its CAS counter (it survives deletes
/// and evictions, so a unique is never given twice).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct Server {
    item: Option<(Val, u64)>,
    next_cas: u64,
}

impl Server {
    fn store(&mut self, value: Val) {
        self.next_cas += 1;
        self.item = Some((value, self.next_cas));
    }

    /// Applies `command` (with `value` for storage commands and `cas` for
    /// the CAS ones) and answers as memcached does.
    fn apply(
        &mut self,
        command: Command,
        value: Option<Val>,
        cas: u64,
    ) -> (ReplyKind, Option<(Val, u64)>) {
        use ReplyKind as R;
        match command {
            Command::Get | Command::Gets => match &self.item {
                Some((v, c)) => (R::Hit, Some((v.clone(), *c))),
                None => (R::Miss, None),
            },
            Command::Set => {
                self.store(value.expect("a value to set"));
                (R::Stored, None)
            }
            Command::Add | Command::AddLease => {
                if self.item.is_some() {
                    return (R::NotStored, None);
                }
                self.store(value.expect("a value to add"));
                (R::Stored, None)
            }
            Command::CasCopy | Command::CasValue => match &self.item {
                None => (R::NotFound, None),
                Some((_, c)) if *c != cas => (R::Exists, None),
                Some(_) => {
                    self.store(value.expect("a value to cas"));
                    (R::Stored, None)
                }
            },
            Command::Delete => match self.item.take() {
                Some(_) => (R::Deleted, None),
                None => (R::NotFound, None),
            },
        }
    }
}

// ---- the protocols explored ----

/// A protocol's per-operation state machine.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Machine {
    /// The library's.
    Library(Op),
    /// mcrouter's WarmUpRoute as its documentation describes it.
    Naive(NaiveOp),
}

impl Machine {
    fn step(&self) -> Step {
        match self {
            Machine::Library(op) => op.step(),
            Machine::Naive(op) => op.step(),
        }
    }

    fn reply(&mut self, reply: Reply<'_>) {
        match self {
            Machine::Library(op) => {
                op.reply(reply).expect("the model answers what was asked");
            }
            Machine::Naive(op) => op.reply(reply),
        }
    }

    fn lease(&self) -> Vec<u8> {
        match self {
            Machine::Library(op) => op.lease().to_vec(),
            Machine::Naive(_) => Vec::new(),
        }
    }
}

/// WarmUpRoute: get the new owner; on a miss get the old owner and `add`
/// its value to the new one; sets to the new owner only; deletes to both.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct NaiveOp {
    kind: OpKind,
    at: u8,
    done: Option<Outcome>,
}

impl NaiveOp {
    fn step(&self) -> Step {
        let action = |command, side| {
            Step::Do(Action {
                command,
                side,
                server: 0,
                cas: 0,
                exptime: None,
            })
        };
        if let Some(outcome) = self.done {
            return Step::Done(outcome);
        }
        match (self.kind, self.at) {
            (OpKind::Get, 0) => action(Command::Get, Side::New),
            (OpKind::Get, 1) => action(Command::Get, Side::Old),
            // The copy: `add` of the old value (CasCopy carries it in the model).
            (OpKind::Get, _) => action(Command::CasCopy, Side::New),
            (OpKind::Set, _) => action(Command::Set, Side::New),
            (OpKind::Delete, 0) => action(Command::Delete, Side::New),
            (OpKind::Delete, _) => action(Command::Delete, Side::Old),
            (OpKind::Add, _) => action(Command::Add, Side::New),
        }
    }

    fn reply(&mut self, reply: Reply<'_>) {
        use ReplyKind as R;
        let failed = reply.kind == R::Failed;
        self.done = match (self.kind, self.at, reply.kind) {
            (OpKind::Get, 0, R::Hit) => Some(Outcome::HitNew),
            (OpKind::Get, 0, _) => None,
            (OpKind::Get, 1, R::Hit) => None,
            (OpKind::Get, 1, _) => Some(Outcome::Miss),
            (OpKind::Get, _, _) => Some(Outcome::HitOld),
            (OpKind::Set | OpKind::Add, _, R::Stored) => Some(Outcome::Stored),
            (OpKind::Set | OpKind::Add, _, _) => Some(if failed {
                Outcome::Failed
            } else {
                Outcome::NotStored
            }),
            (OpKind::Delete, 0, _) if !failed => None,
            (OpKind::Delete, _, _) => Some(if failed {
                Outcome::Failed
            } else {
                Outcome::Deleted
            }),
        };
        self.at += 1;
    }
}

// ---- the model ----

/// What a client is doing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Running {
    machine: Machine,
    kind: OpKind,
    /// This operation's write id (writes, adds and deletes).
    id: u8,
    /// Index of its phase in the mode's phase list.
    phase: u8,
    /// The values it read last from each side.
    last_new: Option<Val>,
    last_old: Option<Val>,
    /// Reads: the writes acknowledged when it began.
    acked_at_start: u16,
    /// Reads: a write or delete ran beside it.
    overlapped: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Client {
    next: usize,
    running: Option<Running>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct State {
    old: Server,
    new: Server,
    clients: Vec<Client>,
    /// The lowest phase a new operation may take (it may take the next one
    /// too when clients are skewed).
    window: u8,
    /// Writes that ended (acknowledged or not), and those acknowledged.
    ended: u16,
    acked: u16,
    /// For each write: the writes that had ended when it began.
    preceded: [u16; 16],
    /// For each write: a delete (its value is nothing), and its phase.
    deletes: u16,
    write_phase: [u8; 16],
    evictions_left: u8,
    failures_left: u8,
    faulted: bool,
}

/// One exploration's setting.
#[derive(Clone)]
struct Setting {
    mode: Mode,
    scripts: Vec<Vec<OpKind>>,
    skew: bool,
    evictions: u8,
    failures: u8,
    naive: bool,
    /// The new owner holds a value from before (write id 15, older than
    /// everything) that nobody flushed.
    stale_new_owner: bool,
}

#[derive(Debug, Default)]
struct Findings {
    states: usize,
    reads: usize,
    stale: Vec<String>,
    lost: Vec<String>,
    /// The steps to the first finding.
    trace: Option<String>,
}

/// The steps that led to a state, newest first.
struct Trace {
    what: String,
    before: Option<Rc<Trace>>,
}

impl Trace {
    fn render(trace: &Option<Rc<Trace>>, last: &str) -> String {
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

struct Model {
    setting: Setting,
    phases: Vec<Phase>,
    times: Vec<u64>,
    migrations: Vec<Migration>,
    key: Vec<u8>,
}

const INITIAL: u8 = 0;
const UNFLUSHED: u8 = 15;

impl Model {
    fn new(setting: Setting) -> Model {
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

    fn initial(&self) -> State {
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
    fn write_id(c: usize, i: usize) -> u8 {
        (1 + 4 * c + i) as u8
    }

    fn explore(&self) -> Findings {
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

    fn successors(&self, s: &State, findings: &mut Findings) -> Vec<(State, String)> {
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

    fn begin(&self, s: &State, c: usize, phase: u8) -> State {
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

    fn advance(
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

    fn finish(&self, n: &mut State, r: &Running, outcome: Outcome, findings: &mut Findings) {
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
    fn expected_loss(&self, returned: Option<u8>, written: u8, read: u8) -> bool {
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
enum Fault {
    None,
    Before,
    After,
}

use OpKind::{Add, Delete, Get, Set};

fn setting(mode: Mode, scripts: &[&[OpKind]]) -> Setting {
    Setting {
        mode,
        scripts: scripts.iter().map(|s| s.to_vec()).collect(),
        skew: true,
        evictions: 1,
        failures: 1,
        naive: false,
        stale_new_owner: false,
    }
}

fn check(setting: Setting, what: &str) -> Findings {
    let findings = Model::new(setting).explore();
    println!(
        "{what}: {} states, {} reads checked, {} stale, {} lost",
        findings.states,
        findings.reads,
        findings.stale.len(),
        findings.lost.len()
    );
    findings
}

fn assert_clean(findings: &Findings) {
    assert!(findings.reads > 0);
    let first = findings.stale.first().or(findings.lost.first());
    assert!(
        first.is_none(),
        "{} stale reads, {} lost writes; the first: {}, after:\n  {}",
        findings.stale.len(),
        findings.lost.len(),
        first.unwrap(),
        findings.trace.as_deref().unwrap_or("")
    );
}

/// The scripts explored: two clients by default (every race of a copy with
/// one write, add or delete, and a read after it), three with
/// `KETAMA_MODEL_FULL=1` (about 33 million states; the figures are in
/// docs/migration.md).
fn scripts(two: &[&[&[OpKind]]], three: &[&[&[OpKind]]]) -> Vec<Vec<Vec<OpKind>>> {
    let full = std::env::var_os("KETAMA_MODEL_FULL").is_some_and(|v| v == "1");
    two.iter()
        .chain(if full { three } else { &[] })
        .map(|clients| clients.iter().map(|ops| ops.to_vec()).collect())
        .collect()
}

fn setting_of(mode: Mode, scripts: Vec<Vec<OpKind>>) -> Setting {
    Setting {
        scripts,
        ..setting(mode, &[])
    }
}

#[test]
fn warm_up_reads_nothing_stale_with_skew_evictions_and_failures() {
    for clients in scripts(
        &[
            &[&[Get, Get], &[Set]],
            &[&[Get, Get], &[Delete]],
            &[&[Get], &[Set, Get]],
            &[&[Get], &[Delete, Get]],
            &[&[Get, Get], &[Add]],
            &[&[Add, Get], &[Get]],
        ],
        &[
            &[&[Get, Get], &[Set], &[Delete]],
            &[&[Get], &[Get], &[Delete]],
            &[&[Get], &[Set, Delete], &[Get]],
            &[&[Get, Get], &[Add], &[Delete]],
            &[&[Add, Get], &[Get], &[Set]],
        ],
    ) {
        let what = format!("warm-up {clients:?}");
        assert_clean(&check(setting_of(Mode::Warmup, clients), &what));
    }
}

#[test]
fn phased_and_gradual_read_nothing_stale_with_skew_evictions_and_failures() {
    for mode in [Mode::Phased, Mode::Gradual] {
        for clients in scripts(
            &[
                &[&[Get, Get], &[Set]],
                &[&[Get], &[Delete, Get]],
                &[&[Add, Get], &[Set]],
            ],
            &[
                &[&[Get, Get], &[Set], &[Delete]],
                &[&[Get], &[Set, Delete], &[Add]],
            ],
        ) {
            let what = format!("{} {clients:?}", mode.name());
            assert_clean(&check(setting_of(mode, clients), &what));
        }
    }
}

#[test]
fn without_faults_or_skew_no_acknowledged_write_is_lost() {
    for mode in [Mode::Warmup, Mode::Phased] {
        for clients in scripts(
            &[
                &[&[Get, Get, Get], &[Set, Delete, Set]],
                &[&[Get, Get], &[Add, Get]],
            ],
            &[
                &[&[Get, Get, Get], &[Set], &[Delete, Set]],
                &[&[Get, Get], &[Add, Get], &[Set]],
            ],
        ) {
            let s = Setting {
                skew: false,
                evictions: 0,
                failures: 0,
                ..setting_of(mode, clients)
            };
            let what = format!("{} without faults {:?}", mode.name(), s.scripts);
            assert_clean(&check(s, &what));
        }
    }
}

#[test]
fn the_checker_finds_what_warm_up_route_and_an_unflushed_server_serve() {
    // WarmUpRoute: a copy racing a delete resurrects it; an eviction on the
    // new owner exposes the old owner's value after a newer set.
    let naive = Setting {
        naive: true,
        failures: 0,
        ..setting(Mode::Warmup, &[&[Get], &[Delete, Get]])
    };
    let findings = check(naive, "WarmUpRoute, get beside delete");
    assert!(
        findings
            .stale
            .iter()
            .any(|f| f.contains("older than delete")),
        "{:?}",
        findings.stale
    );
    let naive = Setting {
        naive: true,
        failures: 0,
        skew: false,
        ..setting(Mode::Warmup, &[&[Set, Get]])
    };
    let findings = check(naive, "WarmUpRoute, set then get with an eviction");
    assert!(
        findings
            .stale
            .iter()
            .any(|f| f.contains("older than write")),
        "{:?}",
        findings.stale
    );
    // The library's protocol over a new owner that was not flushed.
    let unflushed = Setting {
        stale_new_owner: true,
        failures: 0,
        evictions: 0,
        ..setting(Mode::Warmup, &[&[Get], &[Set]])
    };
    let findings = check(unflushed, "an unflushed new owner");
    assert!(!findings.stale.is_empty());
}
