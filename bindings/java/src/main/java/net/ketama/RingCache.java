package net.ketama;

import com.sun.jna.Memory;

/**
 * The process's ring cache in libketama.so, which every {@link Ring} constructor
 * shares rings through: a ring built again from the same file state or server list
 * (and the same flavour, hash, reading and options) is the one already built. Its
 * bounds are set here or by the environment variables {@code KETAMA_RING_CACHE_RINGS}
 * and {@code KETAMA_RING_CACHE_BYTES}.
 */
public final class RingCache {
    private RingCache() {}

    /**
     * What the cache holds and has done.
     *
     * @param rings rings kept now
     * @param bytes bytes the kept rings weigh
     * @param maxRings the most rings kept
     * @param maxBytes the most bytes kept (the newest ring stays even alone over it)
     * @param hits constructions answered with a ring already built
     * @param misses constructions that read a file or built a ring
     * @param evictions rings dropped to keep within the bounds
     * @param attached rings whose continuum was mapped from an image another process published
     * @param rolled rings built in this process
     * @param sharing whether large continua are shared between processes ({@code KETAMA_SHARED_RINGS})
     */
    public record Stats(long rings, long bytes, long maxRings, long maxBytes, long hits, long misses, long evictions,
            long attached, long rolled, boolean sharing) {}

    /**
     * Keeps at most {@code rings} rings and {@code bytes} bytes (the least recently
     * used dropped first, at once; 0 rings: nothing is kept). Rings already made stay valid.
     */
    public static void configure(long rings, long bytes) {
        if (rings < 0 || bytes < 0) {
            throw new IllegalArgumentException("ring cache bounds are negative: " + rings + " rings, " + bytes + " bytes");
        }
        KetamaNative.check(KetamaNative.ketama_ring_cache_configure(rings, bytes));
    }

    /** What the cache holds and has done so far. */
    public static Stats stats() {
        Memory s = new Memory(NativeStructs.KetamaRingCacheStats.SIZE);
        KetamaNative.check(KetamaNative.ketama_ring_cache_get_stats(s));
        Memory built = new Memory(NativeStructs.KetamaRingCacheSharing.SIZE);
        KetamaNative.check(KetamaNative.ketama_ring_cache_get_sharing(built));
        return new Stats(NativeStructs.KetamaRingCacheStats.getRings(s), NativeStructs.KetamaRingCacheStats.getBytes(s),
                NativeStructs.KetamaRingCacheStats.getMaxRings(s), NativeStructs.KetamaRingCacheStats.getMaxBytes(s),
                NativeStructs.KetamaRingCacheStats.getHits(s), NativeStructs.KetamaRingCacheStats.getMisses(s),
                NativeStructs.KetamaRingCacheStats.getEvictions(s), NativeStructs.KetamaRingCacheSharing.getAttached(built),
                NativeStructs.KetamaRingCacheSharing.getRolled(built), NativeStructs.KetamaRingCacheSharing.getEnabled(built));
    }
}
