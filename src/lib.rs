//! The C ABI.
//!
//! * [`compat`]: the eight functions and the structs of the original
//!   libketama `ketama.h`, with the same signatures and layouts.
//! * [`ring`]: the modern ring API (`ketama_ring_*`, `ketama_find_server`);
//!   [`file_ring`]: rings that follow their server file; [`batch`]: many
//!   keys per call and the multi-GET plan.
//! * [`hash`]: `ketama_hash_bytes`, the hash family by id.
//! * [`names`]: names, ids and lists of the flavours, hashes and parse modes.
//! * [`set`]: the set codec (`ketama_set_*`).
//! * [`migration`]: moving a pool between two rings (`ketama_migration_*`).
//! * [`status`]: status codes and the per-thread error message.
//! * `boundary`: the panic boundary and the argument helpers every export
//!   reads its pointers with; `handle`: the only casts between a handle and
//!   the Rust value behind it (the handles are declared below, "Handles").
//!
//! Conventions of the modern API (after rustls-ffi): fallible functions
//! return a [`status::ketama_status`]; outputs go through trailing
//! out-pointers and are written only on success; a panic becomes
//! `KETAMA_ERR_PANIC`, never an abort; every object handed out has a
//! `*_free` function that accepts NULL; an enum is passed as a `uint32_t`
//! id, and an id that names nothing is `KETAMA_ERR_INVALID_ARGUMENT`
//! (`unknown ketama_flavour id 99`, the message of
//! `ketama_core::registry::Named::unknown_id`). Rings, file rings and
//! decoded sets are immutable and may be used from many threads at once.
//!
//! # The pointer contract
//!
//! Every exported function of the modern API takes its pointer parameters
//! on these terms; its `# Safety` section says which parameter is which.
//! The argument helpers of `boundary` and `handle` rely on them, so that an
//! `unsafe` block in an export says only what is particular to it.
//!
//! 1. **Valid or NULL.** A pointer parameter is NULL or valid, for the
//!    whole call, for what its type and documentation say: an input
//!    (`const T *`) for reading one `T`, or as many as the length parameter
//!    after it says; an output (`T *`, `T **`) for writing one `T`, or
//!    `capacity` of them; a `const char *` without a length parameter is
//!    NUL-terminated. A handle pointer (`const ketama_ring *`,
//!    `ketama_set *`, ...) is one this library handed out and that has not
//!    been released. Pointers inside structs passed in (the `address` and
//!    `name` of a `ketama_server`, the `data` of a
//!    `ketama_set_member_ref`) and entries of pointer arrays (`keys`,
//!    `sets`) are valid for their lengths the same way.
//! 2. **Lengths.** `*_len` is a length in bytes, `count` and `capacity` a
//!    number of elements. NULL with a length of 0 is an empty input; NULL
//!    with any other length, or a length of more than `isize::MAX` bytes,
//!    is refused (`KETAMA_ERR_NULL_ARGUMENT`, `KETAMA_ERR_INVALID_ARGUMENT`)
//!    before anything is read. Byte buffers (keys, members, values) may
//!    hold any bytes, NUL included.
//! 3. **NULL.** NULL is refused with `KETAMA_ERR_NULL_ARGUMENT` naming the
//!    parameter, except where the documentation gives it a meaning:
//!    optional inputs (`options`, `policy`, a `ketama_server`'s `name`),
//!    the optional output `error_out` of `ketama_set_decode`, a NULL set
//!    that stands for a missing key, and handles passed to `*_free`,
//!    `*_clone`, `*_count` and the like, which answer NULL with nothing to
//!    do.
//! 4. **No overlap.** An output does not overlap another parameter, and no
//!    other thread writes what the call reads while it runs. A handle that
//!    is written (`ketama_set_writer`) is used by one thread at a time.
//! 5. **Ownership.** What the caller passes stays the caller's: the library
//!    copies what it keeps and holds no pointer past the call. What the
//!    library hands out is the library's: a handle until its `*_free`
//!    (each `ketama_ring_clone` is one more owner), a `ketama_set_buffer`
//!    until `ketama_set_buffer_free`, a pointer into a ring (an address)
//!    or a set (a member) or a plan (key indices) while that object lives,
//!    the names of enums for ever, and `ketama_error()` until the thread's
//!    next failing call.
//!
//! The original API ([`compat`]) keeps points 1, 4 and 5 with the original's
//! answers to NULL instead of point 3: any pointer may be NULL (answered
//! with 0, NULL or nothing, never a crash), and a `continuum` may be a copy
//! of one `ketama_roll` handed out (only one the roll registry holds is
//! cast to its handle).

