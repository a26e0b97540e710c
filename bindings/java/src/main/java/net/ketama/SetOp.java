package net.ketama;

/** Set record operations: the C enum {@code ketama_set_op}. */
public enum SetOp {
    /** Add members ({@code KETAMA_SET_ADD}). */
    ADD,
    /** Remove members ({@code KETAMA_SET_REMOVE}). */
    REMOVE;

    /** The C enum value. */
    public int id() {
        return ordinal();
    }
}
