//! `ketama.Set`: sets kept in memcached values (decode, encode, compaction,
//! paired lists, Redis set algebra).

use std::borrow::Cow;
use std::sync::{Arc, PoisonError, RwLock};

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyIterator, PyList, PyTuple, PyType};

use ketama_core::registry::Named;
use ketama_core::setcodec::paired::{self, Side};
use ketama_core::setcodec::recipe;
use ketama_core::setcodec::{
    self, CompactionPolicy, DEFAULT_MAX_MEMBER_LEN, DecodeOptions, DecodedSet, Format, MemberSet,
    Op, ops,
};

use crate::errors::{OrRaise, closed, types};
use crate::keys::{Held, bytes_of};
use crate::names::{enum_of, variant_of};
use crate::shared::detach_when;

/// Values of at least this many bytes are decoded, and sets of at least
/// this many members in all combined, with the interpreter detached (the
/// GIL released).
const DETACH_BYTES: usize = 64 * 1024;
const DETACH_MEMBERS: usize = 4096;

/// A decoded set and the longest member its writes accept.
struct SetData {
    set: DecodedSet,
    max_member_len: usize,
}

/// A decoded, immutable set: members in bytewise order, `in`, `len`, stats.
#[pyclass(module = "ketama", name = "Set", frozen)]
pub struct Set {
    data: RwLock<Option<Arc<SetData>>>,
}

/// A set encoding argument (a name, or an id; None: `default`).
fn encoding_of(
    encoding: Option<&Bound<'_, PyAny>>,
    default: Option<Format>,
) -> PyResult<Option<Format>> {
    match encoding {
        Some(encoding) if !encoding.is_none() => enum_of::<Format>(encoding, "encoding", true),
        _ => Ok(default),
    }
}

/// An encoding to write: T1 by default; detection and the Membase formats are refused.
fn writable(encoding: Option<&Bound<'_, PyAny>>, py: Python<'_>) -> PyResult<Format> {
    Format::require_writable(encoding_of(encoding, Some(Format::T1))?).or_raise(py)
}

/// The compaction policy from keyword arguments, the core's defaults for the others.
fn policy(
    threshold: Option<usize>,
    soft_limit: Option<usize>,
    ratio: Option<bool>,
) -> CompactionPolicy {
    let default = CompactionPolicy::default();
    CompactionPolicy {
        threshold: threshold.unwrap_or(default.threshold),
        soft_limit: soft_limit.unwrap_or(default.soft_limit),
        ratio: ratio.unwrap_or(default.ratio),
    }
}

/// Members given as an iterable of str or bytes.
fn member_list<'py>(members: &Bound<'py, PyAny>) -> PyResult<Held<'py>> {
    Held::collect(members)
}

impl Set {
    fn new(set: DecodedSet, max_member_len: usize) -> Set {
        Set {
            data: RwLock::new(Some(Arc::new(SetData {
                set,
                max_member_len,
            }))),
        }
    }

    fn data(&self) -> PyResult<Arc<SetData>> {
        let guard = self.data.read().unwrap_or_else(PoisonError::into_inner);
        guard.clone().ok_or_else(|| closed("Set"))
    }

    /// SUNION / SINTER / SDIFF of this set and `others` (None: a missing key).
    fn combine(
        &self,
        py: Python<'_>,
        others: &Bound<'_, PyTuple>,
        operation: fn(&[&MemberSet]) -> Result<MemberSet, setcodec::SetError>,
    ) -> PyResult<Set> {
        let sets = self.with_others(others)?;
        let max = sets
            .iter()
            .flatten()
            .map(|s| s.max_member_len)
            .fold(DEFAULT_MAX_MEMBER_LEN, usize::max);
        let size: usize = sets.iter().flatten().map(|s| s.set.members.len()).sum();
        let empty = MemberSet::new();
        let members = detach_when(py, size >= DETACH_MEMBERS, || {
            let list: Vec<&MemberSet> = sets
                .iter()
                .map(|s| s.as_ref().map_or(&empty, |s| &s.set.members))
                .collect();
            operation(&list)
        })
        .or_raise(py)?;
        Ok(Set::new(DecodedSet::from_members(members), max))
    }

    /// This set and `others`, each None for a missing key.
    fn with_others(&self, others: &Bound<'_, PyTuple>) -> PyResult<Vec<Option<Arc<SetData>>>> {
        let mut sets = vec![Some(self.data()?)];
        for other in others.iter() {
            if other.is_none() {
                sets.push(None);
                continue;
            }
            let other = other.cast::<Set>().map_err(|_| {
                PyTypeError::new_err("set algebra takes ketama.Set objects or None (a missing key)")
            })?;
            sets.push(Some(other.get().data()?));
        }
        Ok(sets)
    }
}