//!
//! # Handles
//!
//! Every handle the library hands out, the Rust value behind it and how
//! that value is owned, declared here once (the `Castable` impls below;
//! the casts are in `handle`):
//!
//! | handle | value | ownership |
//! |---|---|---|
//! | `ketama_ring` | `ketama_core::Ring` | `Arc`: shared; `ketama_ring_clone` adds an owner, `ketama_ring_free` releases one |
//! | `ketama_file_ring` | `ketama_core::file_ring::FileRing` | `Box`: one owner; `ketama_file_ring_free` |
//! | `ketama_key_groups` | `batch::KeyGroups` | `Box`: `ketama_key_groups_free` |
//! | `ketama_set` | `set::SetHandle` | `Box`: `ketama_set_free` |
//! | `ketama_set_writer` | `ketama_core::setcodec::recipe::Writer` | `Box`: `ketama_set_writer_free` |
//! | `ketama_migration` | `ketama_core::migration::Migration` | `Arc`: shared by the operations begun on it; `ketama_migration_free` releases the caller's |
//! | `ketama_migration_op` | `migration::MigrationOp` | `Box`: `ketama_migration_op_free` |
//! | `ketama_migration_plan` | `ketama_core::migration::plan::Plan` | `Box`: `ketama_migration_plan_free` |
//! | `continuum` (the original API) | `compat::CompatHandle` | `Box`: `ketama_smoke`, for a handle the roll registry holds |
//! | `ketama_set_buffer.data` | `[u8]` | `Box<[u8]>`: `ketama_set_buffer_free` |

#![allow(non_camel_case_types)]

pub mod batch;
mod boundary;
pub mod compat;
mod compat_handles;
mod compat_records;
pub mod enums;
pub mod file_ring;
mod handle;
pub mod hash;
pub mod migration;
pub mod names;
pub mod ring;
pub mod ring_cache;
pub mod ring_named;
pub mod set;
pub mod status;

impl handle::Castable for ring::ketama_ring {
    type Ownership = handle::SharedArc;
    type Rust = ketama_core::Ring;
}

impl handle::Castable for file_ring::ketama_file_ring {
    type Ownership = handle::OwnedBox;
    type Rust = ketama_core::file_ring::FileRing;
}

impl handle::Castable for batch::ketama_key_groups {
    type Ownership = handle::OwnedBox;
    type Rust = batch::KeyGroups;
}

impl handle::Castable for set::ketama_set {
    type Ownership = handle::OwnedBox;
    type Rust = set::SetHandle;
}

impl handle::Castable for set::ketama_set_writer {
    type Ownership = handle::OwnedBox;
    type Rust = ketama_core::setcodec::recipe::Writer;
}

impl handle::Castable for migration::ketama_migration {
    type Ownership = handle::SharedArc;
    type Rust = ketama_core::migration::Migration;
}

impl handle::Castable for migration::ketama_migration_op {
    type Ownership = handle::OwnedBox;
    type Rust = migration::MigrationOp;
}

impl handle::Castable for migration::ketama_migration_plan {
    type Ownership = handle::OwnedBox;
    type Rust = ketama_core::migration::plan::Plan;
}

/// The original API's continuum: a `CompatHandle` (`#[repr(C)]`, the
/// `continuum` its first field) handed out as a pointer to that field.
/// Callers may also pass copies of the struct: only a pointer the roll
/// registry holds is cast (`compat`).
impl handle::Castable for compat::continuum {
    type Ownership = handle::OwnedBox;
    type Rust = compat::CompatHandle;
}

#[cfg(test)]
mod abi_tests;
