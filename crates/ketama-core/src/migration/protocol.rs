//! The migration protocols, as step functions a client drives with its own
//! memcached connections (the library does no network I/O).
//!
//! [`Op`] is one get, set, add or delete of one key at one moment. The
//! client asks [`Op::step`] what to do, does it on the server named
//! (`side` and server index), and feeds the reply to [`Op::reply`], until
//! the step is [`Step::Done`] with the outcome to hand its caller. Keys that
//! do not move, and every key before and after the migration, take one
//! command on one server, as without a migration.
//!
//! For a key that moves, by phase ([`Phase`]):
//!
//! | phase | get | set | add | delete |
//! |---|---|---|---|---|
//! | prepare | old | old, then delete new | old, then delete new | old, then new |
//! | warm | new; on a miss, lease on new, read old, CAS the copy | delete old, then new | check old, delete old, add on new (over a lease) | old, then new |
//! | switched | new | delete old, then new | delete old, add on new (over a lease) | old, then new |
//!
//! Why nothing stale is ever read (checked exhaustively by the model in
//! the core's tests, with clients one phase apart, evictions and failing
//! servers): warm-up copies go from the old side to the new one, and every
//! write or delete clears the side copies come FROM before it writes or
//! clears the side they go TO (old before new from the warm phase on; a
//! prepare-phase write stores on the old side first, then clears the new
//! one); a copy is a CAS over the reader's own lease, taken before it reads
//! the old side, which any set, delete or eviction in between replaces. So
//! a copy never lands over, or after, a newer write or an acknowledged
//! delete, and the side a later read consults holds the newest write or
//! nothing. (Writing the new side before clearing the old one is not
//! enough: an eviction of the new value lets a reader copy the old one
//! after the write was acknowledged.) A command that fails makes the
//! operation [`Outcome::Failed`]: not acknowledged, to be reported to the
//! caller as an error.

use super::Route;
use super::lease::{Lease, is_lease};
use super::schedule::Phase;
use crate::Error;

crate::named_enum! {
    /// An operation a client asks for (`ketama_migration_op_kind`).
    pub enum OpKind: "ketama_migration_op_kind" {
        /// Read a key.
        Get = 0, KETAMA_MIGRATION_OP_GET, "get", [];
        /// Store a key's value.
        Set = 1, KETAMA_MIGRATION_OP_SET, "set", [];
        /// Store a key's value only if the key holds none.
        Add = 2, KETAMA_MIGRATION_OP_ADD, "add", [];
        /// Remove a key.
        Delete = 3, KETAMA_MIGRATION_OP_DELETE, "delete", [];
    }
}

crate::named_enum! {
    /// Which ring's server a command goes to (`ketama_migration_side`).
    pub enum Side: "ketama_migration_side" {
        /// The old ring's owner of the key.
        Old = 0, KETAMA_MIGRATION_SIDE_OLD, "old", [];
        /// The new ring's owner of the key.
        New = 1, KETAMA_MIGRATION_SIDE_NEW, "new", [];
    }
}

crate::named_enum! {
    /// A memcached command the client sends next (`ketama_migration_command`).
    pub enum Command: "ketama_migration_command" {
        /// `get`: reply with the value (hit) or a miss.
        Get = 0, KETAMA_MIGRATION_DO_GET, "get", [];
        /// `gets`: reply with the value and its CAS unique (hit) or a miss.
        Gets = 1, KETAMA_MIGRATION_DO_GETS, "gets", [];
        /// `add` the operation's lease ([`Op::lease`]) with the lease TTL
        /// ([`Action::exptime`]).
        AddLease = 2, KETAMA_MIGRATION_DO_ADD_LEASE, "add-lease", [];
        /// `cas` the value the old side returned, with the copy TTL
        /// ([`Action::exptime`]) and the CAS unique [`Action::cas`].
        CasCopy = 3, KETAMA_MIGRATION_DO_CAS_COPY, "cas-copy", [];
        /// `set` the caller's value, with the caller's TTL.
        Set = 4, KETAMA_MIGRATION_DO_SET, "set", [];
        /// `add` the caller's value, with the caller's TTL.
        Add = 5, KETAMA_MIGRATION_DO_ADD, "add", [];
        /// `cas` the caller's value, with the caller's TTL and the CAS
        /// unique [`Action::cas`] (it replaces a lease).
        CasValue = 6, KETAMA_MIGRATION_DO_CAS_VALUE, "cas-value", [];
        /// `delete` the key.
        Delete = 7, KETAMA_MIGRATION_DO_DELETE, "delete", [];
    }
}

