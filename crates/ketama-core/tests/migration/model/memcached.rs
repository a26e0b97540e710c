//! memcached as the model sees it: one key on one server, each command
//! applied atomically, as memcached applies it.

use ketama_core::migration::{Command, Lease, ReplyKind};

/// A value: a write's id (0: the value from before the migration) or a lease.
#[derive(Clone, PartialEq, Eq, Hash)]
pub(super) enum Val {
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
    pub(super) fn bytes(&self) -> Vec<u8> {
        match self {
            Val::Data(id) => format!("value-{id}").into_bytes(),
            Val::Lease(lease) => lease.to_vec(),
        }
    }
}

/// One server's copy of the key and its CAS counter (it survives deletes
/// and evictions, so a unique is never given twice).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub(super) struct Server {
    pub(super) item: Option<(Val, u64)>,
    pub(super) next_cas: u64,
}

impl Server {
    pub(super) fn store(&mut self, value: Val) {
        self.next_cas += 1;
        self.item = Some((value, self.next_cas));
    }

    /// Applies `command` (with `value` for storage commands and `cas` for
    /// the CAS ones) and answers as memcached does.
    pub(super) fn apply(
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
