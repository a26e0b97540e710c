//! `ketama.Migration` and `ketama.MigrationOp`: a migration between two
//! rings and one operation driven step by step, the core's
//! `ketama_core::migration` as it is (docs/migration.md). The names of
//! modes, commands, sides, replies and outcomes are the core's registry
//! names; the schedule and settings are read by the core's option parser.

use std::sync::Arc;

use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt, PyString};

use ketama_core::migration::{
    Command, Migration as CoreMigration, Mode, Op, OpKind, Reply, ReplyKind, Step, now_ms,
};

use crate::errors::OrRaise;
use crate::keys::{bytes_of, name_of};
use crate::names::variant_of;
use crate::ring::Ring;

/// A migration from one ring to another (any two flavours and server
/// lists); immutable and thread-safe.
///
/// Migration(old_ring, new_ring, mode=None, start_ms=None, options=None,
/// **settings): `mode` is "warmup", "phased" or "gradual" (None: the
/// library's default, warm-up); `start_ms` milliseconds since the Unix
/// epoch (None: now); the schedule and TTLs as option text
/// (`options="interval=60s,warmup=1h"`) or as keywords (`interval="60s"`,
/// `copy_ttl=3600`), not both.
#[pyclass(module = "ketama", name = "Migration", frozen)]
pub struct Migration {
    migration: Arc<CoreMigration>,
}

/// `now_ms` as given, or the clock.
fn at(now_ms_given: Option<u64>) -> u64 {
    now_ms_given.unwrap_or_else(now_ms)
}

/// A keyword setting's value as option text: a str as it is, an int as
/// seconds.
fn setting_text(value: &Bound<'_, PyAny>, name: &str) -> PyResult<String> {
    if value.is_instance_of::<PyInt>() {
        return Ok(value.extract::<u64>()?.to_string());
    }
    if value.is_instance_of::<PyString>() {
        return value.extract::<String>();
    }
    Err(PyTypeError::new_err(format!(
        "migration option {name} must be a str or an int, not {}",
        value.get_type().name()?
    )))
}

#[pymethods]
impl Migration {
    #[new]
    #[pyo3(signature = (old_ring, new_ring, mode=None, start_ms=None, options=None, **settings))]
    fn new(
        py: Python<'_>,
        old_ring: &Bound<'_, Ring>,
        new_ring: &Bound<'_, Ring>,
        mode: Option<&Bound<'_, PyAny>>,
        start_ms: Option<u64>,
        options: Option<&Bound<'_, PyAny>>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Migration> {
        let old = old_ring.get().shared().arc(py)?;
        let new = new_ring.get().shared().arc(py)?;
        let mode = match mode.filter(|m| !m.is_none()) {
            Some(mode) => variant_of::<Mode>(mode, "migration mode")?,
            None => Mode::default(),
        };
        let options = options
            .filter(|o| !o.is_none())
            .map(|o| name_of(o, "options"))
            .transpose()?;
        let mut items = Vec::new();
        for (name, value) in settings.into_iter().flat_map(|s| s.iter()) {
            let name = name.extract::<String>()?;
            let value = setting_text(&value, &name)?;
            items.push((name, value));
        }
        let migration = match (options, items.is_empty()) {
            (Some(_), false) => {
                return Err(PyValueError::new_err(
                    "give the migration's options as text (options=...) or as keywords, not both",
                ));
            }
            (options, true) => {
                CoreMigration::from_options(old, new, mode, start_ms, options.as_deref())
            }
            (None, false) => CoreMigration::from_option_items(
                old,
                new,
                mode,
                start_ms,
                items.iter().map(|(n, v)| (n.as_str(), v.as_str())),
            ),
        };
        Ok(Migration {
            migration: Arc::new(migration.or_raise(py)?),
        })
    }

