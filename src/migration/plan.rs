//! A migration's plan through the C ABI (`ketama_migration_plan_*`): what
//! moves between which servers, each old server's reads during the
//! warm-up, the servers that must be flushed, and the keys of a
//! `lru_crawler metadump` listing that are at risk on a server.

use std::ffi::c_char;

use super::ketama_migration;
use crate::boundary::{arg_chars, arg_out, guard_status, guard_value, param};
use crate::handle::{box_out, bytes_out, handle_free, handle_ref};
use crate::set::ketama_set_buffer;
use crate::status::ketama_status;
use ketama_core::Error;
use ketama_core::analysis::Measure;
use ketama_core::migration::plan::{Plan, metadump_keys};

/// A migration's plan. Opaque; make it with `ketama_migration_plan_new`, read
/// it with `ketama_migration_plan_summary` and the accessors, release it
/// with `ketama_migration_plan_free`.
pub struct ketama_migration_plan {
    _private: [u8; 0],
}

/// The totals of a plan.
#[repr(C)]
pub struct ketama_migration_totals {
    /// The share of the keyspace (or of the keys sampled) that moves.
    pub moved: f64,
    /// The least any placement must move for the same weights.
    pub ideal: f64,
    /// 0 when measured exactly over the whole keyspace; else the number of
    /// keys sampled.
    pub sampled_keys: u64,
    /// Number of flows (`ketama_migration_plan_flow`).
    pub flows: usize,
    /// Number of old servers (`ketama_migration_plan_old_server`).
    pub old_servers: usize,
    /// Number of new servers that receive keys (`ketama_migration_plan_gaining`).
    pub gaining: usize,
}

/// One flow: a share of the keyspace that moves from one server to another.
#[repr(C)]
pub struct ketama_migration_flow {
    /// The old owner's address (owned by the plan).
    pub from_address: *const c_char,
    /// Length of `from_address`.
    pub from_address_len: usize,
    /// The new owner's address (owned by the plan).
    pub to_address: *const c_char,
    /// Length of `to_address`.
    pub to_address_len: usize,
    /// The share of the keyspace.
    pub share: f64,
}

/// One old server's part in the migration.
#[repr(C)]
pub struct ketama_migration_old_server {
    /// Its address (owned by the plan).
    pub address: *const c_char,
    /// Length of `address`.
    pub address_len: usize,
    /// Its share of the keyspace before the migration.
    pub share: f64,
    /// The share of the keyspace that leaves it.
    pub moving_away: f64,
    /// The share of all reads it answers for the new owners when the
    /// warm-up begins (falling as copies land).
    pub warmup_reads: f64,
    /// `warmup_reads / share`.
    pub warmup_load: f64,
}

/// One new server that receives keys it did not own.
#[repr(C)]
pub struct ketama_migration_gaining {
    /// Its address (owned by the plan).
    pub address: *const c_char,
    /// Length of `address`.
    pub address_len: usize,
    /// The share of the keyspace it receives.
    pub gained: f64,
    /// 1 when the old ring does not have it: flush it before the migration
    /// starts; else 0.
    pub returning: u32,
}

fn text(bytes: &[u8]) -> (*const c_char, usize) {
    (bytes.as_ptr().cast(), bytes.len())
}

fn index<T>(items: &[T], index: usize, what: &str) -> Result<usize, Error> {
    if index < items.len() {
        Ok(index)
    } else {
        Err(Error::OutOfRange(format!(
            "{what} index {index} is out of range (the plan has {})",
            items.len()
        )))
    }
}

/// Plans the migration: exactly when both rings are continuums hashing keys
/// alike, else on the 100,000 keys `key:0` … `key:99999`. On success
/// `*plan_out` receives a plan to release with `ketama_migration_plan_free`.
///
/// # Safety
/// `migration` is a live migration; `plan_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_plan_new(
    migration: *const ketama_migration,
    plan_out: *mut *mut ketama_migration_plan,
) -> ketama_status {
    guard_status(|| {
        let migration = param!(handle_ref(migration))?;
        let out = param!(arg_out(plan_out))?;
        *out = box_out(migration.plan(None::<Vec<Vec<u8>>>));
        Ok(())
    })
}

