//! Page hints for large arrays.
//!
//! After a large roll, the memory its temporaries took (the generated
//! points, the sort's buffer: about twice the continuum) is handed back to
//! the kernel ([`return_freed_pages`]); glibc's allocator would otherwise
//! keep it in the process, so that a long-lived process (a PHP-FPM worker)
//! holding a 10,000-server ring kept some 12 MB more than the ring.
//!
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
pub fn vec_with_capacity<T>(capacity: usize) -> Vec<T> {
    let mut vec = Vec::with_capacity(capacity);
    let spare = vec.spare_capacity_mut();
    map_pages(spare.as_mut_ptr().cast(), std::mem::size_of_val(spare));
    vec
}

/// Asks Linux (5.14 and later) to back the whole 2 MiB stretches inside the
/// `bytes` at `start` with huge pages, and to map all its whole pages as
/// writable now. Only hints: the contents do not change, and when a call is
/// refused (older kernels, other systems, Miri) pages fault as usual.
fn map_pages(start: *mut u8, bytes: usize) {
    if bytes < MIN_BYTES {
        return;
    }
    #[cfg(not(all(target_os = "linux", not(miri))))]
    let _ = start;
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        const PAGE: usize = 4096;
        const HUGE: usize = 2 * 1024 * 1024;
        let (start, end) = (start as usize, start as usize + bytes);
        advise(start, end, HUGE, libc::MADV_HUGEPAGE);
        advise(start, end, PAGE, libc::MADV_POPULATE_WRITE);
    }
}

/// Hands the pages of freed heap memory back to the kernel (glibc's
/// `malloc_trim`), when a roll of `bytes` has just freed its temporaries;
/// below [`MIN_BYTES`], and with other allocators or systems, nothing.
pub(crate) fn return_freed_pages(bytes: usize) {
    if bytes < MIN_BYTES {
        return;
    }
    #[cfg(all(target_os = "linux", target_env = "gnu", not(miri)))]
    // SAFETY: malloc_trim only returns free pages of glibc's heap to the
    // kernel; it changes no allocation and takes the allocator's locks.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// `madvise(advice)` over the whole `unit`-aligned stretch inside
/// `start..end`, if there is one; the answer is ignored (a hint).
#[cfg(all(target_os = "linux", not(miri)))]
fn advise(start: usize, end: usize, unit: usize, advice: libc::c_int) {
    let (first, last) = (start.next_multiple_of(unit), end & !(unit - 1));
    if last > first {
        // SAFETY: [first, last) lies inside the caller's buffer, memory this
        // process owns and may write. MADV_HUGEPAGE only asks for 2 MiB
        // pages; MADV_POPULATE_WRITE only maps the pages (as a write would).
        // Neither changes what the memory holds.
        unsafe { libc::madvise(first as *mut libc::c_void, last - first, advice) };
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