    /// The mode's name.
    #[getter]
    fn mode(&self) -> &'static str {
        self.migration.schedule().mode.name()
    }

    /// When the migration starts (milliseconds since the Unix epoch).
    #[getter]
    fn start_ms(&self) -> u64 {
        self.migration.schedule().start_ms
    }

    /// When the last key reaches the phase "new": the new ring alone.
    #[getter]
    fn end_ms(&self) -> u64 {
        self.migration.schedule().end_ms()
    }

    /// (new_server, old_server or None): the key's owner in the new ring,
    /// and its owner in the old ring when that is another server (None when
    /// the key does not move).
    fn route(&self, py: Python<'_>, key: &Bound<'_, PyAny>) -> PyResult<(String, Option<String>)> {
        let key = bytes_of(key, "key")?;
        let route = self.migration.route(&key).or_raise(py)?;
        let address = |ring: &ketama_core::Ring, index: usize| {
            String::from_utf8_lossy(ring.servers()[index].address()).into_owned()
        };
        let new = address(self.migration.new_ring(), route.new);
        let old = route
            .moved
            .then(|| address(self.migration.old(), route.old));
        Ok((new, old))
    }

    /// The name of the key's phase at `now_ms` (None: now): "old",
    /// "prepare", "warm", "switched" or "new".
    #[pyo3(signature = (key, now_ms=None))]
    fn phase(&self, key: &Bound<'_, PyAny>, now_ms: Option<u64>) -> PyResult<&'static str> {
        let key = bytes_of(key, "key")?;
        Ok(self.migration.phase(&key, at(now_ms)).name())
    }

    /// Begins the operation `op` ("get", "set", "add", "delete") on `key`
    /// at `now_ms` (None: now): drive the returned MigrationOp to its outcome.
    #[pyo3(signature = (op, key, now_ms=None))]
    fn begin(
        &self,
        py: Python<'_>,
        op: &Bound<'_, PyAny>,
        key: &Bound<'_, PyAny>,
        now_ms: Option<u64>,
    ) -> PyResult<MigrationOp> {
        let kind = variant_of::<OpKind>(op, "migration operation")?;
        let key = bytes_of(key, "key")?;
        let op = self.migration.begin(kind, &key, at(now_ms)).or_raise(py)?;
        Ok(MigrationOp {
            migration: Arc::clone(&self.migration),
            op,
        })
    }

    fn __repr__(&self) -> String {
        let schedule = self.migration.schedule();
        format!(
            "<ketama.Migration {}, {} -> {} servers, from {} ms to {} ms>",
            schedule.mode.name(),
            self.migration.old().servers().len(),
            self.migration.new_ring().servers().len(),
            schedule.start_ms,
            schedule.end_ms()
        )
    }
}

/// One operation of a migration on one key: step() names the command to
/// send next (or None when finished, with `outcome`), reply() feeds the
/// server's answer. Used by one thread at a time.
#[pyclass(module = "ketama", name = "MigrationOp")]
pub struct MigrationOp {
    migration: Arc<CoreMigration>,
    op: Op,
}

#[pymethods]
impl MigrationOp {
    /// The next command as (command, side, address, cas, exptime, lease),
    /// or None when the operation is finished. `command` is "get", "gets",
    /// "add-lease", "cas-copy", "set", "add", "cas-value" or "delete";
    /// `side` "old" or "new"; `cas` the CAS unique of the two cas commands
    /// (else 0); `exptime` the TTL of "add-lease" and "cas-copy" (None: the
    /// caller's own); `lease` the bytes "add-lease" stores (else b"").
    #[allow(clippy::type_complexity)]
    fn step<'py>(
        &self,
        py: Python<'py>,
    ) -> Option<(
        &'static str,
        &'static str,
        String,
        u64,
        Option<u32>,
        Bound<'py, PyBytes>,
    )> {
        let Step::Do(action) = self.op.step() else {
            return None;
        };
        let lease: &[u8] = if action.command == Command::AddLease {
            self.op.lease()
        } else {
            &[]
        };
        Some((
            action.command.name(),
            action.side.name(),
            String::from_utf8_lossy(self.migration.address(&action)).into_owned(),
            action.cas,
            action.exptime,
            PyBytes::new(py, lease),
        ))
    }

    /// Feeds the server's answer to the current command: `reply` is "hit",
    /// "miss", "stored", "not-stored", "exists", "not-found", "deleted" or
    /// "failed"; for a hit, `value` the value's bytes and `cas` its CAS
    /// unique (0 for a plain get). A reply the command cannot give raises
    /// KetamaError and changes nothing.
    #[pyo3(signature = (reply, value=None, cas=0))]
    fn reply(
        &mut self,
        py: Python<'_>,
        reply: &Bound<'_, PyAny>,
        value: Option<&Bound<'_, PyAny>>,
        cas: u64,
    ) -> PyResult<()> {
        let kind = variant_of::<ReplyKind>(reply, "migration reply")?;
        let value = match value.filter(|v| !v.is_none()) {
            Some(value) => bytes_of(value, "value")?,
            None => Default::default(),
        };
        self.op
            .reply(Reply {
                kind,
                value: &value,
                cas,
            })
            .or_raise(py)?;
        Ok(())
    }

    /// The outcome's name once finished ("hit-new", "hit-old", "miss",
    /// "stored", "not-stored", "deleted", "not-found", "failed"), else None.
    #[getter]
    fn outcome(&self) -> Option<&'static str> {
        match self.op.step() {
            Step::Done(outcome) => Some(outcome.name()),
            Step::Do(_) => None,
        }
    }

    /// The name of the key's phase when the operation began.
    #[getter]
    fn phase(&self) -> &'static str {
        self.op.phase().name()
    }

    /// Whether the key moves between the two rings.
    #[getter]
    fn moved(&self) -> bool {
        self.op.route().moved
    }
}
