//! The continuum's arrays of `u32`: owned by the ring ([`Words::owned`]),
//! or a range of a file mapped read-only that several processes share
//! ([`Mapping`], [`Words::mapped`]; see
//! [`ring_cache::shared`](crate::ring_cache::shared)). Both read as one
//! `&[u32]`, through the same pointer and length, so the lookup code does
//! not know which it reads.
//!
//! The one invariant the mapped case rests on: a published image is never
//! written after it is renamed into place. The images are created mode
//! 0400 in a directory of mode 0700 owned by the user, and their writers
//! only ever create new files and rename them over old ones, so a mapped
//! page cannot change while it is mapped (a file unlinked or replaced while
//! mapped keeps its pages). It is the contract the dynamic loader relies on
//! for shared libraries.

use std::fs::File;
use std::io;
use std::os::fd::AsRawFd;
use std::ptr::NonNull;
use std::sync::Arc;

/// Asks for the pages to be mapped at once where the system can (Linux).
#[cfg(target_os = "linux")]
const POPULATE: libc::c_int = libc::MAP_POPULATE;
#[cfg(not(target_os = "linux"))]
const POPULATE: libc::c_int = 0;

/// A whole file mapped read-only and shared; unmapped when dropped (the
/// last [`Words`] reading it dropped).
#[derive(Debug)]
pub struct Mapping {
    start: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is read-only and its pages never change (see the
// module documentation); reading it from any thread is reading immutable
// memory, and unmapping happens once, in `drop`.
unsafe impl Send for Mapping {}
// SAFETY: as for `Send`: shared references only ever read.
unsafe impl Sync for Mapping {}

impl Mapping {
    /// Maps the first `len` bytes of `file` read-only, shared, its pages
    /// mapped at once (they are all read next, to be checked). `len` must
    /// not exceed the file's size as the caller has just checked it (the
    /// file is one nobody writes, so it stays that size); 0 is refused.
    pub fn map(file: &File, len: usize) -> io::Result<Mapping> {
        // MAP_POPULATE only maps the pages now rather than on first read.
        let start = map_file(file, len, libc::PROT_READ, libc::MAP_SHARED | POPULATE)?;
        Ok(Mapping { start, len })
    }

    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `start..start + len` is mapped readable for as long as
        // `self` lives and never changes (see the module documentation).
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once; no slice of it
        // outlives `self` (every `Words` reading it holds an `Arc` of it).
        unsafe { libc::munmap(self.start.as_ptr().cast(), self.len) };
    }
}

/// The first `len` bytes of `file` mapped with `prot` and `flags` at an
/// address the kernel chooses (0 bytes refused): the one `mmap` call of
/// [`Mapping`] and [`crate::cow_map::CowMapping`], whose owners unmap it.
pub(crate) fn map_file(
    file: &File,
    len: usize,
    prot: libc::c_int,
    flags: libc::c_int,
) -> io::Result<NonNull<u8>> {
    if len == 0 {
        return Err(io::Error::new(io::ErrorKind::InvalidInput, "empty mapping"));
    }
    // SAFETY: a fresh mapping chosen by the kernel (no address given), of
    // an open descriptor; nothing is read or written through it here.
    let start = unsafe { libc::mmap(std::ptr::null_mut(), len, prot, flags, file.as_raw_fd(), 0) };
    if start == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    NonNull::new(start.cast::<u8>()).ok_or_else(|| io::Error::other("mmap at 0"))
}

/// What keeps a [`Words`]' memory alive.
#[derive(Debug)]
enum Keep {
    /// A boxed slice of ours, taken apart by `Box::into_raw` (so that
    /// moving the `Words` does not move or retag it), freed in `drop`.
    Owned,
    /// A range of a shared mapping.
    Mapped(Arc<Mapping>),
}

/// An immutable array of `u32`, owned or mapped (see the module docs).
#[derive(Debug)]
pub struct Words {
    start: NonNull<u32>,
    len: usize,
    keep: Keep,
}

// SAFETY: the array is never written once made (owned: only `drop` frees
// it; mapped: see the module documentation), so it may be read from any
// thread and dropped from any.
unsafe impl Send for Words {}
// SAFETY: as for `Send`: shared references only ever read.
unsafe impl Sync for Words {}

impl Words {
    /// An owned array.
    pub fn owned(words: Box<[u32]>) -> Words {
        let len = words.len();
        let start = NonNull::new(Box::into_raw(words).cast::<u32>()).expect("a box is not null");
        Words {
            start,
            len,
            keep: Keep::Owned,
        }
    }

