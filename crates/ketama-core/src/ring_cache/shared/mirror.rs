//! Arrays derived from a shared ring, shared the same way: the compat
//! roll's `mcs` records (28 bytes a point: 45 MB for a 10,000-server
//! libketama ring, in every process that rolls it) are published beside
//! the ring's image and mapped copy-on-write ([`crate::cow_map`]) by
//! every process that builds the same ring. A C caller may write through
//! such an array: its writes stay in its own process.
//!
//! A mirror's image is laid out as a ring's (`image.rs`): the magic
//! `KETAMAmi`, the record count where a ring has its points and the record
//! size where it has its servers; then the key (the ring's, followed by
//! `mirror <kind> <record size>`), padded to 8; then the records. Nothing
//! in it is trusted: an attach checks its sizes, its key, its checksum,
//! then every record against what the caller builds (`fill`), reading the
//! mapped pages without writing them, so that they stay shared.

use std::path::Path;

use super::image::{self, HEADER, Header, VERSION};
use super::{SharedRings, Sharing, dir, key};
use crate::cow_map::CowMapping;
use crate::hash::xxh3::xxh3_64;
use crate::{RingConfig, ServerSpec};

/// The first eight bytes of a mirror's image.
const MAGIC: [u8; 8] = *b"KETAMAmi";

/// Records built and checked at a time (the whole array is never built
/// twice in memory).
const CHUNK_RECORDS: usize = 4096;

/// A mirror mapped from its image: `len` bytes of records at `offset` of
/// a copy-on-write mapping, kept alive as long as the mirror.
#[derive(Debug)]
pub struct Mirror {
    mapping: CowMapping,
    offset: usize,
    len: usize,
}

impl Mirror {
    /// The records' bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.mapping.bytes()[self.offset..self.offset + self.len]
    }

    /// The first record, for a caller allowed to write (its writes stay in
    /// this process). Aligned to 8 bytes.
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.mapping.as_mut_ptr().wrapping_add(self.offset)
    }
}

/// Builds `count` records of `record` bytes into `out`, `CHUNK_RECORDS` at
/// a time, each chunk handed to `each` after `fill` wrote it.
fn chunks(
    record: usize,
    count: usize,
    fill: &impl Fn(usize, &mut [u8]),
    mut each: impl FnMut(usize, &[u8]) -> bool,
) -> bool {
    let mut chunk = vec![0u8; record * CHUNK_RECORDS.min(count)];
    let mut first = 0;
    while first < count {
        let n = CHUNK_RECORDS.min(count - first);
        let bytes = &mut chunk[..n * record];
        fill(first, bytes);
        if !each(first * record, bytes) {
            return false;
        }
        first += n;
    }
    true
}

/// The image of the mirror `key`: `count` records of `record` bytes that
/// `fill` builds.
fn encode(key: &[u8], record: usize, count: usize, fill: &impl Fn(usize, &mut [u8])) -> Vec<u8> {
    let records_at = HEADER + key.len().next_multiple_of(8);
    let mut image = Vec::with_capacity(records_at + record * count);
    image.extend_from_slice(&[0; HEADER]);
    image.extend_from_slice(key);
    image.resize(records_at, 0);
    chunks(record, count, fill, |_, bytes| {
        image.extend_from_slice(bytes);
        true
    });
    let header = Header {
        version: VERSION,
        key_len: key.len() as u64,
        points: count as u64,
        servers: record as u64,
        checksum: xxh3_64(&image[HEADER..], 0),
    };
    image[..HEADER].copy_from_slice(&header.to_bytes(MAGIC));
    image
}

/// The mirror the image at `path` holds, when it is the image of `key`
/// for `count` records of `record` bytes and `expected` accepts its
/// records (marked used); else why not.
fn attach(
    path: &Path,
    key: &[u8],
    record: usize,
    count: usize,
    expected: impl FnOnce(&[u8]) -> bool,
) -> Result<Mirror, String> {
    let (file, size) = dir::open_image(path)?.ok_or("no image")?;
    let header = image::read_header(&file, size, MAGIC)?;
    let records_at = HEADER + key.len().next_multiple_of(8);
    let len = record * count;
    if (header.key_len, header.points, header.servers)
        != (key.len() as u64, count as u64, record as u64)
        || size != (records_at + len) as u64
    {
        return Err("it is the mirror of another build (sizes)".into());
    }
    let mapping = CowMapping::map(&file, records_at + len).map_err(|e| format!("mmap: {e}"))?;
    let image = mapping.bytes();
    if &image[HEADER..HEADER + key.len()] != key {
        return Err("it is the mirror of another build (its key differs)".into());
    }
    if xxh3_64(&image[HEADER..], 0) != header.checksum {
        return Err("its checksum does not match its contents".into());
    }
    if !expected(&image[records_at..]) {
        return Err("its records are not the ones this ring gives".into());
    }
    dir::touch(&file);
    Ok(Mirror {
        mapping,
        offset: records_at,
        len,
    })
}

impl SharedRings {
    /// The mirror of the ring of `servers` with `config` named `kind`:
    /// `count` records of `record` bytes, `fill(first, out)` writing
    /// records `first..` into `out`; mapped from its image when one is
    /// published and good, else built, published and mapped. `None` when
    /// it is not shared (sharing off, smaller than the threshold, the
    /// directory unusable, the image not written): the caller builds it.
    pub(in crate::ring_cache) fn mirror(
        &self,
        servers: &[ServerSpec],
        config: RingConfig,
        kind: &str,
        record: usize,
        count: usize,
        fill: impl Fn(usize, &mut [u8]),
    ) -> Option<Mirror> {
        let (Sharing::Dir(dir), threshold) = self.get() else {
            return None;
        };
        let len = record.checked_mul(count)?;
        if record == 0 || len < threshold || !config.flavour.is_continuum() {
            return None;
        }
        if let Err(why) = dir::usable(&dir) {
            self.warn(&why);
            return None;
        }
        let mut key = key::key_bytes(servers, config);
        key.extend_from_slice(format!("mirror {kind} {record}\n").as_bytes());
        let name = key::file_name(&key);
        // Another process's image: every record compared with one built here.
        let built_here = |records: &[u8]| {
            chunks(record, count, &fill, |at, built| {
                &records[at..at + built.len()] == built
            })
        };
        if let Ok(mirror) = attach(&dir.join(&name), &key, record, count, built_here) {
            return Some(mirror);
        }
        let image = encode(&key, record, count, &fill);
        match dir::publish(&dir, &name, &image) {
            Ok(path) => {
                dir::sweep(&dir, &path, dir::MAX_IMAGES, dir::MAX_BYTES);
                // The image just written: compared with its bytes, not built again.
                let records_at = image.len() - record * count;
                let written = |records: &[u8]| records == &image[records_at..];
                attach(&path, &key, record, count, written).ok()
            }
            Err(e) => {
                self.warn(&format!(
                    "{} cannot be written: {e}",
                    dir.join(&name).display()
                ));
                None
            }
        }
    }
}
