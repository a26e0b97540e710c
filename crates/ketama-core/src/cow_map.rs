//! A file mapped copy-on-write ([`CowMapping`]): its pages are the page
//! cache's, shared with every process that maps the same file, until a
//! process writes one; that page then becomes the writer's own copy, and
//! the file and the other processes never see the write. For arrays that
//! a C caller is allowed to write through (the compat roll's `mcs`
//! records), shared between processes as [`crate::words`] shares the
//! read-only continuum.
//!
//! The library itself only reads the mapping; what a caller writes stays
//! in the caller's process.

use std::fs::File;
use std::io;
use std::ptr::NonNull;

use crate::words::map_file;

/// A whole file mapped readable and writable, private to the process
/// (`MAP_PRIVATE`); unmapped when dropped.
#[derive(Debug)]
pub struct CowMapping {
    start: NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is private memory of this process, like a heap
// allocation; the library only reads it (through `bytes`) and unmaps it
// once, in `drop`. Writes are the C caller's, under the same contract as
// writes through a heap array it was handed.
unsafe impl Send for CowMapping {}
// SAFETY: as for `Send`: the library's shared references only read.
unsafe impl Sync for CowMapping {}

impl CowMapping {
    /// Maps the first `len` bytes of `file` copy-on-write (the file needs
    /// only be open for reading). `len` must not exceed the file's size as
    /// the caller has just checked it (a file nobody writes, so it stays
    /// that size); 0 is refused. The pages are mapped as they are read, not
    /// up front: populating a writable private mapping would copy each one.
    pub fn map(file: &File, len: usize) -> io::Result<CowMapping> {
        let start = map_file(
            file,
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE,
        )?;
        Ok(CowMapping { start, len })
    }

    /// The mapped bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `start..start + len` is mapped readable for as long as
        // `self` lives; the library never writes it.
        unsafe { std::slice::from_raw_parts(self.start.as_ptr(), self.len) }
    }

    /// The first byte, for a caller allowed to write (its writes stay in
    /// this process).
    pub fn as_mut_ptr(&self) -> *mut u8 {
        self.start.as_ptr()
    }

    /// The mapping's length in bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always false: an empty mapping is refused.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for CowMapping {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `map`, unmapped once; whoever was
        // handed a pointer into it holds what keeps it alive.
        unsafe { libc::munmap(self.start.as_ptr().cast(), self.len) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg_attr(miri, ignore = "Miri does not map files")]
    fn a_write_stays_in_the_mapping_not_the_file() {
        let dir = crate::scratch::ScratchDir::new("cow-map");
        let path = dir.join("image");
        std::fs::write(&path, b"shared bytes").unwrap();
        let file = File::open(&path).unwrap();
        let mapping = CowMapping::map(&file, 12).unwrap();
        let other = CowMapping::map(&file, 12).unwrap();
        assert_eq!(mapping.bytes(), b"shared bytes");
        // SAFETY: the first byte of a live, writable mapping.
        unsafe { mapping.as_mut_ptr().write(b'S') };
        assert_eq!(mapping.bytes(), b"Shared bytes");
        assert_eq!(other.bytes(), b"shared bytes");
        assert_eq!(std::fs::read(&path).unwrap(), b"shared bytes");
        assert!(CowMapping::map(&file, 0).is_err());
    }
}