    /// `len` words at byte `offset` of `mapping`; `None` when they are not
    /// all inside it or `offset` is not a multiple of 4 (a mapping starts
    /// on a page boundary, so the words are then aligned).
    pub fn mapped(mapping: &Arc<Mapping>, offset: usize, len: usize) -> Option<Words> {
        let bytes = len.checked_mul(4)?;
        if offset % 4 != 0 || offset.checked_add(bytes)? > mapping.len {
            return None;
        }
        // SAFETY: `offset` is inside the mapping (checked just above, with
        // the whole range), so the pointer stays in the same allocation.
        let start = unsafe { mapping.start.as_ptr().add(offset) }.cast::<u32>();
        Some(Words {
            start: NonNull::new(start)?,
            len,
            keep: Keep::Mapped(Arc::clone(mapping)),
        })
    }

    /// True when the words are a range of a shared mapping.
    pub fn is_mapped(&self) -> bool {
        matches!(self.keep, Keep::Mapped(_))
    }
}

impl std::ops::Deref for Words {
    type Target = [u32];

    #[inline(always)]
    fn deref(&self) -> &[u32] {
        // SAFETY: `start..start + len` is either the boxed slice taken
        // apart in `owned` (freed only in `drop`) or an aligned range of a
        // mapping checked in `mapped` and kept alive by its `Arc`; neither
        // is ever written (see the module documentation).
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }
}

impl Clone for Words {
    fn clone(&self) -> Words {
        match &self.keep {
            Keep::Owned => Words::owned(Box::from(&**self)),
            Keep::Mapped(mapping) => Words {
                start: self.start,
                len: self.len,
                keep: Keep::Mapped(Arc::clone(mapping)),
            },
        }
    }
}

impl Drop for Words {
    fn drop(&mut self) {
        if let Keep::Owned = self.keep {
            let slice = std::ptr::slice_from_raw_parts_mut(self.start.as_ptr(), self.len);
            // SAFETY: the pointer and length `Box::into_raw` gave in
            // `owned`, rebuilt once, here; no slice of it outlives `self`.
            drop(unsafe { Box::from_raw(slice) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owned_words_read_clone_and_drop() {
        let words = Words::owned(vec![3, 1, 4, 1, 5].into_boxed_slice());
        let moved = words;
        let copy = moved.clone();
        assert_eq!(&*moved, &[3, 1, 4, 1, 5]);
        drop(moved);
        assert_eq!(&*copy, &[3, 1, 4, 1, 5]);
        assert!(!copy.is_mapped());
        assert!(Words::owned(Box::new([])).is_empty());
    }

    #[test]
    #[cfg_attr(miri, ignore = "Miri does not map files")]
    fn mapped_words_read_the_file_and_stay_inside_it() {
        let dir = crate::scratch::ScratchDir::new("words-mapped");
        let path = dir.join("image");
        let bytes: Vec<u8> = [7u32, 8, 9].iter().flat_map(|w| w.to_ne_bytes()).collect();
        std::fs::write(&path, &bytes).unwrap();
        let file = File::open(&path).unwrap();
        let mapping = Arc::new(Mapping::map(&file, bytes.len()).unwrap());
        assert_eq!(mapping.bytes(), &bytes[..]);
        let words = Words::mapped(&mapping, 4, 2).unwrap();
        assert!(words.is_mapped());
        assert_eq!(&*words, &[8, 9]);
        assert!(Words::mapped(&mapping, 4, 3).is_none());
        assert!(Words::mapped(&mapping, 2, 1).is_none());
        assert!(Words::mapped(&mapping, usize::MAX - 1, 1).is_none());
        // The words keep the mapping alive once it is dropped here.
        drop(mapping);
        let clone = words.clone();
        drop(words);
        assert_eq!(&*clone, &[8, 9]);
        assert!(Mapping::map(&file, 0).is_err());
    }
}
