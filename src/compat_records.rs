//! The `mcs` records of a compat continuum: the array C clients walk
//! (`continuum.array`), one 28-byte record a point, built from the ring's
//! continuum. A large one (45 MB for a 10,000-server pool) is shared
//! between the processes that roll the same servers: mapped copy-on-write
//! from the image the first of them published
//! ([`ketama_core::ring_cache::shared::Mirror`]), so that a client writing
//! through `mcs*` changes its own process's copy only, as it did when
//! every process built its own.

use std::ffi::c_uint;

use ketama_core::parser::libketama as compat_parser;
use ketama_core::ring_cache::{self, shared::Mirror};
use ketama_core::{Ring, RingConfig, ServerSpec};

/// The record actually stored: `mcs` with its two padding bytes named, so
/// the 23rd address byte and a terminating NUL can live there.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct McsRecord {
    pub(crate) point: c_uint,
    pub(crate) ip: [u8; 24],
}

/// A record's size: a point and 24 address bytes, no padding.
const RECORD: usize = size_of::<McsRecord>();
const _: () = assert!(RECORD == 4 + 24 && align_of::<McsRecord>() == 4);

/// The records of one continuum.
pub(crate) enum Records {
    /// Built in this process.
    Owned(Box<[McsRecord]>),
    /// Mapped copy-on-write from a shared image (checked record by record).
    Mapped(Mirror),
}

impl Records {
    /// The records of `ring`, built from `servers` with `config`: mapped
    /// from the shared image of the same ring's records when the process's
    /// ring cache shares rings and they are large, else built here.
    pub(crate) fn of(ring: &Ring, servers: &[ServerSpec], config: RingConfig) -> Records {
        let count = ring.continuum().len();
        let fill = |first: usize, out: &mut [u8]| {
            for (i, bytes) in out.chunks_exact_mut(RECORD).enumerate() {
                let record = record(ring, first + i);
                bytes[..4].copy_from_slice(&record.point.to_ne_bytes());
                bytes[4..].copy_from_slice(&record.ip);
            }
        };
        match ring_cache::global().mirror(servers, config, "mcs", RECORD, count, fill) {
            Some(mirror) => Records::Mapped(mirror),
            None => Records::Owned(owned(ring)),
        }
    }

    /// The records, for the library's own reads.
    pub(crate) fn as_slice(&self) -> &[McsRecord] {
        match self {
            Records::Owned(records) => records,
            Records::Mapped(mirror) => {
                let bytes = mirror.bytes();
                // SAFETY: the mirror's bytes are 8-byte aligned (a page
                // plus a multiple of 8), hold a whole number of records
                // (checked on attach), and any bytes are a valid
                // `McsRecord` (a `c_uint` and bytes); they live as long as
                // `self`.
                unsafe { std::slice::from_raw_parts(bytes.as_ptr().cast(), bytes.len() / RECORD) }
            }
        }
    }

    /// The first record, as `continuum.array` hands it to C (which may
    /// write through it).
    pub(crate) fn as_mut_ptr(&self) -> *mut McsRecord {
        match self {
            Records::Owned(records) => records.as_ptr().cast_mut(),
            Records::Mapped(mirror) => mirror.as_mut_ptr().cast(),
        }
    }

    /// How many records there are.
    pub(crate) fn len(&self) -> usize {
        self.as_slice().len()
    }
}

/// The record of the `index`th point of `ring`.
fn record(ring: &Ring, index: usize) -> McsRecord {
    let continuum = ring.continuum();
    let owner = continuum.owners()[index] as usize;
    let address = ring.servers()[owner].address();
    let mut ip = [0u8; 24];
    let kept = address.len().min(compat_parser::MAX_ADDRESS_BYTES);
    ip[..kept].copy_from_slice(&address[..kept]);
    McsRecord {
        point: continuum.points()[index],
        ip,
    }
}

/// The records of `ring`, built in this process.
fn owned(ring: &Ring) -> Box<[McsRecord]> {
    let count = ring.continuum().len();
    // 28 bytes per point (45 MB at 10,000 servers): pages mapped up front.
    let mut records = ketama_core::prefault::vec_with_capacity(count);
    records.extend((0..count).map(|index| record(ring, index)));
    records.into_boxed_slice()
}
