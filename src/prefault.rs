//! Large arrays filled right after they are allocated (the continuum's
//! points while a ring rolls) have their pages mapped by the kernel in one
//! call instead of one page fault per 4 KiB on first write (at 10,000
//! servers some 6,000 faults per roll), and the whole 2 MiB stretches of
//! arrays of several MiB are asked to be huge pages, which also spares
//! lookups TLB misses. Both are hints: where the kernel declines, pages
//! fault in as usual.

/// Buffers smaller than this are left alone (a few pages fault cheaply).
const MIN_BYTES: usize = 256 * 1024;

/// `len` zeros, their pages mapped up front (see the module documentation).
/// The memory comes zeroed from the allocator (fresh pages for large
/// sizes), so nothing is written twice.
pub(crate) fn zeroed_u32s(len: usize) -> Vec<u32> {
    let mut vec = vec![0u32; len];
    map_pages(
        vec.as_mut_ptr().cast(),
        std::mem::size_of_val(vec.as_slice()),
    );
    vec
}

/// An empty vector with room for `capacity` items, its pages mapped up
/// front (see the module documentation).
pub(crate) fn vec_with_capacity<T>(capacity: usize) -> Vec<T> {
    let mut vec = Vec::with_capacity(capacity);
    let spare = vec.spare_capacity_mut();
    map_pages(spare.as_mut_ptr().cast(), std::mem::size_of_val(spare));
    vec
}

/// Asks Linux (5.14 and later) to map the whole pages inside the `bytes`
/// at `start` as writable now. Only a hint: the contents do not change, and
/// when the call is refused (older kernels, other systems, Miri) pages
/// fault as usual.
fn map_pages(start: *mut u8, bytes: usize) {
    if bytes < MIN_BYTES {
        return;
    }
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        const PAGE: usize = 4096;
        let first = (start as usize).next_multiple_of(PAGE);
        let end = (start as usize + bytes) & !(PAGE - 1);
        const HUGE: usize = 2 * 1024 * 1024;
        let huge_first = (start as usize).next_multiple_of(HUGE);
        let huge_end = (start as usize + bytes) & !(HUGE - 1);
        if huge_end > huge_first {
            // SAFETY: as below; MADV_HUGEPAGE only asks for 2 MiB pages.
            unsafe {
                libc::madvise(
                    huge_first as *mut libc::c_void,
                    huge_end - huge_first,
                    libc::MADV_HUGEPAGE,
                )
            };
        }
        if end > first {
            // SAFETY: [first, end) lies inside the caller's buffer, memory
            // this process owns and may write; MADV_POPULATE_WRITE only maps
            // its pages (as a write would) and never changes what they hold.
            unsafe {
                libc::madvise(
                    first as *mut libc::c_void,
                    end - first,
                    libc::MADV_POPULATE_WRITE,
                )
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_are_zeroed_and_sized_whatever_their_size() {
        for len in [0usize, 1, 1000, 100_000, 1_000_000] {
            let zeros = zeroed_u32s(len);
            assert_eq!(zeros.len(), len);
            assert!(zeros.iter().all(|&z| z == 0));
            let empty: Vec<(u32, u32)> = vec_with_capacity(len);
            assert!(empty.is_empty() && empty.capacity() >= len);
        }
    }
}