crate::named_enum! {
    /// What the server answered (`ketama_migration_reply`).
    pub enum ReplyKind: "ketama_migration_reply" {
        /// A value (`get`, `gets`).
        Hit = 0, KETAMA_MIGRATION_REPLY_HIT, "hit", [];
        /// No value (`get`, `gets`).
        Miss = 1, KETAMA_MIGRATION_REPLY_MISS, "miss", [];
        /// `STORED`.
        Stored = 2, KETAMA_MIGRATION_REPLY_STORED, "stored", [];
        /// `NOT_STORED`.
        NotStored = 3, KETAMA_MIGRATION_REPLY_NOT_STORED, "not-stored", [];
        /// `EXISTS` (`cas`: the value changed).
        Exists = 4, KETAMA_MIGRATION_REPLY_EXISTS, "exists", [];
        /// `NOT_FOUND` (`cas`, `delete`).
        NotFound = 5, KETAMA_MIGRATION_REPLY_NOT_FOUND, "not-found", [];
        /// `DELETED`.
        Deleted = 6, KETAMA_MIGRATION_REPLY_DELETED, "deleted", [];
        /// No answer: the server is down, timed out or answered an error.
        Failed = 7, KETAMA_MIGRATION_REPLY_FAILED, "failed", [];
    }
}

crate::named_enum! {
    /// How an operation ended (`ketama_migration_outcome`).
    pub enum Outcome: "ketama_migration_outcome" {
        /// Return the value the new side's server returned last.
        HitNew = 0, KETAMA_MIGRATION_DONE_HIT_NEW, "hit-new", [];
        /// Return the value the old side's server returned.
        HitOld = 1, KETAMA_MIGRATION_DONE_HIT_OLD, "hit-old", [];
        /// Nothing to return.
        Miss = 2, KETAMA_MIGRATION_DONE_MISS, "miss", [];
        /// The value was stored.
        Stored = 3, KETAMA_MIGRATION_DONE_STORED, "stored", [];
        /// `add`: the key holds a value; nothing was stored.
        NotStored = 4, KETAMA_MIGRATION_DONE_NOT_STORED, "not-stored", [];
        /// The key was deleted.
        Deleted = 5, KETAMA_MIGRATION_DONE_DELETED, "deleted", [];
        /// `delete`: the key held nothing.
        NotFound = 6, KETAMA_MIGRATION_DONE_NOT_FOUND, "not-found", [];
        /// A server failed: the operation is not acknowledged (report an error).
        Failed = 7, KETAMA_MIGRATION_DONE_FAILED, "failed", [];
    }
}

/// A server's reply: its kind, and for a hit the value and CAS unique.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reply<'v> {
    /// What the server answered.
    pub kind: ReplyKind,
    /// The value of a hit (empty otherwise).
    pub value: &'v [u8],
    /// The CAS unique of a `gets` hit (0 otherwise).
    pub cas: u64,
}

impl<'v> Reply<'v> {
    /// A reply without a value.
    pub const fn of(kind: ReplyKind) -> Reply<'static> {
        Reply {
            kind,
            value: &[],
            cas: 0,
        }
    }

    /// A hit with its value and CAS unique (0 for a plain `get`).
    pub const fn hit(value: &'v [u8], cas: u64) -> Reply<'v> {
        Reply {
            kind: ReplyKind::Hit,
            value,
            cas,
        }
    }
}

/// One command to send.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Action {
    /// What to send.
    pub command: Command,
    /// To the old or the new owner of the key.
    pub side: Side,
    /// That owner's index in its ring's server list.
    pub server: usize,
    /// The CAS unique for `cas-copy` and `cas-value` (0 otherwise).
    pub cas: u64,
    /// The TTL in seconds for `add-lease` and `cas-copy`; `None`: the
    /// caller's own.
    pub exptime: Option<u32>,
}

/// What to do next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Step {
    /// Send this command and feed its reply to [`Op::reply`].
    Do(Action),
    /// Finished: hand this to the caller.
    Done(Outcome),
}

/// Where an operation stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum State {
    /// One command on one side; its reply is the outcome.
    Only(Command, Side),
    /// A prepare-phase set or add on the old side; then the new side is cleared.
    WriteOld(Command),
    /// Clearing the new side after a write on the old one, keeping its outcome.
    ClearNew(Outcome),
    /// Clearing the old side before a set or add on the new one.
    ClearOld(Command),
    /// The set or add on the new side, once the old side is clear.
    WriteNew(Command),
    /// A delete's first command (old side).
    DeleteOld,
    /// A delete's second command (new side), after the old side answered.
    DeleteNew(Outcome),
    /// Warm get: the new side first.
    LookNew,
    /// Warm get after a miss: take a lease on the new side.
    TakeLease,
    /// The lease was not taken: look at the new side once more.
    LookAgain,
    /// The lease was taken: read it back with its CAS unique.
    ReadLease,
    /// The lease is ours: read the old side to copy its value.
    ReadOldToCopy,
    /// Copy the old side's value over the lease.
    Copy,
    /// Read the old side and copy nothing (a lease not ours, or none).
    ReadOld,
    /// Warm add: does the old side hold the key?
    AddCheckOld,
    /// An add found the new side holding something: a lease?
    AddLook,
    /// Replace the lease by the caller's value.
    AddOverLease,
    /// Finished.
    Done(Outcome),
}

