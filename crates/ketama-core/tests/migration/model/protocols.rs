//! The protocols explored: the library's own (`migration::Op`) and
//! mcrouter's `WarmUpRoute` as its documentation describes it.

use ketama_core::migration::{Action, Command, Op, OpKind, Outcome, Reply, ReplyKind, Side, Step};

/// A protocol's per-operation state machine.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Machine {
    /// The library's.
    Library(Op),
    /// mcrouter's WarmUpRoute as its documentation describes it.
    Naive(NaiveOp),
}

impl Machine {
    pub(super) fn step(&self) -> Step {
        match self {
            Machine::Library(op) => op.step(),
            Machine::Naive(op) => op.step(),
        }
    }

    pub(super) fn reply(&mut self, reply: Reply<'_>) {
        match self {
            Machine::Library(op) => {
                op.reply(reply).expect("the model answers what was asked");
            }
            Machine::Naive(op) => op.reply(reply),
        }
    }

    pub(super) fn lease(&self) -> Vec<u8> {
        match self {
            Machine::Library(op) => op.lease().to_vec(),
            Machine::Naive(_) => Vec::new(),
        }
    }
}

/// WarmUpRoute: get the new owner; on a miss get the old owner and `add`
/// its value to the new one; sets to the new owner only; deletes to both.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct NaiveOp {
    pub(super) kind: OpKind,
    pub(super) at: u8,
    pub(super) done: Option<Outcome>,
}

impl NaiveOp {
    pub(super) fn step(&self) -> Step {
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

    pub(super) fn reply(&mut self, reply: Reply<'_>) {
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
