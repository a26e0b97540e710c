//! Round trips through the migration's exported functions, called as a C
//! client calls them (run under Miri and AddressSanitizer by `make
//! test-sanitizers`, so kept small): every handle freed, every buffer
//! released, every out-pointer read back.

use std::ptr;

use super::plan::*;
use super::*;
use crate::ring::{ketama_ring_free, ketama_ring_new, ketama_server};
use crate::set::{ketama_set_buffer, ketama_set_buffer_free};
use crate::status::ketama_status::*;
use ketama_core::migration::{Command, Outcome, Phase, Side};

fn ring(addresses: &[&'static str]) -> *const ketama_ring {
    let servers: Vec<ketama_server> = addresses
        .iter()
        .map(|a| ketama_server {
            address: a.as_ptr().cast(),
            address_len: a.len(),
            weight: 1,
            name: ptr::null(),
            name_len: 0,
        })
        .collect();
    let mut ring = ptr::null();
    // SAFETY: `servers` holds valid records for the call.
    let status = unsafe { ketama_ring_new(servers.as_ptr(), servers.len(), 0, 0, &mut ring) };
    assert_eq!(status, KETAMA_OK);
    ring
}

fn text<'a>(ptr: *const c_char, len: usize) -> &'a [u8] {
    // SAFETY: a pointer and length the library handed out, still alive.
    unsafe { std::slice::from_raw_parts(ptr.cast(), len) }
}

/// The first key `key:N` that moves (or stays, with `moved` false).
fn key_that(migration: *const ketama_migration, moved: u32) -> (Vec<u8>, ketama_migration_owners) {
    for i in 0.. {
        let key = format!("key:{i}").into_bytes();
        // SAFETY: zeroes are a valid `ketama_migration_owners` (NULL pointers).
        let mut owners: ketama_migration_owners = unsafe { std::mem::zeroed() };
        // SAFETY: live migration, key valid for its length, writable out.
        let status = unsafe {
            ketama_migration_route(migration, key.as_ptr().cast(), key.len(), &mut owners)
        };
        assert_eq!(status, KETAMA_OK);
        if owners.moved == moved {
            return (key, owners);
        }
    }
    unreachable!()
}

#[test]
fn a_warm_read_of_a_moved_key_runs_its_five_steps_and_frees_everything() {
    let (old, new) = (ring(&["a:1", "b:1"]), ring(&["a:1", "b:1", "c:1"]));
    let mut migration = ptr::null();
    let options = c"interval=0ms,warmup=1h";
    // SAFETY: live rings, NUL-terminated options, writable out.
    let status = unsafe { ketama_migration_new(old, new, 0, 1, options.as_ptr(), &mut migration) };
    assert_eq!(status, KETAMA_OK);
    // The migration keeps its own references to both rings.
    // SAFETY: live rings, released once.
    unsafe { (ketama_ring_free(old), ketama_ring_free(new)) };
    let (key, owners) = key_that(migration, 1);
    assert_eq!(text(owners.new_address, owners.new_address_len), b"c:1");
    let mut phase = 99;
    // SAFETY: live migration, valid key, writable out.
    let status = unsafe {
        ketama_migration_phase_of(migration, key.as_ptr().cast(), key.len(), 2, &mut phase)
    };
    assert_eq!((status, phase), (KETAMA_OK, Phase::Warm as u32));
    let mut op = ptr::null_mut();
    // SAFETY: as above.
    let status =
        unsafe { ketama_migration_begin(migration, 0, key.as_ptr().cast(), key.len(), 2, &mut op) };
    assert_eq!(status, KETAMA_OK);
    // SAFETY: the migration may be freed while its operations live.
    unsafe { ketama_migration_free(migration) };
    // SAFETY: zeroes are a valid step (NULL pointers).
    let mut step: ketama_migration_step = unsafe { std::mem::zeroed() };
    // SAFETY: live operation, writable out.
    let answer = unsafe { ketama_migration_op_step(op, &mut step) };
    assert_eq!(answer, KETAMA_OK);
    assert_eq!(
        (step.done, step.command, step.side),
        (0, Command::Get as u32, Side::New as u32)
    );
    assert_eq!(text(step.address, step.address_len), b"c:1");
    let mut lease = Vec::new();
    let value = b"v0";
    let replies: [(u32, &[u8], u64); 5] = [
        (1, b"", 0),
        (2, b"", 0),
        (0, b"", 7),
        (0, value, 0),
        (2, b"", 0),
    ];
    for (i, (reply, bytes, cas)) in replies.into_iter().enumerate() {
        let bytes: &[u8] = if i == 2 { &lease } else { bytes };
        // SAFETY: live operation, bytes valid for their length, writable out.
        let status = unsafe {
            ketama_migration_op_reply(op, reply, bytes.as_ptr(), bytes.len(), cas, &mut step)
        };
        assert_eq!(status, KETAMA_OK, "step {i}");
        if i == 0 {
            assert_eq!(step.command, Command::AddLease as u32);
            lease = text(step.lease.cast(), step.lease_len).to_vec();
            // SAFETY: the lease's bytes, valid for their length.
            let answer = unsafe { ketama_migration_is_lease(lease.as_ptr(), lease.len()) };
            assert_eq!(answer, 1);
        }
        if i == 3 {
            assert_eq!(
                (step.command, step.cas, step.exptime),
                (Command::CasCopy as u32, 7, 3600)
            );
        }
    }
    assert_eq!((step.done, step.outcome), (1, Outcome::HitOld as u32));
    // A reply after the end is refused and named.
    // SAFETY: as above.
    let status = unsafe { ketama_migration_op_reply(op, 2, ptr::null(), 0, 0, &mut step) };
    assert_eq!(status, KETAMA_ERR_INVALID_ARGUMENT);
    // SAFETY: live operation, released once.
    unsafe { ketama_migration_op_free(op) };
    // SAFETY: a value that is not a lease; NULL with 0.
    assert_eq!(unsafe { ketama_migration_is_lease(value.as_ptr(), 2) }, 0);
    // SAFETY: NULL with a length of 0 is an empty value.
    assert_eq!(unsafe { ketama_migration_is_lease(ptr::null(), 0) }, 0);
}

#[test]
fn the_plan_names_the_flow_the_loads_and_the_returning_server() {
    let (old, new) = (ring(&["a:1", "b:1"]), ring(&["a:1", "b:1", "c:1"]));
    let mut migration = ptr::null();
    // SAFETY: live rings, no options, writable out.
    let status = unsafe { ketama_migration_new(old, new, 1, 0, ptr::null(), &mut migration) };
    assert_eq!(status, KETAMA_OK);
    let mut plan = ptr::null_mut();
    // SAFETY: live migration, writable out.
    let answer = unsafe { ketama_migration_plan_new(migration, &mut plan) };
    assert_eq!(answer, KETAMA_OK);
    // SAFETY: zeroes are a valid summary.
    let mut totals: ketama_migration_totals = unsafe { std::mem::zeroed() };
    // SAFETY: live plan, writable out.
    let answer = unsafe { ketama_migration_plan_summary(plan, &mut totals) };
    assert_eq!(answer, KETAMA_OK);
    assert!(totals.moved > 0.2 && totals.moved < 0.5, "{}", totals.moved);
    assert_eq!(
        (
            totals.sampled_keys,
            totals.flows,
            totals.old_servers,
            totals.gaining
        ),
        (0, 2, 2, 1)
    );
    // SAFETY: zeroes are valid records (NULL pointers).
    let (mut flow, mut server, mut gaining): (
        ketama_migration_flow,
        ketama_migration_old_server,
        ketama_migration_gaining,
    ) = unsafe { (std::mem::zeroed(), std::mem::zeroed(), std::mem::zeroed()) };
    // SAFETY: live plan, writable outs.
    unsafe {
        assert_eq!(ketama_migration_plan_flow(plan, 0, &mut flow), KETAMA_OK);
        assert_eq!(
            ketama_migration_plan_old_server(plan, 1, &mut server),
            KETAMA_OK
        );
        assert_eq!(
            ketama_migration_plan_gaining(plan, 0, &mut gaining),
            KETAMA_OK
        );
        assert_eq!(
            ketama_migration_plan_flow(plan, 2, &mut flow),
            KETAMA_ERR_OUT_OF_RANGE
        );
    }
    assert_eq!(text(flow.to_address, flow.to_address_len), b"c:1");
    assert_eq!(text(server.address, server.address_len), b"b:1");
    assert_eq!(
        (
            text(gaining.address, gaining.address_len),
            gaining.returning
        ),
        (&b"c:1"[..], 1)
    );
    // At-risk keys of a listing of c:1: the keys it gains.
    let (moved, _) = key_that(migration, 1);
    let (kept, _) = key_that(migration, 0);
    let listing = format!(
        "key={} exp=-1 la=1 cas=1 fetch=no cls=1 size=64\nkey={} exp=-1\nEND\n",
        String::from_utf8_lossy(&moved),
        String::from_utf8_lossy(&kept)
    );
    let mut keys = ketama_set_buffer {
        data: ptr::null_mut(),
        len: 0,
    };
    let server = b"c:1";
    // SAFETY: live migration; byte buffers valid for their lengths; writable out.
    let status = unsafe {
        ketama_migration_at_risk(
            migration,
            server.as_ptr().cast(),
            3,
            listing.as_ptr().cast(),
            listing.len(),
            &mut keys,
        )
    };
    assert_eq!(status, KETAMA_OK);
    let mut expected = moved.clone();
    expected.push(b'\n');
    assert_eq!(text(keys.data.cast(), keys.len), &expected[..]);
    // SAFETY: the buffer just handed out, released once.
    unsafe { ketama_set_buffer_free(keys) };
    let bad = b"value 1\n";
    let mut none = ketama_set_buffer {
        data: ptr::null_mut(),
        len: 0,
    };
    // SAFETY: as above.
    let status = unsafe {
        ketama_migration_at_risk(
            migration,
            server.as_ptr().cast(),
            3,
            bad.as_ptr().cast(),
            bad.len(),
            &mut none,
        )
    };
    assert_eq!(status, KETAMA_ERR_INVALID_ARGUMENT);
    let message = crate::status::last_error();
    assert_eq!(
        message,
        "metadump line 1: does not begin with key=: value 1"
    );
    // SAFETY: live handles, released once; NULL is a no-op.
    unsafe {
        ketama_migration_plan_free(plan);
        ketama_migration_plan_free(ptr::null_mut());
        ketama_migration_free(migration);
        ketama_migration_free(ptr::null());
        ketama_ring_free(old);
        ketama_ring_free(new);
    }
}
