package net.ketama;

/**
 * Placement flavours: the C enum {@code ketama_flavour} (ids must match
 * include/ketama.h; tests/bindings_java.rs checks them).
 */
public enum Flavour {
    /** The original libketama continuum ({@code KETAMA_FLAVOUR_LIBKETAMA}). */
    LIBKETAMA(0);

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
