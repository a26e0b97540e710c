//! Active-list flipping: a hot set kept in two lists `<base>.a` and
//! `<base>.b`, so that compaction never needs a CAS on the list every
//! writer appends to.
//!
//! The Membase manual's pattern: writers APPEND to the active list; a
//! compactor writes the compacted set into the *inactive* list (which few
//! or no clients write, so its CAS succeeds) and retires the old list by
//! PREPENDing the `^` seal marker (a PREPEND needs no CAS, so it cannot
//! lose to the writers). Records that arrive late in the sealed list stay
//! there and are folded in by the next flip, which compacts into that list.
//!
//! The manual admits a hole: between writing the copy and sealing the old
//! list, both lists hold the same records, so a reader counts them twice,
//! and a compactor that crashes there leaves the duplicates for good. This
//! module closes it with a **copy header** at the start of the list a flip
//! writes: `=<generation>:<length> ` says "I already hold the first
//! `length` bytes of the other list's body". Readers apply the header of
//! the newest generation and skip those bytes of the other list, so the
//! copy is never counted twice, before or after the seal, and whatever a
//! crash leaves behind reads right; the next compactor finishes the seal.
//!
//! **Counted semantics.** Records in the two lists have no known order: a
//! late `-m` in the sealed list may have been written after a `+m` in the
//! active one, or before. Replay (last record wins) needs an order, so the
//! lists are read the Membase way: a member is present when its adds
//! outnumber its removes, whatever the order. Clients must then add a
//! member only when it is absent and remove it only when present (follow /
//! unfollow); compaction writes each present member once.
//!
//! Value layout: `*"^" ["=" gen ":" len SP] records`. The seal and the
//! header are read by [`decode`](super::decode()) too, which reports
//! `sealed`. The library does no network I/O: [`read`], [`write_target`]
//! and [`plan_flip`] are pure functions of the fetched values; the client
//! runs the memcached commands.

use std::collections::BTreeMap;

use super::compact::compacted;
use super::decode::{DecodeOptions, parse_records};
use super::error::SetError;
use super::members::MemberSet;
use super::{Format, Op};

pub use super::prefix::{Prefix, SEAL, parse_prefix};

/// One of the two lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ListId {
    /// `<base>.a`.
    A,
    /// `<base>.b`.
    B,
}

impl ListId {
    /// The other list.
    pub fn other(self) -> ListId {
        match self {
            ListId::A => ListId::B,
            ListId::B => ListId::A,
        }
    }

    /// 0 for A, 1 for B.
    pub fn index(self) -> usize {
        match self {
            ListId::A => 0,
            ListId::B => 1,
        }
    }

    /// The list's key under `base`: `<base>.a` or `<base>.b`.
    pub fn key(self, base: &[u8]) -> Vec<u8> {
        let mut key = base.to_vec();
        key.extend_from_slice(match self {
            ListId::A => b".a",
            ListId::B => b".b",
        });
        key
    }
}

/// One list as fetched: its value (`None` on a miss) and CAS.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fetched<'a> {
    /// The value, `None` when the key is missing.
    pub value: Option<&'a [u8]>,
    /// The CAS of the value (ignored when missing).
    pub cas: u64,
}

impl<'a> Fetched<'a> {
    /// A fetched value.
    pub fn hit(value: &'a [u8], cas: u64) -> Self {
        Fetched {
            value: Some(value),
            cas,
        }
    }

    /// A missing key.
    pub fn miss() -> Self {
        Fetched {
            value: None,
            cas: 0,
        }
    }
}

/// What a read of both lists found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FlipRead {
    /// The members (counted over both lists).
    pub members: MemberSet,
    /// The list writers should append to.
    pub active: ListId,
    /// Whether each list (A, B) starts with the seal.
    pub sealed: [bool; 2],
    /// Records counted in each list (A, B): what a flip would fold in.
    pub counted: [usize; 2],
    /// The newest copy generation (0 before the first flip).
    pub generation: u64,
    /// Bytes of each value (0 when missing).
    pub value_len: [usize; 2],
    /// Members counted more than once (a duplicated add record): under
    /// counting, one remove then leaves them present.
    pub over_counted: usize,
}

/// One parsed list.
struct Parsed<'a> {
    prefix: Prefix,
    records: Vec<(Op, &'a [u8], usize)>,
}

fn parse_list<'a>(
    fetched: &Fetched<'a>,
    options: &DecodeOptions,
) -> Result<Option<Parsed<'a>>, SetError> {
    let Some(value) = fetched.value else {
        return Ok(None);
    };
    let (prefix, records) = parse_records(value, options)?;
    Ok(Some(Parsed { prefix, records }))
}

/// The list holding the newest copy header (it is current), with the
/// header; `None` before the first flip.
fn current(lists: &[Option<Parsed>; 2]) -> Option<(ListId, u64, usize)> {
    [ListId::A, ListId::B]
        .into_iter()
        .filter_map(|id| {
            let (generation, length) = lists[id.index()].as_ref()?.prefix.header?;
            Some((id, generation, length))
        })
        .max_by_key(|&(_, generation, _)| generation)
}

/// Adds +1/-1 per record into `counts`, skipping the first `skip` bytes of
/// the list's body (the part the other list already holds).
fn count_into<'a>(list: &Parsed<'a>, skip: usize, counts: &mut BTreeMap<&'a [u8], i64>) -> usize {
    let from = list.prefix.body_start.saturating_add(skip);
    let mut counted = 0;
    for &(op, member, at) in &list.records {
        if at < from {
            continue;
        }
        counted += 1;
        *counts.entry(member).or_insert(0) += if op == Op::Add { 1 } else { -1 };
    }
    counted
}

