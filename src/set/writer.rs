//! The write state machine, compaction and the read plan.

use super::*;
use crate::boundary::{arg_bytes, arg_opt_ref, arg_out, guard_status, guard_value, param};
use crate::handle::{box_out, handle_free, handle_mut, handle_ref};
use crate::status::ketama_status;
use ketama_core::registry::Named;
use ketama_core::setcodec::recipe::{self, Reply, SetAction, Writer};
use ketama_core::setcodec::{self, CompactionPolicy, Op};

/// Compaction policy: compact when `redundant > threshold` (in ratio mode
/// `max(threshold, members)`), or when the value is over `soft_limit` bytes
/// and holds any redundant record. Defaults (`ketama_set_policy_default`):
/// 100, 523776, false.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ketama_set_policy {
    /// Redundant records tolerated.
    pub threshold: usize,
    /// Size above which any redundancy triggers compaction.
    pub soft_limit: usize,
    /// Use max(threshold, members) as the threshold.
    pub ratio: bool,
}

/// The compaction write a read asks for: when `needed`, store `value` with
/// `ms <key> <len> C<cas> T<exptime>` (or classic `cas`), ignoring EXISTS /
/// NOT_FOUND. `exptime_known` is false when the remaining TTL was not given.
#[repr(C)]
pub struct ketama_set_compaction {
    /// Whether to write.
    pub needed: bool,
    /// The canonical value (release with `ketama_set_buffer_free`).
    pub value: ketama_set_buffer,
    /// CAS of the value that was read.
    pub cas: u64,
    /// Exptime to write: the remaining TTL, 0 = never expires.
    pub exptime: u32,
    /// Whether `exptime` comes from a known remaining TTL.
    pub exptime_known: bool,
}

/// The write state machine (opaque); see `ketama_set_writer_new`.
pub struct ketama_set_writer {
    _private: [u8; 0],
}

/// Writes the library's default compaction policy to `*out`, for callers
/// that start from the defaults and change one field (the bindings read
/// theirs here).
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_policy_default(out: *mut ketama_set_policy) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(out))?;
        let policy = CompactionPolicy::default();
        *out = ketama_set_policy {
            threshold: policy.threshold,
            soft_limit: policy.soft_limit,
            ratio: policy.ratio,
        };
        Ok(())
    })
}

fn policy_from(policy: Option<&ketama_set_policy>) -> CompactionPolicy {
    policy.map_or_else(CompactionPolicy::default, |p| CompactionPolicy {
        threshold: p.threshold,
        soft_limit: p.soft_limit,
        ratio: p.ratio,
    })
}

/// Whether a decoded set should be compacted (`policy` NULL = defaults).
///
/// # Safety
/// `set` is live; `policy` is NULL or valid; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_should_compact(
    set: *const ketama_set,
    policy: *const ketama_set_policy,
    force: bool,
    out: *mut bool,
) -> ketama_status {
    guard_status(|| {
        let handle = param!(handle_ref(set))?;
        let out = param!(arg_out(out))?;
        let policy = policy_from(param!(arg_opt_ref(policy)));
        *out =
            setcodec::should_compact(&handle.set.stats, handle.set.members.len(), &policy, force);
        Ok(())
    })
}

/// The canonical encoding of a set in `encoding` (T1 or B1): add records in
/// bytewise order, empty for an empty set. Also the *STORE value.
///
/// # Safety
/// `set` is live; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_compacted(
    set: *const ketama_set,
    encoding: u32,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        let handle = param!(handle_ref(set))?;
        let out = param!(arg_out(out))?;
        *out = buffer(setcodec::compacted(
            &handle.set.members,
            writable_format(encoding)?,
            handle.max_member_len,
        )?);
        Ok(())
    })
}

/// The read step of the recipe: decodes `value` strictly into `*set_out`
/// and fills `*compaction_out` (`needed` false when no write is due).
/// `remaining_ttl` is what `mg <key> t` returned (-1 = never expires);
/// pass `ttl_known` false when unknown. A value that fails to decode is
/// never compacted.
///
/// # Safety
/// `value` is valid for `value_len` bytes; `policy` NULL or valid; the outs writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_plan_read(
    value: *const u8,
    value_len: usize,
    encoding: u32,
    cas: u64,
    remaining_ttl: i64,
    ttl_known: bool,
    policy: *const ketama_set_policy,
    force: bool,
    set_out: *mut *mut ketama_set,
    compaction_out: *mut ketama_set_compaction,
) -> ketama_status {
    guard_status(|| {
        let read = PlanRead {
            set_out: param!(arg_out(set_out))?,
            compaction_out: param!(arg_out(compaction_out))?,
            value: param!(arg_bytes(value, value_len))?,
            policy: policy_from(param!(arg_opt_ref(policy))),
        };
        read.plan(
            encoding,
            cas,
            ttl_known.then_some(remaining_ttl),
            force,
            None,
        )
    })
}

