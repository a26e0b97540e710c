package net.ketama;

/**
 * Key hashes: the C enum {@code ketama_hash} (ids must match
 * include/ketama.h; tests/bindings_java.rs checks them).
 */
public enum Hash {
    /** The flavour's own key hash ({@code KETAMA_HASH_DEFAULT}). */
    DEFAULT(0),
    /** Word 0 of MD5(key), little-endian ({@code KETAMA_HASH_MD5}). */
    MD5(1);

    private final int id;

    Hash(int id) {
        this.id = id;
    }

    /** The C enum value. */
    public int id() {
        return id;
    }

    /** The C enum constant name, e.g. {@code KETAMA_HASH_MD5}. */
    public String cName() {
        return "KETAMA_HASH_" + name();
    }
}