struct Combined<'a> {
    counts: BTreeMap<&'a [u8], i64>,
    current: Option<(ListId, u64, usize)>,
    counted: [usize; 2],
}

fn combine<'a>(lists: &[Option<Parsed<'a>>; 2]) -> Combined<'a> {
    let current = current(lists);
    let mut counts = BTreeMap::new();
    let mut counted = [0; 2];
    for id in [ListId::A, ListId::B] {
        if let Some(list) = &lists[id.index()] {
            let skip = match current {
                Some((holder, _, length)) if holder == id.other() => length,
                _ => 0,
            };
            counted[id.index()] = count_into(list, skip, &mut counts);
        }
    }
    Combined {
        counts,
        current,
        counted,
    }
}

fn members_of(counts: &BTreeMap<&[u8], i64>) -> MemberSet {
    MemberSet::from_members(counts.iter().filter(|&(_, &c)| c > 0).map(|(m, _)| *m))
}

fn is_sealed(list: &Option<Parsed>) -> bool {
    list.as_ref().is_some_and(|l| l.prefix.sealed)
}

fn active_of(lists: &[Option<Parsed>; 2], current: Option<(ListId, u64, usize)>) -> ListId {
    match current {
        Some((holder, _, _)) => holder,
        None if is_sealed(&lists[0]) && !is_sealed(&lists[1]) => ListId::B,
        None => ListId::A,
    }
}

/// Reads both lists (fetched with one multi-GET) into the set they hold.
pub fn read(a: Fetched, b: Fetched, options: &DecodeOptions) -> Result<FlipRead, SetError> {
    let lists = [parse_list(&a, options)?, parse_list(&b, options)?];
    let combined = combine(&lists);
    Ok(FlipRead {
        members: members_of(&combined.counts),
        active: active_of(&lists, combined.current),
        sealed: [is_sealed(&lists[0]), is_sealed(&lists[1])],
        counted: combined.counted,
        generation: combined.current.map_or(0, |(_, g, _)| g),
        value_len: [
            a.value.map_or(0, <[u8]>::len),
            b.value.map_or(0, <[u8]>::len),
        ],
        over_counted: combined.counts.values().filter(|&&c| c > 1).count(),
    })
}

/// The list a writer appends to, from its last read: the current list.
/// A record that lands in a list sealed meanwhile is not lost: readers
/// count it, and the next flip into that list folds it in.
pub fn write_target(read: &FlipRead) -> ListId {
    read.active
}

/// What a compactor must do next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FlipStep {
    /// Nothing to do (or another compactor is ahead: try later).
    Nothing,
    /// Finish a flip left half done: PREPEND `^` to this list (no CAS).
    Seal(ListId),
    /// A flip: write `value` into `target` (CAS with `cas`, or ADD when
    /// `cas` is `None` because the target is missing); on success PREPEND
    /// `^` to `source`. On EXISTS / NOT_STORED give up: somebody wrote the
    /// target meanwhile (a late record, or another compactor).
    Flip {
        /// The list written: the inactive one.
        target: ListId,
        /// Its new value: copy header, then the compacted set.
        value: Vec<u8>,
        /// The target's CAS; `None` means ADD (the target is missing).
        cas: Option<u64>,
        /// The list to seal afterwards.
        source: ListId,
    },
}

/// Plans a compactor's step from both lists (fetched with CAS). `force`
/// flips whenever possible; otherwise a flip is due when the active list
/// holds more than `min_records` counted records.
pub fn plan_flip(
    a: Fetched,
    b: Fetched,
    options: &DecodeOptions,
    format: Format,
    min_records: usize,
    force: bool,
) -> Result<FlipStep, SetError> {
    if !format.writable() {
        return Err(SetError::invalid(format!(
            "format {} cannot be written (use t1 or b1)",
            format.name()
        )));
    }
    let fetched = [a, b];
    let lists = [parse_list(&a, options)?, parse_list(&b, options)?];
    let combined = combine(&lists);
    let source = active_of(&lists, combined.current);
    let target = source.other();
    let target_unsealed = lists[target.index()]
        .as_ref()
        .is_some_and(|l| !l.prefix.sealed);
    if target_unsealed && combined.current.is_some() {
        // A flip died between its copy and its seal: finish it. (Readers
        // already read right through the copy header; the seal tells
        // writers that do not read headers.)
        return Ok(FlipStep::Seal(target));
    }
    let source_len = fetched[source.index()].value.map_or(0, <[u8]>::len);
    let source_body = source_len
        - lists[source.index()]
            .as_ref()
            .map_or(0, |l| l.prefix.body_start);
    if !force && combined.counted[source.index()] <= min_records {
        return Ok(FlipStep::Nothing);
    }
    if source_body == 0 {
        return Ok(FlipStep::Nothing);
    }
    let generation = combined.current.map_or(0, |(_, g, _)| g) + 1;
    let mut value = format!("={generation}:{source_body} ").into_bytes();
    value.extend(compacted(
        &members_of(&combined.counts),
        format,
        options.max_member_len,
    )?);
    Ok(FlipStep::Flip {
        target,
        value,
        cas: fetched[target.index()]
            .value
            .map(|_| fetched[target.index()].cas),
        source,
    })
}
