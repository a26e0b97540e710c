<?php

declare(strict_types=1);

namespace Ketama;

/**
 * The library's ring cache, which {@see Ring::fromFile()}, {@see Ring::fromServers()}
 * and every other constructor share rings through, per process (a PHP-FPM
 * worker keeps its rings across requests): its bounds, set here or by the
 * environment variables `KETAMA_RING_CACHE_RINGS` and `KETAMA_RING_CACHE_BYTES`,
 * and what it holds and has done. (The php_ketama `ketama_roll()` keeps its
 * continuums apart, in the original's record layout.)
 */
final class RingCache
{
    /**
     * Keeps at most `$rings` rings and `$bytes` bytes in this process (the least
     * recently used dropped first, at once; 0 rings: nothing is kept). Rings
     * already made stay valid.
     */
    public static function configure(int $rings, int $bytes): void
    {
        if ($rings < 0 || $bytes < 0) {
            throw new KetamaException("ring cache bounds are negative: {$rings} rings, {$bytes} bytes");
        }
        Library::check(Library::ffi()->ketama_ring_cache_configure($rings, $bytes));
    }

    /**
     * What the cache holds and has done in this process.
     *
     * @return array{rings: int, bytes: int, max_rings: int, max_bytes: int, hits: int, misses: int, evictions: int, attached: int, rolled: int, sharing: bool}
     */
    public static function stats(): array
    {
        $ffi = Library::ffi();
        $stats = $ffi->new('ketama_ring_cache_stats');
        Library::check($ffi->ketama_ring_cache_get_stats(\FFI::addr($stats)));
        $built = $ffi->new('ketama_ring_cache_sharing');
        Library::check($ffi->ketama_ring_cache_get_sharing(\FFI::addr($built)));
        return [
            'rings' => $stats->rings,
            'bytes' => $stats->bytes,
            'max_rings' => $stats->max_rings,
            'max_bytes' => $stats->max_bytes,
            'hits' => $stats->hits,
            'misses' => $stats->misses,
            'evictions' => $stats->evictions,
            'attached' => $built->attached,
            'rolled' => $built->rolled,
            'sharing' => $built->enabled,
        ];
    }
}
