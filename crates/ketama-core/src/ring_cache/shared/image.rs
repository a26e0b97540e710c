//! The bytes of a shared image and their checks. An image is, in the
//! machine's byte order:
//!
//! | bytes | what |
//! |---|---|
//! | 8 | magic `KETAMAri` |
//! | 4 | format version ([`VERSION`]) |
//! | 4 | `0x01020304` (the byte order that wrote it) |
//! | 8 | key length `k` ([`super::key`]) |
//! | 8 | point count `n` |
//! | 8 | server count |
//! | 8 | XXH3-64 of everything after the header |
//! | 16 | zeros (the header is [`HEADER`] bytes) |
//! | `k`, padded to 8 | the key |
//! | `4n` | the points, sorted |
//! | `4n` | each point's owner (a server index) |
//!
//! An image is never trusted: [`attach`] checks the sizes before it maps
//! anything, then the key (byte for byte), the checksum, the order of the
//! points and the range of the owners, and refuses it saying why. The
//! index of the continuum is not stored: it is built from the points.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use crate::continuum::{Continuum, TiePolicy};
use crate::hash::xxh3::xxh3_64;
use crate::words::{Mapping, Words};

/// The first eight bytes of a ring's image.
const MAGIC: [u8; 8] = *b"KETAMAri";
/// The format version this library writes and reads.
pub(super) const VERSION: u32 = 1;
/// The byte-order mark.
const ORDER: u32 = 0x0102_0304;
/// The header's size.
pub(super) const HEADER: usize = 64;

/// The fields of a header (a mirror's, `mirror.rs`, has the same layout:
/// its records in place of the points, their size in place of the servers).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header {
    pub(super) version: u32,
    pub(super) key_len: u64,
    pub(super) points: u64,
    pub(super) servers: u64,
    pub(super) checksum: u64,
}

impl Header {
    pub(super) fn to_bytes(self, magic: [u8; 8]) -> [u8; HEADER] {
        let mut bytes = [0u8; HEADER];
        bytes[..8].copy_from_slice(&magic);
        bytes[8..12].copy_from_slice(&self.version.to_ne_bytes());
        bytes[12..16].copy_from_slice(&ORDER.to_ne_bytes());
        bytes[16..24].copy_from_slice(&self.key_len.to_ne_bytes());
        bytes[24..32].copy_from_slice(&self.points.to_ne_bytes());
        bytes[32..40].copy_from_slice(&self.servers.to_ne_bytes());
        bytes[40..48].copy_from_slice(&self.checksum.to_ne_bytes());
        bytes
    }

    /// The header in `bytes` when they start with `magic`; else why not.
    fn read(bytes: &[u8; HEADER], magic: [u8; 8]) -> Result<Header, String> {
        let u32_at = |at: usize| u32::from_ne_bytes(bytes[at..at + 4].try_into().unwrap());
        let u64_at = |at: usize| u64::from_ne_bytes(bytes[at..at + 8].try_into().unwrap());
        if bytes[..8] != magic {
            return Err("it is not an image of this kind (wrong magic)".into());
        }
        if u32_at(12) != ORDER {
            return Err("it was written in another byte order".into());
        }
        let version = u32_at(8);
        if version != VERSION {
            return Err(format!("its format version is {version}, not {VERSION}"));
        }
        Ok(Header {
            version,
            key_len: u64_at(16),
            points: u64_at(24),
            servers: u64_at(32),
            checksum: u64_at(40),
        })
    }

    /// The byte offsets of the points and the owners, and the image's
    /// size; `None` when they overflow.
    fn layout(&self) -> Option<(usize, usize, usize)> {
        let key_len = usize::try_from(self.key_len).ok()?;
        let points = usize::try_from(self.points).ok()?;
        let points_at = HEADER.checked_add(key_len.checked_next_multiple_of(8)?)?;
        let array = points.checked_mul(4)?;
        let owners_at = points_at.checked_add(array)?;
        Some((points_at, owners_at, owners_at.checked_add(array)?))
    }
}

/// The header of the image `file` of `size` bytes, when it is one that
/// starts with `magic`; else why not.
pub(super) fn read_header(file: &File, size: u64, magic: [u8; 8]) -> Result<Header, String> {
    let mut bytes = [0u8; HEADER];
    if size < HEADER as u64 {
        return Err(format!("it is {size} bytes, shorter than a header"));
    }
    file.read_exact_at(&mut bytes, 0)
        .map_err(|e| format!("its header cannot be read: {e}"))?;
    Header::read(&bytes, magic)
}

/// The image of `continuum`, built from the key bytes `key` for `servers`
/// servers.
pub(super) fn encode(key: &[u8], servers: usize, continuum: &Continuum) -> Vec<u8> {
    let mut header = Header {
        version: VERSION,
        key_len: key.len() as u64,
        points: continuum.len() as u64,
        servers: servers as u64,
        checksum: 0,
    };
    let (_, _, size) = header.layout().expect("an image in memory fits usize");
    let mut image = Vec::with_capacity(size);
    image.extend_from_slice(&[0; HEADER]);
    image.extend_from_slice(key);
    image.resize(key.len().next_multiple_of(8) + HEADER, 0);
    for words in [continuum.points(), continuum.owners()] {
        for word in words {
            image.extend_from_slice(&word.to_ne_bytes());
        }
    }
    header.checksum = xxh3_64(&image[HEADER..], 0);
    image[..HEADER].copy_from_slice(&header.to_bytes(MAGIC));
    image
}

/// The continuum an image file holds, its points and owners mapped from
/// it, when it is the image of `key` for `servers` servers whose equal
/// points follow `ties`; else why not. `size` is the file's size, as
/// `fstat` gave it.
pub(super) fn attach(
    file: &File,
    size: u64,
    key: &[u8],
    servers: usize,
    ties: TiePolicy,
) -> Result<Continuum, String> {
    let header = read_header(file, size, MAGIC)?;
    let (points_at, owners_at, expected) = header
        .layout()
        .ok_or("its header gives sizes past the address space")?;
    if size != expected as u64 {
        return Err(format!(
            "it is {size} bytes where its header makes {expected}"
        ));
    }
    if header.key_len != key.len() as u64 || header.servers != servers as u64 {
        return Err("it is the image of another build (key length or servers)".into());
    }
    let mapping = Arc::new(Mapping::map(file, expected).map_err(|e| format!("mmap: {e}"))?);
    let image = mapping.bytes();
    if &image[HEADER..HEADER + key.len()] != key {
        return Err("it is the image of another build (its key differs)".into());
    }
    if xxh3_64(&image[HEADER..], 0) != header.checksum {
        return Err("its checksum does not match its contents".into());
    }
    let count = header.points as usize;
    let points = Words::mapped(&mapping, points_at, count).ok_or("points out of the file")?;
    let owners = Words::mapped(&mapping, owners_at, count).ok_or("owners out of the file")?;
    let ordered = match ties {
        TiePolicy::FirstWins => points.windows(2).all(|w| w[0] <= w[1]),
        TiePolicy::LastWins => points.windows(2).all(|w| w[0] < w[1]),
    };
    if !ordered {
        return Err("its points are not in order".into());
    }
    if let Some(owner) = owners.iter().find(|&&o| o as usize >= servers) {
        return Err(format!(
            "a point's owner {owner} is not one of {servers} servers"
        ));
    }
    Ok(Continuum::from_sorted(points, owners))
}