#[pymethods]
impl Set {
    /// Set.decode(value, encoding="auto", max_member_len=0): decodes a
    /// memcached value; a malformed one raises KetamaError (its kind,
    /// offset and record attributes say where).
    #[classmethod]
    #[pyo3(signature = (value, encoding=None, max_member_len=0))]
    fn decode(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        value: &Bound<'_, PyAny>,
        encoding: Option<&Bound<'_, PyAny>>,
        max_member_len: usize,
    ) -> PyResult<Set> {
        let value = bytes_of(value, "value")?;
        let options = DecodeOptions::with_max(encoding_of(encoding, None)?, max_member_len);
        let set = detach_when(py, value.len() >= DETACH_BYTES, || {
            setcodec::decode(&value, &options)
        })
        .or_raise(py)?;
        Ok(Set::new(set, options.max_member_len))
    }

    /// Set.decode_paired(adds, removes, max_member_len=0): reads a paired
    /// list (follow-X / unfollow-X values; b"" for a missing key), counted:
    /// members occurring more often in `adds` than in `removes`.
    #[classmethod]
    #[pyo3(signature = (adds, removes, max_member_len=0))]
    fn decode_paired(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        adds: &Bound<'_, PyAny>,
        removes: &Bound<'_, PyAny>,
        max_member_len: usize,
    ) -> PyResult<Set> {
        let adds = bytes_of(adds, "adds")?;
        let removes = bytes_of(removes, "removes")?;
        let options = DecodeOptions::with_max(None, max_member_len);
        let big = adds.len() + removes.len() >= DETACH_BYTES;
        let set = detach_when(py, big, || paired::decode_paired(&adds, &removes, &options))
            .or_raise(py)?;
        Ok(Set::new(set, options.max_member_len))
    }