/// Stores the plan's totals in `*out`.
///
/// # Safety
/// `plan` is a live plan; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_plan_summary(
    plan: *const ketama_migration_plan,
    out: *mut ketama_migration_totals,
) -> ketama_status {
    guard_status(|| {
        let plan: &Plan = param!(handle_ref(plan))?;
        *param!(arg_out(out))? = ketama_migration_totals {
            moved: plan.movement.moved,
            ideal: plan.movement.ideal,
            sampled_keys: match plan.measure() {
                Measure::Exact => 0,
                Measure::Sampled(keys) => keys as u64,
            },
            flows: plan.movement.flows.len(),
            old_servers: plan.old_servers.len(),
            gaining: plan.gaining.len(),
        };
        Ok(())
    })
}

/// Stores flow `index` (largest first) in `*out`.
///
/// # Safety
/// `plan` is a live plan; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_plan_flow(
    plan: *const ketama_migration_plan,
    index: usize,
    out: *mut ketama_migration_flow,
) -> ketama_status {
    guard_status(|| {
        let plan: &Plan = param!(handle_ref(plan))?;
        let out = param!(arg_out(out))?;
        let (from, to, share) =
            &plan.movement.flows[self::index(&plan.movement.flows, index, "flow")?];
        let ((from_address, from_address_len), (to_address, to_address_len)) =
            (text(from), text(to));
        *out = ketama_migration_flow {
            from_address,
            from_address_len,
            to_address,
            to_address_len,
            share: *share,
        };
        Ok(())
    })
}

/// Stores old server `index` (the old ring's order) in `*out`.
///
/// # Safety
/// `plan` is a live plan; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_plan_old_server(
    plan: *const ketama_migration_plan,
    index: usize,
    out: *mut ketama_migration_old_server,
) -> ketama_status {
    guard_status(|| {
        let plan: &Plan = param!(handle_ref(plan))?;
        let out = param!(arg_out(out))?;
        let server = &plan.old_servers[self::index(&plan.old_servers, index, "old server")?];
        let (address, address_len) = text(&server.address);
        *out = ketama_migration_old_server {
            address,
            address_len,
            share: server.share,
            moving_away: server.moving_away,
            warmup_reads: server.warmup_reads,
            warmup_load: server.warmup_load,
        };
        Ok(())
    })
}

/// Stores gaining server `index` (the new ring's order) in `*out`.
///
/// # Safety
/// `plan` is a live plan; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_plan_gaining(
    plan: *const ketama_migration_plan,
    index: usize,
    out: *mut ketama_migration_gaining,
) -> ketama_status {
    guard_status(|| {
        let plan: &Plan = param!(handle_ref(plan))?;
        let out = param!(arg_out(out))?;
        let server = &plan.gaining[self::index(&plan.gaining, index, "gaining server")?];
        let (address, address_len) = text(&server.address);
        *out = ketama_migration_gaining {
            address,
            address_len,
            gained: server.gained,
            returning: u32::from(server.returning),
        };
        Ok(())
    })
}

/// Releases a plan; NULL is ignored.
///
/// # Safety
/// `plan` is NULL or a live plan, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_plan_free(plan: *mut ketama_migration_plan) {
    guard_value((), || param!(handle_free(plan)))
}

/// The keys of a `lru_crawler metadump` listing of server `server` (its
/// address as the new ring spells it) that the migration would serve from
/// it though the old ring does not place them there: delete them on it (or
/// flush it) before the migration starts. On success `*keys_out` receives
/// them, one per line (each `\n`-terminated), to release with
/// `ketama_set_buffer_free`. A line that is not a metadump line is
/// `KETAMA_ERR_INVALID_ARGUMENT` naming it.
///
/// # Safety
/// `migration` is a live migration; `server` is valid for `server_len`
/// bytes and `listing` for `listing_len` bytes (or NULL with 0);
/// `keys_out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_migration_at_risk(
    migration: *const ketama_migration,
    server: *const c_char,
    server_len: usize,
    listing: *const c_char,
    listing_len: usize,
    keys_out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        let migration = param!(handle_ref(migration))?;
        let server = param!(arg_chars(server, server_len))?;
        let listing = param!(arg_chars(listing, listing_len))?;
        let out = param!(arg_out(keys_out))?;
        let keys = metadump_keys(listing)?;
        let mut text = Vec::new();
        for key in migration.at_risk(server, keys.iter().map(Vec::as_slice)) {
            text.extend_from_slice(key);
            text.push(b'\n');
        }
        let (data, len) = bytes_out(text);
        *out = ketama_set_buffer { data, len };
        Ok(())
    })
}
