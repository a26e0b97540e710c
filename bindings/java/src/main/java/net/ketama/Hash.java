package net.ketama;

/**
 * Key hashes ({@code DEFAULT}: the flavour's own): the C enum {@code ketama_hash} (ids must match
 * include/ketama.h; tests/bindings_java.rs checks them).
 */
public enum Hash {
    /** The flavour's default key hash: {@code KETAMA_HASH_DEFAULT}. */
    DEFAULT(0),
    /** Word 0 of MD5(key), little-endian (libketama, KETAMA_HASH): {@code KETAMA_HASH_MD5}. */
    MD5(1),
    /** {@code (crc32 >> 16) & 0x7fff} (libmemcached crc, twemproxy crc32, spymemcached CRC): {@code KETAMA_HASH_CRC}. */
    CRC(2),
    /** Full CRC-32 (pecl memcache crc32, twemproxy crc32a): {@code KETAMA_HASH_CRC32}. */
    CRC32(3),
    /** Jenkins one-at-a-time (libmemcached's default): {@code KETAMA_HASH_ONE_AT_A_TIME}. */
    ONE_AT_A_TIME(4),
    /** FNV-1 32-bit over C chars: {@code KETAMA_HASH_FNV1_32}. */
    FNV1_32(5),
    /** FNV-1a 32-bit over C chars (pecl memcache fnv): {@code KETAMA_HASH_FNV1A_32}. */
    FNV1A_32(6),
    /** FNV-1 64-bit over C chars, low 32 bits: {@code KETAMA_HASH_FNV1_64}. */
    FNV1_64(7),
    /** FNV-1a 64-bit over C chars, low 32 bits (twemproxy's default): {@code KETAMA_HASH_FNV1A_64}. */
    FNV1A_64(8),
    /** MurmurHash2 as libmemcached/twemproxy seed it: {@code KETAMA_HASH_MURMUR}. */
    MURMUR(9),
    /** MurmurHash3 x86_32 as libmemcached seeds it: {@code KETAMA_HASH_MURMUR3}. */
    MURMUR3(10),
    /** Jenkins lookup3 (initval 13): {@code KETAMA_HASH_JENKINS}. */
    JENKINS(11),
    /** Hsieh SuperFastHash (twemproxy): {@code KETAMA_HASH_HSIEH}. */
    HSIEH(12),
    /** spymemcached NATIVE_HASH (Java {@code String.hashCode}): {@code KETAMA_HASH_SPY_NATIVE}. */
    SPY_NATIVE(13),
    /** spymemcached FNV1_32_HASH (UTF-16 code units): {@code KETAMA_HASH_SPY_FNV1_32}. */
    SPY_FNV1_32(14),
    /** spymemcached FNV1A_32_HASH (UTF-16 code units): {@code KETAMA_HASH_SPY_FNV1A_32}. */
    SPY_FNV1A_32(15),
    /** spymemcached FNV1_64_HASH (UTF-16 code units, low 32 bits): {@code KETAMA_HASH_SPY_FNV1_64}. */
    SPY_FNV1_64(16),
    /** spymemcached FNV1A_64_HASH (UTF-16 code units, low 32 bits): {@code KETAMA_HASH_SPY_FNV1A_64}. */
    SPY_FNV1A_64(17),
    /** twemproxy's crc16 (the register is never cut back to 16 bits): {@code KETAMA_HASH_CRC16}. */
    CRC16(18),
    /** MurmurHash3 x86_32 with seed 0 (pymemcache {@code murmur3_32}): {@code KETAMA_HASH_MURMUR3_SEED0}. */
    MURMUR3_SEED0(19),
    /** python-memcached {@code cmemcache_hash} (15-bit CRC, 0 read as 1): {@code KETAMA_HASH_CMEMCACHE}. */
    CMEMCACHE(20);

    private final int id;

    Hash(int id) {
        this.id = id;
    }

    /** The C enum value. */
    public int id() {
        return id;
    }

    /** The C enum constant name, e.g. {@code KETAMA_HASH_DEFAULT}. */
    public String cName() {
        return "KETAMA_HASH_" + name();
    }
}
