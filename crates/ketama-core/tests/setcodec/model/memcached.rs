//! The model of memcached: its storage commands, each atomic as memcached
//! applies it under the item lock.

use std::collections::BTreeMap;

/// A memcached command, as the model's clients send them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) enum Cmd {
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
pub(super) enum Resp {
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
pub(super) struct Server {
    pub(super) items: BTreeMap<Vec<u8>, (Option<Vec<u8>>, u64)>,
}

impl Server {
    pub(super) fn apply(&mut self, cmd: &Cmd) -> Resp {
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

    pub(super) fn fetch(&self, key: &[u8]) -> Option<(Vec<u8>, u64)> {
        self.items
            .get(key)
            .and_then(|(v, version)| v.clone().map(|v| (v, *version)))
    }
}