/// One operation on one key, driven step by step.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Op {
    route: Route,
    phase: Phase,
    state: State,
    cas: u64,
    lease: Option<Lease>,
    lease_ttl: u32,
    copy_ttl: u32,
}

impl Op {
    /// The operation `kind` on a key routed as `route`, in `phase`; `lease`
    /// is the reader's own (needed only by a get of a moved key in the
    /// warm phase).
    pub(super) fn new(
        kind: OpKind,
        route: Route,
        phase: Phase,
        lease: impl FnOnce() -> Lease,
        lease_ttl: u32,
        copy_ttl: u32,
    ) -> Op {
        let side = match phase {
            Phase::Old | Phase::Prepare => Side::Old,
            Phase::Warm | Phase::Switched | Phase::New => Side::New,
        };
        let both = route.moved && matches!(phase, Phase::Prepare | Phase::Warm | Phase::Switched);
        let write = |command| match side {
            Side::Old => State::WriteOld(command),
            Side::New => State::ClearOld(command),
        };
        let state = match kind {
            OpKind::Get if both && phase == Phase::Warm => State::LookNew,
            OpKind::Get => State::Only(Command::Get, side),
            OpKind::Delete if both => State::DeleteOld,
            OpKind::Delete => State::Only(Command::Delete, side),
            OpKind::Set if both => write(Command::Set),
            OpKind::Set => State::Only(Command::Set, side),
            OpKind::Add if both && phase == Phase::Warm => State::AddCheckOld,
            OpKind::Add if both => write(Command::Add),
            OpKind::Add => State::Only(Command::Add, side),
        };
        let lease = (state == State::LookNew).then(lease);
        Op {
            route,
            phase,
            state,
            cas: 0,
            lease,
            lease_ttl,
            copy_ttl,
        }
    }

    /// The key's owners.
    pub fn route(&self) -> Route {
        self.route
    }

    /// The key's phase when the operation began.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// The lease to store for [`Command::AddLease`] (empty when the
    /// operation takes none).
    pub fn lease(&self) -> &[u8] {
        self.lease.as_ref().map_or(&[], |l| &l[..])
    }

    /// What to do next.
    pub fn step(&self) -> Step {
        use Command as C;
        use Side::{New, Old};
        let (command, side) = match self.state {
            State::Done(outcome) => return Step::Done(outcome),
            State::Only(command, side) => (command, side),
            State::WriteOld(command) => (command, Old),
            State::WriteNew(command) => (command, New),
            State::ClearOld(_) | State::DeleteOld => (C::Delete, Old),
            State::ClearNew(_) | State::DeleteNew(_) => (C::Delete, New),
            State::LookNew | State::LookAgain => (C::Get, New),
            State::TakeLease => (C::AddLease, New),
            State::ReadLease | State::AddLook => (C::Gets, New),
            State::ReadOldToCopy | State::ReadOld | State::AddCheckOld => (C::Get, Old),
            State::Copy => (C::CasCopy, New),
            State::AddOverLease => (C::CasValue, New),
        };
        Step::Do(Action {
            command,
            side,
            server: match side {
                Old => self.route.old,
                New => self.route.new,
            },
            cas: if matches!(command, C::CasCopy | C::CasValue) {
                self.cas
            } else {
                0
            },
            exptime: match command {
                C::AddLease => Some(self.lease_ttl),
                C::CasCopy => Some(self.copy_ttl),
                _ => None,
            },
        })
    }

    /// Feeds the reply to the command of [`Op::step`] and returns the next
    /// step. A reply that command cannot give (a hit to a delete), or a
    /// reply after the end, is an error and changes nothing.
    pub fn reply(&mut self, reply: Reply<'_>) -> Result<Step, Error> {
        let Step::Do(action) = self.step() else {
            return Err(Error::InvalidArgument(
                "migration: a reply after the operation finished".into(),
            ));
        };
        check_reply(action.command, reply.kind)?;
        self.state = self.advance(reply);
        Ok(self.step())
    }