    /// Set.encode_paired(members, encoding="t1", max_member_len=0): the
    /// APPEND payload recording members in one list of a pair.
    #[staticmethod]
    #[pyo3(signature = (members, encoding=None, max_member_len=0))]
    fn encode_paired<'py>(
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
        encoding: Option<&Bound<'py, PyAny>>,
        max_member_len: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let held = member_list(members)?;
        let members = held.bytes("member")?;
        let format = writable(encoding, py)?;
        let max = DecodeOptions::with_max(None, max_member_len).max_member_len;
        let payload = paired::encode_paired(&members, format, max).or_raise(py)?;
        Ok(PyBytes::new(py, &payload))
    }

    /// Set.paired_key(base, side="add"): the key of one list of a pair,
    /// follow-<base> or unfollow-<base>.
    #[staticmethod]
    #[pyo3(signature = (base, side=None))]
    fn paired_key<'py>(
        py: Python<'py>,
        base: &Bound<'py, PyAny>,
        side: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let side = match side {
            Some(side) if !side.is_none() => variant_of::<Side>(side, "side")?,
            _ => Side::Add,
        };
        let base = bytes_of(base, "base")?;
        Ok(PyBytes::new(py, &paired::key(&base, side)))
    }

    /// Set.encode(members, op="add", encoding="t1", max_member_len=0): one
    /// APPEND/ADD payload, an `op` record for each member.
    #[classmethod]
    #[pyo3(signature = (members, op=None, encoding=None, max_member_len=0))]
    fn encode<'py>(
        _cls: &Bound<'py, PyType>,
        py: Python<'py>,
        members: &Bound<'py, PyAny>,
        op: Option<&Bound<'py, PyAny>>,
        encoding: Option<&Bound<'py, PyAny>>,
        max_member_len: usize,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let held = member_list(members)?;
        let members = held.bytes("member")?;
        let op = match op {
            Some(op) if !op.is_none() => variant_of::<Op>(op, "op")?,
            _ => Op::Add,
        };
        let format = writable(encoding, py)?;
        let max = DecodeOptions::with_max(None, max_member_len).max_member_len;
        let payload = setcodec::encode(op, &members, format, max).or_raise(py)?;
        Ok(PyBytes::new(py, &payload))
    }

    /// Set.plan_read(value, cas, remaining_ttl=None, encoding="auto",
    /// force=False, *, threshold, soft_limit, ratio): decodes a value read
    /// with its CAS and says whether to compact it: (Set, Compaction or
    /// None). `remaining_ttl` is what `mg KEY t` returned (-1: never
    /// expires; None: unknown).
    #[classmethod]
    #[pyo3(signature = (value, cas, remaining_ttl=None, encoding=None, force=false, *, threshold=None, soft_limit=None, ratio=None))]
    #[allow(clippy::too_many_arguments)]
    fn plan_read<'py>(
        _cls: &Bound<'py, PyType>,
        py: Python<'py>,
        value: &Bound<'py, PyAny>,
        cas: u64,
        remaining_ttl: Option<i64>,
        encoding: Option<&Bound<'py, PyAny>>,
        force: bool,
        threshold: Option<usize>,
        soft_limit: Option<usize>,
        ratio: Option<bool>,
    ) -> PyResult<(Set, Option<Bound<'py, PyAny>>)> {
        let value = bytes_of(value, "value")?;
        let options = DecodeOptions::with_max(encoding_of(encoding, None)?, 0);
        let policy = policy(threshold, soft_limit, ratio);
        let plan = detach_when(py, value.len() >= DETACH_BYTES, || {
            recipe::plan_read(&value, cas, remaining_ttl, &options, &policy, force)
        })
        .or_raise(py)?;
        let compaction = match plan.compaction {
            None => None,
            Some(write) => Some(types(py)?.compaction.bind(py).call1((
                PyBytes::new(py, &write.value),
                write.cas,
                write.exptime.unwrap_or(0),
                write.exptime.is_some(),
            ))?),
        };
        Ok((Set::new(plan.set, options.max_member_len), compaction))
    }

    /// SUNION: a new set (None stands for a missing key).
    #[pyo3(signature = (*others))]
    fn union(&self, py: Python<'_>, others: &Bound<'_, PyTuple>) -> PyResult<Set> {
        self.combine(py, others, |sets| Ok(ops::union(sets)))
    }

    /// SINTER: a new set.
    #[pyo3(signature = (*others))]
    fn intersection(&self, py: Python<'_>, others: &Bound<'_, PyTuple>) -> PyResult<Set> {
        self.combine(py, others, ops::inter)
    }

    /// SDIFF: members of this set in none of the others.
    #[pyo3(signature = (*others))]
    fn difference(&self, py: Python<'_>, others: &Bound<'_, PyTuple>) -> PyResult<Set> {
        self.combine(py, others, ops::diff)
    }

    /// SINTERCARD: size of the intersection (stopping at `limit` when > 0).
    #[pyo3(signature = (*others, limit=0))]
    fn intercard(
        &self,
        py: Python<'_>,
        others: &Bound<'_, PyTuple>,
        limit: i64,
    ) -> PyResult<usize> {
        let sets = self.with_others(others)?;
        let empty = MemberSet::new();
        let list: Vec<&MemberSet> = sets
            .iter()
            .map(|s| s.as_ref().map_or(&empty, |s| &s.set.members))
            .collect();
        ops::intercard(&list, limit).or_raise(py)
    }

    fn __len__(&self) -> PyResult<usize> {
        Ok(self.data()?.set.members.len())
    }

    /// The members as bytes, in bytewise order.
    fn members<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let data = self.data()?;
        PyList::new(py, data.set.members.iter().map(|m| PyBytes::new(py, m)))
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyIterator>> {
        self.members(py)?.try_iter()
    }

    fn __contains__(&self, member: &Bound<'_, PyAny>) -> PyResult<bool> {
        let member = bytes_of(member, "member")?;
        Ok(self.data()?.set.members.contains(&member))
    }

    /// Stats of the decoded value (encoding by name).
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let data = self.data()?;
        let stats = &data.set.stats;
        let encoding: Cow<'_, str> = match stats.format {
            Some(format) => format.name().into(),
            None => Format::extra_name().unwrap_or_default().into(),
        };
        types(py)?.stats.bind(py).call1((
            data.set.members.len(),
            stats.records,
            stats.removals,
            stats.redundant,
            stats.value_len,
            encoding,
        ))
    }

    /// Whether the value started with the `^` seal (a retired list).
    #[getter]
    fn sealed(&self) -> PyResult<bool> {
        Ok(self.data()?.set.stats.sealed)
    }

    /// should_compact(force=False, *, threshold, soft_limit, ratio): whether
    /// the policy asks for compaction.
    #[pyo3(signature = (force=false, *, threshold=None, soft_limit=None, ratio=None))]
    fn should_compact(
        &self,
        force: bool,
        threshold: Option<usize>,
        soft_limit: Option<usize>,
        ratio: Option<bool>,
    ) -> PyResult<bool> {
        let data = self.data()?;
        let policy = policy(threshold, soft_limit, ratio);
        let set = &data.set;
        Ok(setcodec::should_compact(
            &set.stats,
            set.members.len(),
            &policy,
            force,
        ))
    }

    /// compacted(encoding="t1"): the canonical value, one add record per
    /// member (also the value to store).
    #[pyo3(signature = (encoding=None))]
    fn compacted<'py>(
        &self,
        py: Python<'py>,
        encoding: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let data = self.data()?;
        let format = writable(encoding, py)?;
        let value =
            setcodec::compacted(&data.set.members, format, data.max_member_len).or_raise(py)?;
        Ok(PyBytes::new(py, &value))
    }

    /// Whether close() was called.
    #[getter]
    fn closed(&self) -> bool {
        self.data
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_none()
    }

    /// Releases the set now; a second call does nothing.
    fn close(&self) {
        let data = self
            .data
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        drop(data);
    }

    fn __enter__(slf: Bound<'_, Self>) -> PyResult<Bound<'_, Self>> {
        slf.get().data()?;
        Ok(slf)
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&self, _exc: &Bound<'_, PyTuple>) {
        self.close();
    }

    fn __repr__(&self) -> String {
        match self.data() {
            Ok(data) => format!("<ketama.Set {} members>", data.set.members.len()),
            Err(_) => "<ketama.Set closed>".to_string(),
        }
    }
}
