//! A set spread over N keys `<base>.<i>`, placed on servers by a ring.

use super::*;
use crate::boundary::{arg_bytes, arg_out, guard_status, param};
use crate::handle::handle_ref;
use crate::ring::{ketama_ring, ketama_server_ref, server_ref};
use crate::status::ketama_status;
use ketama_core::Error;
use ketama_core::setcodec::shard::{self, ShardLayout};

/// The shard of `member` among `shard_count` shards: FNV-1a 64 of the
/// member's bytes modulo `shard_count`.
///
/// # Safety
/// `member` is valid for `member_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_of(
    member: *const u8,
    member_len: usize,
    shard_count: u32,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let member = param!(arg_bytes(member, member_len))?;
        let out = param!(arg_out(out))?;
        if shard_count == 0 {
            return Err(Error::InvalidArgument(
                "shard_count must be at least 1".into(),
            ));
        }
        *out = shard::shard_of(member, shard_count);
        Ok(())
    })
}

/// The key of shard `shard`: `<base>.<shard>`, checked against memcached's
/// 250-byte key limit for the largest shard number.
///
/// # Safety
/// `base` is valid for `base_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_key(
    base: *const u8,
    base_len: usize,
    shard_count: u32,
    shard: u32,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(out))?;
        let base = param!(arg_bytes(base, base_len))?;
        *out = buffer(ShardLayout::new(base, shard_count)?.shard_key(shard)?);
        Ok(())
    })
}

/// The server holding shard `shard` of the set `base` on `ring`.
///
/// # Safety
/// `ring` is live; `base` is valid for `base_len` bytes; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_server(
    ring: *const ketama_ring,
    base: *const u8,
    base_len: usize,
    shard_count: u32,
    shard: u32,
    out: *mut ketama_server_ref,
) -> ketama_status {
    guard_status(|| {
        let ring = param!(handle_ref(ring))?;
        let out = param!(arg_out(out))?;
        let base = param!(arg_bytes(base, base_len))?;
        let key = ShardLayout::new(base, shard_count)?.shard_key(shard)?;
        let at = ring.locate(&key).ok_or_else(Error::no_points)?;
        *out = server_ref(ring, at);
        Ok(())
    })
}

/// The index item's value for `shard_count` shards (the T1 set of shard
/// ids), to create with ADD under `<base>`.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_index_value(
    shard_count: u32,
    out: *mut ketama_set_buffer,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(out))?;
        *out = buffer(ShardLayout::new(b"index", shard_count)?.index_value());
        Ok(())
    })
}

/// Reads the shard count from an index item's value (its members must be
/// exactly the ids 0..N-1).
///
/// # Safety
/// `base` and `value` are valid for their lengths; `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_set_shard_count_from_index(
    base: *const u8,
    base_len: usize,
    value: *const u8,
    value_len: usize,
    out: *mut u32,
) -> ketama_status {
    guard_status(|| {
        let base = param!(arg_bytes(base, base_len))?;
        let value = param!(arg_bytes(value, value_len))?;
        let out = param!(arg_out(out))?;
        *out = ShardLayout::from_index(base, value)?.count();
        Ok(())
    })
}
