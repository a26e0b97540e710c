//! Migrations between two rings (`ketama_migration_*`): where a key lives
//! in each ring, and the step functions of each operation (the library
//! sends nothing: the client runs each step on its own connections). See
//! `ketama_core::migration` and docs/migration.md.

use std::ffi::c_char;
use std::sync::Arc;

use super::boundary::{
    arg_bytes, arg_chars, arg_opt_str, arg_out, guard_status, guard_value, param,
};
use super::handle::{arc_out, box_out, handle_arc, handle_free, handle_mut, handle_ref};
use super::ring::ketama_ring;
use super::status::ketama_status;
use ketama_core::migration::{
    Migration, Mode, Op, OpKind, Reply, ReplyKind, Step, is_lease, now_ms,
};
use ketama_core::registry::Named;

/// A migration from one ring to another. Opaque; create it with
/// `ketama_migration_new`, release it with `ketama_migration_free`.
/// Immutable: use it from many threads at once.
pub struct ketama_migration {
    _private: [u8; 0],
}

/// One operation of a migration on one key, driven step by step. Opaque;
/// begin it with `ketama_migration_begin`, release it with
/// `ketama_migration_op_free`. Used by one thread at a time.
pub struct ketama_migration_op {
    _private: [u8; 0],
}

/// What a `ketama_migration_op` handle holds: the operation and its
/// migration (for the addresses of its steps).
pub struct MigrationOp {
    migration: Arc<Migration>,
    op: Op,
}

/// A key's owners in both rings.
#[repr(C)]
pub struct ketama_migration_owners {
    /// The owner's index in the new ring's server list.
    pub new_server: u32,
    /// The owner's index in the old ring's server list.
    pub old_server: u32,
    /// 1 when the two owners are different servers (by address), else 0.
    pub moved: u32,
    /// The new owner's address (NUL-terminated, owned by the new ring).
    pub new_address: *const c_char,
    /// Length of `new_address` without the NUL.
    pub new_address_len: usize,
    /// The old owner's address (NUL-terminated, owned by the old ring).
    pub old_address: *const c_char,
    /// Length of `old_address` without the NUL.
    pub old_address_len: usize,
}

/// What to do next in an operation.
#[repr(C)]
pub struct ketama_migration_step {
    /// 0: send `command`; 1: the operation is finished with `outcome`.
    pub done: u32,
    /// When done: a `ketama_migration_outcome`.
    pub outcome: u32,
    /// A `ketama_migration_command`: what to send.
    pub command: u32,
    /// A `ketama_migration_side`: to the old or the new owner.
    pub side: u32,
    /// That owner's index in its ring's server list.
    pub server: u32,
    /// The CAS unique for `cas-copy` and `cas-value` (0 otherwise).
    pub cas: u64,
    /// The TTL in seconds for `add-lease` and `cas-copy`; -1: the caller's own.
    pub exptime: i64,
    /// The server's address (NUL-terminated, owned by its ring).
    pub address: *const c_char,
    /// Length of `address` without the NUL.
    pub address_len: usize,
    /// For `add-lease`: the lease to store (owned by the operation).
    pub lease: *const u8,
    /// Length of `lease` (0 for other commands).
    pub lease_len: usize,
}

impl MigrationOp {
    fn step(&self) -> ketama_migration_step {
        let mut out = ketama_migration_step {
            done: 0,
            outcome: 0,
            command: 0,
            side: 0,
            server: 0,
            cas: 0,
            exptime: -1,
            address: std::ptr::null(),
            address_len: 0,
            lease: std::ptr::null(),
            lease_len: 0,
        };
        match self.op.step() {
            Step::Done(outcome) => {
                out.done = 1;
                out.outcome = outcome.id();
            }
            Step::Do(action) => {
                let address = self.migration.address_c(&action);
                out.command = action.command.id();
                out.side = action.side.id();
                out.server = action.server as u32;
                out.cas = action.cas;
                out.exptime = action.exptime.map_or(-1, i64::from);
                out.address = address.as_ptr();
                out.address_len = address.to_bytes().len();
                if action.command == ketama_core::migration::Command::AddLease {
                    let lease = self.op.lease();
                    out.lease = lease.as_ptr();
                    out.lease_len = lease.len();
                }
            }
        }
        out
    }
}

/// `now_ms` as given, or the clock for 0.
fn at(now_ms_given: u64) -> u64 {
    if now_ms_given == 0 {
        now_ms()
    } else {
        now_ms_given
    }
}

/// Builds the migration of `mode` (a `ketama_migration_mode`) from
/// `old_ring` to `new_ring` (any two flavours and server lists; the
/// migration keeps its own reference to each), starting at `start_ms`
/// (milliseconds since the Unix epoch; 0: now). `options` is NULL or text
/// such as `"interval=60s,warmup=1h,copy_ttl=1h,lease_ttl=10s"` (durations
/// in `ms`, `s`, `m` or `h`, a bare number being seconds). On success
/// `*out` receives a migration to release with `ketama_migration_free`.
///
/// # Safety
/// `old_ring` and `new_ring` are live rings; `options` is NULL or a
/// NUL-terminated string; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_new(
    old_ring: *const ketama_ring,
    new_ring: *const ketama_ring,
    mode: u32,
    start_ms: u64,
    options: *const c_char,
    out: *mut *const ketama_migration,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(out))?;
        let old = param!(handle_arc(old_ring))?;
        let new = param!(handle_arc(new_ring))?;
        let options = param!(arg_opt_str(options))?;
        let mode = Mode::with_id(mode)?;
        let start = (start_ms != 0).then_some(start_ms);
        let migration = Migration::from_options(old, new, mode, start, options)?;
        *out = arc_out(Arc::new(migration));
        Ok(())
    })
}