    fn advance(&mut self, reply: Reply<'_>) -> State {
        use ReplyKind as R;
        let kind = reply.kind;
        // A lease read back is a miss wherever it is found.
        let hit = kind == R::Hit && !is_lease(reply.value);
        let hit_outcome = |side| match side {
            Side::Old => Outcome::HitOld,
            Side::New => Outcome::HitNew,
        };
        match self.state {
            State::Only(Command::Get, side) => State::Done(if hit {
                hit_outcome(side)
            } else if kind == R::Failed {
                Outcome::Failed
            } else {
                Outcome::Miss
            }),
            State::Only(_, _) => State::Done(write_outcome(kind)),
            State::WriteOld(command) => match kind {
                R::NotStored if command == Command::Add => State::Done(Outcome::NotStored),
                _ => State::ClearNew(write_outcome(kind)),
            },
            State::ClearNew(outcome) => State::Done(if kind == R::Failed {
                Outcome::Failed
            } else {
                outcome
            }),
            // A write whose old side could not be cleared is not made.
            State::ClearOld(_) if kind == R::Failed => State::Done(Outcome::Failed),
            State::ClearOld(command) => State::WriteNew(command),
            // An add that found something may have found a lease: replace it.
            State::WriteNew(Command::Add) if kind == R::NotStored => State::AddLook,
            State::WriteNew(_) => State::Done(write_outcome(kind)),
            State::DeleteOld => State::DeleteNew(write_outcome(kind)),
            State::DeleteNew(first) => State::Done(match (first, write_outcome(kind)) {
                (Outcome::Failed, _) | (_, Outcome::Failed) => Outcome::Failed,
                (Outcome::Deleted, _) | (_, Outcome::Deleted) => Outcome::Deleted,
                _ => Outcome::NotFound,
            }),
            State::LookNew => match kind {
                _ if hit => State::Done(Outcome::HitNew),
                R::Miss => State::TakeLease,
                // Somebody's lease, or the new side failed: the old side's
                // value may be read, not copied.
                _ => State::ReadOld,
            },
            State::TakeLease => match kind {
                R::Stored => State::ReadLease,
                R::Failed => State::ReadOld,
                _ => State::LookAgain,
            },
            State::LookAgain => {
                if hit {
                    State::Done(Outcome::HitNew)
                } else {
                    State::ReadOld
                }
            }
            State::ReadLease => {
                if hit {
                    State::Done(Outcome::HitNew)
                } else if kind == R::Hit && Some(reply.value) == self.lease.as_ref().map(|l| &l[..])
                {
                    self.cas = reply.cas;
                    State::ReadOldToCopy
                } else {
                    State::ReadOld
                }
            }
            State::ReadOldToCopy => match kind {
                _ if hit => State::Copy,
                R::Failed => State::Done(Outcome::Failed),
                _ => State::Done(Outcome::Miss),
            },
            // Whatever the CAS answered, the value read is the answer.
            State::Copy => State::Done(Outcome::HitOld),
            State::ReadOld => State::Done(match kind {
                _ if hit => Outcome::HitOld,
                R::Failed => Outcome::Failed,
                _ => Outcome::Miss,
            }),
            State::AddCheckOld => {
                if hit {
                    State::Done(Outcome::NotStored)
                } else {
                    State::ClearOld(Command::Add)
                }
            }
            State::AddLook => {
                if kind == R::Hit && is_lease(reply.value) {
                    self.cas = reply.cas;
                    State::AddOverLease
                } else if kind == R::Failed {
                    State::Done(Outcome::Failed)
                } else {
                    State::Done(Outcome::NotStored)
                }
            }
            State::AddOverLease => match kind {
                R::Stored => State::Done(Outcome::Stored),
                R::Failed => State::Done(Outcome::Failed),
                _ => State::Done(Outcome::NotStored),
            },
            State::Done(_) => self.state,
        }
    }
}

/// The outcome of a storage or delete command's reply.
fn write_outcome(kind: ReplyKind) -> Outcome {
    match kind {
        ReplyKind::Stored => Outcome::Stored,
        ReplyKind::NotStored | ReplyKind::Exists => Outcome::NotStored,
        ReplyKind::Deleted => Outcome::Deleted,
        ReplyKind::NotFound => Outcome::NotFound,
        ReplyKind::Hit | ReplyKind::Miss | ReplyKind::Failed => Outcome::Failed,
    }
}

/// Fails, naming both, when `command` cannot be answered by `reply`.
fn check_reply(command: Command, reply: ReplyKind) -> Result<(), Error> {
    use ReplyKind as R;
    let fits = match command {
        Command::Get | Command::Gets => matches!(reply, R::Hit | R::Miss),
        Command::AddLease | Command::Set | Command::Add => {
            matches!(reply, R::Stored | R::NotStored)
        }
        Command::CasCopy | Command::CasValue => {
            matches!(reply, R::Stored | R::Exists | R::NotFound)
        }
        Command::Delete => matches!(reply, R::Deleted | R::NotFound),
    };
    if fits || reply == R::Failed {
        return Ok(());
    }
    Err(Error::InvalidArgument(format!(
        "migration: reply {} does not answer the command {}",
        reply.name(),
        command.name()
    )))
}
