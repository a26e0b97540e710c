//! The process's ring cache from C: its bounds set at run time, and what
//! it holds and has done (the rules: `ketama_core::ring_cache`).

use super::boundary::{arg_out, guard_status, param};
use super::status::ketama_status;
use ketama_core::ring_cache::{self, Bounds};

/// What the process's ring cache holds and has done
/// (`ketama_ring_cache_get_stats`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ketama_ring_cache_stats {
    /// Rings kept now.
    pub rings: usize,
    /// Bytes the kept rings weigh (their arrays and their keys).
    pub bytes: usize,
    /// The most rings kept (the bound in force).
    pub max_rings: usize,
    /// The most bytes kept (the bound in force; the newest ring stays even alone over it).
    pub max_bytes: usize,
    /// Ring constructions answered with a ring already built.
    pub hits: u64,
    /// Ring constructions that read a file or built a ring.
    pub misses: u64,
    /// Rings dropped to keep within the bounds.
    pub evictions: u64,
}

/// How the process's ring cache built its rings (the rings of `ketama_roll`'s
/// continua included), and whether large continua are shared with other
/// processes (`ketama_ring_cache_get_sharing`).
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct ketama_ring_cache_sharing {
    /// Rings built with their continuum mapped from an image another
    /// process published (no roll).
    pub attached: u64,
    /// Rings built in this process (rolled, or placed per key).
    pub rolled: u64,
    /// The points and owners a continuum must weigh to be shared (bytes).
    pub threshold_bytes: usize,
    /// Whether large continua are shared through a directory
    /// (`KETAMA_SHARED_RINGS`: a directory, by default
    /// `/dev/shm/ketama-<euid>`; `off` turns sharing off).
    pub enabled: bool,
}

/// Sets the bounds of the process's ring cache, which the `ketama_ring_new*`
/// constructors share rings through: at most `rings` rings and `bytes`
/// bytes kept (the least recently used dropped first, at once when the new
/// bounds are lower; 0 rings: nothing is kept). Overrides
/// `KETAMA_RING_CACHE_RINGS` and `KETAMA_RING_CACHE_BYTES`. Rings handed
/// out stay valid when dropped. Always `KETAMA_OK`.
#[unsafe(no_mangle)]
pub extern "C" fn ketama_ring_cache_configure(rings: usize, bytes: usize) -> ketama_status {
    guard_status(|| {
        ring_cache::set_bounds(Bounds {
            entries: rings,
            weight: bytes,
        });
        Ok(())
    })
}

/// Writes what the process's ring cache holds and has done into `*out`.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_cache_get_stats(
    out: *mut ketama_ring_cache_stats,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(out))?;
        let stats = ring_cache::global().stats();
        *out = ketama_ring_cache_stats {
            rings: stats.rings,
            bytes: stats.bytes,
            max_rings: stats.bounds.entries,
            max_bytes: stats.bounds.weight,
            hits: stats.hits,
            misses: stats.misses,
            evictions: stats.evictions,
        };
        Ok(())
    })
}

/// Writes how the process's ring cache built its rings (mapped from
/// another process's image, or built here) and whether it shares large
/// continua into `*out`.
///
/// # Safety
/// `out` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn ketama_ring_cache_get_sharing(
    out: *mut ketama_ring_cache_sharing,
) -> ketama_status {
    guard_status(|| {
        let out = param!(arg_out(out))?;
        let cache = ring_cache::global();
        let stats = cache.stats();
        let (sharing, threshold) = cache.sharing();
        *out = ketama_ring_cache_sharing {
            attached: stats.attached,
            rolled: stats.rolled,
            threshold_bytes: threshold,
            enabled: !matches!(sharing, ring_cache::Sharing::Off),
        };
        Ok(())
    })
}
