//! Moving a pool from one ring to another without a cold cache or a stale
//! read: a resize (3 → 4 servers), a replaced server, or a change of
//! client placement (pecl memcache → php-memcached) on the same servers.
//!
//! Because the library places keys exactly as both sides do, it can tell
//! for every key its old owner, its new owner and whether it moves
//! ([`Migration::route`]), and drive each get, set, add and delete through
//! the protocol of the migration's current phase ([`Migration::begin`],
//! [`protocol`]). Like the set codec it does no network I/O: the client
//! sends the commands it is given to its own connections.
//!
//! * [`schedule`]: the modes (warm-up, phased, gradual) and when each phase
//!   begins, for the pool and for one key;
//! * [`protocol`]: the step functions of each operation;
//! * [`lease`]: the leases warm-up copies are made under;
//! * [`plan`]: what moves between which servers, the extra reads each old
//!   server takes during warm-up, which servers must be flushed, and which
//!   keys of a `lru_crawler metadump` listing are at risk.

pub mod lease;
pub mod options;
pub mod plan;
pub mod protocol;
pub mod schedule;

use std::sync::Arc;

use crate::{Error, Ring};
pub use lease::{Lease, Leases, is_lease};
pub use options::{OPTION_NAMES, Settings};
pub use protocol::{Action, Command, Op, OpKind, Outcome, Reply, ReplyKind, Side, Step};
pub use schedule::{Mode, Phase, Schedule};

/// A key's owners in both rings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Route {
    /// Its owner's index in the new ring's server list.
    pub new: usize,
    /// Its owner's index in the old ring's server list.
    pub old: usize,
    /// True when the two owners are different servers (by address).
    pub moved: bool,
}

/// A migration between two rings: any two flavours, any two server lists.
/// Immutable and `Send + Sync`; share it between threads.
#[derive(Debug)]
pub struct Migration {
    old: Arc<Ring>,
    new: Arc<Ring>,
    schedule: Schedule,
    settings: Settings,
    leases: Leases,
    /// Both rings hash a key the same way: one hash places it in both.
    same_hash: bool,
}

impl Migration {
    /// The migration from `old` to `new` on `schedule`, with the default
    /// [`Settings`].
    pub fn new(old: Arc<Ring>, new: Arc<Ring>, schedule: Schedule) -> Result<Migration, Error> {
        Migration::with_settings(old, new, schedule, Settings::default())
    }

    /// The migration from `old` to `new` on `schedule`, with `settings`.
    pub fn with_settings(
        old: Arc<Ring>,
        new: Arc<Ring>,
        schedule: Schedule,
        settings: Settings,
    ) -> Result<Migration, Error> {
        schedule.check()?;
        let same_hash = crate::analysis::exactly_comparable(&old, &new);
        Ok(Migration {
            old,
            new,
            schedule,
            settings,
            leases: Leases::new(),
            same_hash,
        })
    }

    /// The migration of `mode` from `old` to `new` starting at `start_ms`
    /// (`None`: now), with the schedule and settings of the option text
    /// `options` (see [`options::parse`]): what every front end calls.
    pub fn from_options(
        old: Arc<Ring>,
        new: Arc<Ring>,
        mode: Mode,
        start_ms: Option<u64>,
        options: Option<&str>,
    ) -> Result<Migration, Error> {
        let (schedule, settings) = options::parse(mode, start_ms.unwrap_or_else(now_ms), options)?;
        Migration::with_settings(old, new, schedule, settings)
    }

    /// [`Migration::from_options`] with the options given one by one as
    /// `(name, value)` pairs ([`options::parse_items`]): what bindings with
    /// keyword arguments call, passing only the options given.
    pub fn from_option_items<'a>(
        old: Arc<Ring>,
        new: Arc<Ring>,
        mode: Mode,
        start_ms: Option<u64>,
        items: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Migration, Error> {
        let start = start_ms.unwrap_or_else(now_ms);
        let (schedule, settings) = options::parse_items(mode, start, items)?;
        Migration::with_settings(old, new, schedule, settings)
    }

    /// The same migration handing out leases from `leases` (models and tests
    /// that need reproducible leases).
    pub fn with_leases(mut self, leases: Leases) -> Migration {
        self.leases = leases;
        self
    }

    /// The ring the pool moves from.
    pub fn old(&self) -> &Arc<Ring> {
        &self.old
    }

    /// The ring the pool moves to.
    pub fn new_ring(&self) -> &Arc<Ring> {
        &self.new
    }

    /// When each phase begins.
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// The TTLs of leases and copies.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// The key's owner in each ring and whether it moves.
    #[inline]
    pub fn route(&self, key: &[u8]) -> Result<Route, Error> {
        let (old, new) = if self.same_hash {
            let hash = self.new.hash_key(key);
            (self.old.locate_hash(hash), self.new.locate_hash(hash))
        } else {
            (self.old.locate(key), self.new.locate(key))
        };
        let (Some(old), Some(new)) = (old, new) else {
            return Err(Error::no_points());
        };
        let (old, new) = (old.server_index, new.server_index);
        Ok(Route {
            old,
            new,
            moved: self.old.servers()[old].address() != self.new.servers()[new].address(),
        })
    }

    /// The phase of `key` at `now_ms` (milliseconds since the Unix epoch).
    pub fn phase(&self, key: &[u8], now_ms: u64) -> Phase {
        self.schedule.phase_of(key, now_ms)
    }

    /// Begins the operation `kind` on `key` at `now_ms`: drive the returned
    /// [`Op`] to its outcome.
    pub fn begin(&self, kind: OpKind, key: &[u8], now_ms: u64) -> Result<Op, Error> {
        Ok(Op::new(
            kind,
            self.route(key)?,
            self.phase(key, now_ms),
            || self.leases.next(),
            self.settings.lease_ttl,
            self.settings.copy_ttl,
        ))
    }

    /// The server address a step's action goes to.
    pub fn address(&self, action: &Action) -> &[u8] {
        self.address_c(action).to_bytes()
    }

    /// [`Migration::address`] as a NUL-terminated string (for the C ABI).
    pub fn address_c(&self, action: &Action) -> &std::ffi::CStr {
        let ring = match action.side {
            Side::Old => &self.old,
            Side::New => &self.new,
        };
        ring.servers()[action.server].address_c()
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests;