/// Releases a migration (operations begun on it keep their own
/// reference); NULL is ignored.
///
/// # Safety
/// `migration` is NULL or a live migration, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_free(migration: *const ketama_migration) {
    guard_value((), || param!(handle_free(migration)))
}

/// Stores in `*out` the owners of the `key_len` bytes at `key` in both
/// rings and whether the key moves.
///
/// # Safety
/// `migration` is a live migration; `key` is valid for `key_len` bytes (or
/// NULL with 0); `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_route(
    migration: *const ketama_migration,
    key: *const c_char,
    key_len: usize,
    out: *mut ketama_migration_owners,
) -> ketama_status {
    guard_status(|| {
        let migration = param!(handle_ref(migration))?;
        let key = param!(arg_chars(key, key_len))?;
        let out = param!(arg_out(out))?;
        let route = migration.route(key)?;
        let new = migration.new_ring().servers()[route.new].address_c();
        let old = migration.old().servers()[route.old].address_c();
        *out = ketama_migration_owners {
            new_server: route.new as u32,
            old_server: route.old as u32,
            moved: u32::from(route.moved),
            new_address: new.as_ptr(),
            new_address_len: new.to_bytes().len(),
            old_address: old.as_ptr(),
            old_address_len: old.to_bytes().len(),
        };
        Ok(())
    })
}

/// Stores in `*phase_out` the `ketama_migration_phase` of the key at
/// `now_ms` (milliseconds since the Unix epoch; 0: now).
///
/// # Safety
/// `migration` is a live migration; `key` is valid for `key_len` bytes (or
/// NULL with 0); `phase_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_phase_of(
    migration: *const ketama_migration,
    key: *const c_char,
    key_len: usize,
    now_ms: u64,
    phase_out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let migration = param!(handle_ref(migration))?;
        let key = param!(arg_chars(key, key_len))?;
        let out = param!(arg_out(phase_out))?;
        *out = migration.phase(key, at(now_ms)).id();
        Ok(())
    })
}

/// Begins the operation `op` (a `ketama_migration_op_kind`: get, set, add,
/// delete) on the key at `now_ms` (0: now). On success `*op_out` receives
/// the operation; read its first step with `ketama_migration_op_step`.
/// Release it with `ketama_migration_op_free`.
///
/// # Safety
/// `migration` is a live migration; `key` is valid for `key_len` bytes (or
/// NULL with 0); `op_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_begin(
    migration: *const ketama_migration,
    op: u32,
    key: *const c_char,
    key_len: usize,
    now_ms: u64,
    op_out: *mut *mut ketama_migration_op,
) -> ketama_status {
    guard_status(|| {
        let migration = param!(handle_arc(migration))?;
        let key = param!(arg_chars(key, key_len))?;
        let out = param!(arg_out(op_out))?;
        let op = migration.begin(OpKind::with_id(op)?, key, at(now_ms))?;
        *out = box_out(MigrationOp { migration, op });
        Ok(())
    })
}

/// Stores in `*out` what the operation asks for next: a command for one
/// server, or its outcome.
///
/// # Safety
/// `op` is a live operation; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_op_step(
    op: *const ketama_migration_op,
    out: *mut ketama_migration_step,
) -> ketama_status {
    guard_status(|| {
        let op = param!(handle_ref(op))?;
        *param!(arg_out(out))? = op.step();
        Ok(())
    })
}

/// Feeds the server's reply to the command of the current step: `reply` is
/// a `ketama_migration_reply`; for a hit, `value` (`value_len` bytes) is the
/// value and `cas` its CAS unique (0 for a plain `get`). Stores the next
/// step in `*next_out`. A reply the command cannot give is
/// `KETAMA_ERR_INVALID_ARGUMENT` and changes nothing.
///
/// # Safety
/// `op` is a live operation, used by this thread alone; `value` is valid
/// for `value_len` bytes (or NULL with 0); `next_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_op_reply(
    op: *mut ketama_migration_op,
    reply: u32,
    value: *const u8,
    value_len: usize,
    cas: u64,
    next_out: *mut ketama_migration_step,
) -> ketama_status {
    guard_status(|| {
        let op = param!(handle_mut(op))?;
        let value = param!(arg_bytes(value, value_len))?;
        let out = param!(arg_out(next_out))?;
        let kind = ReplyKind::with_id(reply)?;
        op.op.reply(Reply { kind, value, cas })?;
        *out = op.step();
        Ok(())
    })
}

/// Releases an operation; NULL is ignored.
///
/// # Safety
/// `op` is NULL or a live operation, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_op_free(op: *mut ketama_migration_op) {
    guard_value((), || param!(handle_free(op)))
}

/// 1 when the `value_len` bytes at `value` are a migration's lease (a
/// value no caller should see: a lease read back is a miss), else 0.
///
/// # Safety
/// `value` is valid for `value_len` bytes (or NULL with 0).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_is_lease(value: *const u8, value_len: usize) -> i32 {
    guard_value(0, || {
        param!(arg_bytes(value, value_len)).map_or(0, |v| i32::from(is_lease(v)))
    })
}

mod plan;
pub use plan::ketama_migration_plan;

#[cfg(test)]
mod tests;
