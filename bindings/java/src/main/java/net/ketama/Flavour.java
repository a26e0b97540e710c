package net.ketama;

/**
 * Placement flavours: the C enum {@code ketama_flavour} (ids must match
 * include/ketama.h; tests/bindings_java.rs checks them).
 */
public enum Flavour {
    /** The original libketama continuum (default): {@code KETAMA_FLAVOUR_LIBKETAMA}. */
    LIBKETAMA(0),
    /** spymemcached {@code KetamaNodeLocator}, node keys in SPYMEMCACHED format: {@code KETAMA_FLAVOUR_SPYMEMCACHED}. */
    SPYMEMCACHED(1),
    /** spymemcached {@code KetamaNodeLocator}, node keys in LIBMEMCACHED format: {@code KETAMA_FLAVOUR_SPYMEMCACHED_LIBMEMCACHED}. */
    SPYMEMCACHED_LIBMEMCACHED(2),
    /** libmemcached KETAMA_WEIGHTED (php-memcached {@code OPT_LIBKETAMA_COMPATIBLE}): {@code KETAMA_FLAVOUR_LIBMEMCACHED}. */
    LIBMEMCACHED(3),
    /** libmemcached CONSISTENT: 100 hashed points per server: {@code KETAMA_FLAVOUR_LIBMEMCACHED_CONSISTENT}. */
    LIBMEMCACHED_CONSISTENT(4),
    /** libmemcached CONSISTENT_KETAMA_SPY: {@code KETAMA_FLAVOUR_LIBMEMCACHED_SPY}. */
    LIBMEMCACHED_SPY(5),
    /** twemproxy (nutcracker) ketama; the server name column is honoured: {@code KETAMA_FLAVOUR_TWEMPROXY}. */
    TWEMPROXY(6),
    /** pecl memcache consistent strategy (1024-bucket lookup): {@code KETAMA_FLAVOUR_PECL_MEMCACHE}. */
    PECL_MEMCACHE(7),
    /** libketama's own Java port ({@code java_ketama/SockIOPool.java}): {@code KETAMA_FLAVOUR_LIBKETAMA_JAVA}. */
    LIBKETAMA_JAVA(8),
    /** Ruby dalli's {@code Dalli::Ring}: {@code KETAMA_FLAVOUR_DALLI}. */
    DALLI(9),
    /** nginx {@code hash $key consistent}: {@code KETAMA_FLAVOUR_NGINX}. */
    NGINX(10),
    /** The npm {@code memcached} client (hashring): {@code KETAMA_FLAVOUR_NODE_MEMCACHED}. */
    NODE_MEMCACHED(11),
    /** Perl Cache::Memcached::Fast with {@code ketama_points => 150}: {@code KETAMA_FLAVOUR_MEMCACHED_FAST}. */
    MEMCACHED_FAST(12),
    /** pymemcache {@code HashClient}'s rendezvous hashing (no continuum points): {@code KETAMA_FLAVOUR_PYMEMCACHE}. */
    PYMEMCACHE(13),
    /** python-memcached: hash modulo the weighted bucket list (no continuum points): {@code KETAMA_FLAVOUR_PYTHON_MEMCACHED}. */
    PYTHON_MEMCACHED(14),
    /** Perl Cache::Memcached: hash modulo the weighted bucket list (no continuum points): {@code KETAMA_FLAVOUR_CACHE_MEMCACHED}. */
    CACHE_MEMCACHED(15);

    private final int id;

    Flavour(int id) {
        this.id = id;
    }

    /** The C enum value. */
    public int id() {
        return id;
    }

    /** The C enum constant name, e.g. {@code KETAMA_FLAVOUR_LIBKETAMA}. */
    public String cName() {
        return "KETAMA_FLAVOUR_" + name();
    }
}