/// The pointer arguments of both read-plan exports, read.
struct PlanRead<'a> {
    set_out: &'a mut *mut ketama_set,
    compaction_out: &'a mut ketama_set_compaction,
    value: &'a [u8],
    policy: CompactionPolicy,
}

impl PlanRead<'_> {
    /// The body of both read-plan exports; `sampled` is (probability, seed).
    fn plan(
        self,
        encoding: u32,
        cas: u64,
        remaining_ttl: Option<i64>,
        force: bool,
        sampled: Option<(f64, u64)>,
    ) -> Result<(), Error> {
        let PlanRead {
            set_out,
            compaction_out,
            value,
            policy,
        } = self;
        let options = options(encoding, 0)?;
        let plan = match sampled {
            None => recipe::plan_read(value, cas, remaining_ttl, &options, &policy, force)?,
            Some((probability, seed)) => recipe::plan_read_sampled(
                value,
                cas,
                remaining_ttl,
                &options,
                &policy,
                force,
                probability,
                &mut recipe::Sampler::new(seed),
            )?,
        };
        *compaction_out = match plan.compaction {
            Some(write) => ketama_set_compaction {
                needed: true,
                value: buffer(write.value),
                cas: write.cas,
                exptime: write.exptime.unwrap_or(0),
                exptime_known: write.exptime.is_some(),
            },
            None => ketama_set_compaction {
                needed: false,
                value: buffer(Vec::new()),
                cas,
                exptime: 0,
                exptime_known: false,
            },
        };
        *set_out = hand_out_set(plan.set, options.max_member_len);
        Ok(())
    }
}

/// Starts the write recipe for one payload of `op` records: `*action_out`
/// receives the first action (always APPEND). Feed each server reply to
/// `ketama_set_writer_step`; release with `ketama_set_writer_free`.
/// `max_retries` bounds the append/add rounds (0 means 3).
///
/// # Safety
/// `writer_out` and `action_out` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_writer_new(
    op: u32,
    max_retries: u32,
    writer_out: *mut *mut ketama_set_writer,
    action_out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let writer_out = param!(arg_out(writer_out))?;
        let action_out = param!(arg_out(action_out))?;
        let retries = if max_retries == 0 {
            recipe::DEFAULT_MAX_RETRIES
        } else {
            max_retries
        };
        let writer = Writer::new(Op::with_id(op)?, retries);
        *action_out = SetAction::from(writer.first()).id();
        *writer_out = box_out::<ketama_set_writer>(writer);
        Ok(())
    })
}

/// Advances the write recipe with the server's reply (`ketama_set_reply`)
/// to the last action; `*action_out` receives the next action (a DONE_*
/// value when finished). Fails with `KETAMA_ERR_SET_FULL` (the key exists
/// but cannot grow: compact or shard) or `KETAMA_ERR_SET_CONTENDED`.
///
/// # Safety
/// `writer` is live; `action_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_writer_step(
    writer: *mut ketama_set_writer,
    reply: u32,
    action_out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let writer = param!(handle_mut(writer))?;
        let action_out = param!(arg_out(action_out))?;
        let reply = Reply::with_id(reply)?;
        *action_out = SetAction::from(writer.on_reply(reply)?).id();
        Ok(())
    })
}

/// Releases a writer. NULL is ignored.
///
/// # Safety
/// `writer` is NULL or live, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_writer_free(writer: *mut ketama_set_writer) {
    guard_value((), || param!(handle_free(writer)))
}

/// `ketama_set_plan_read` with randomised piggy-back compaction: a due
/// compaction is kept only with `probability` (0 to 1), drawn from `seed`
/// (pass a fresh value from the client's own generator on every read; the
/// same seed gives the same answer), so that many readers of a hot set do
/// not all try their CAS at once. `force` compacts whatever the draw.
///
/// # Safety
/// As `ketama_set_plan_read`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_plan_read_sampled(
    value: *const u8,
    value_len: usize,
    encoding: u32,
    cas: u64,
    remaining_ttl: i64,
    ttl_known: bool,
    policy: *const ketama_set_policy,
    force: bool,
    probability: f64,
    seed: u64,
    set_out: *mut *mut ketama_set,
    compaction_out: *mut ketama_set_compaction,
) -> ketama_status {
    guard_status(|| {
        if !(0.0..=1.0).contains(&probability) {
            return Err(Error::InvalidArgument(format!(
                "probability {probability} is not between 0 and 1"
            )));
        }
        let read = PlanRead {
            set_out: param!(arg_out(set_out))?,
            compaction_out: param!(arg_out(compaction_out))?,
            value: param!(arg_bytes(value, value_len))?,
            policy: policy_from(param!(arg_opt_ref(policy))),
        };
        let sampled = Some((probability, seed));
        read.plan(
            encoding,
            cas,
            ttl_known.then_some(remaining_ttl),
            force,
            sampled,
        )
    })
}
