package net.ketama;

/** Set value encodings: the C enum {@code ketama_set_encoding}. */
public enum SetEncoding {
    /** Detect T1 or B1 from the bytes (decode only). */
    AUTO(0),
    /** Text records {@code +m } / {@code -m }. */
    T1(1),
    /** Binary records (0xA1/0xA2, LEB128 length, bytes). */
    B1(2),
    /** Membase comma list (read only). */
    MEMBASE_COMMA(3),
    /** Membase {@code |} tombstone list (read only). */
    MEMBASE_TOMBSTONE(4),
    /** Membase {@code +1234+222-222} list (read only). */
    MEMBASE_PLUSMINUS(5);

    private final int id;

    SetEncoding(int id) {
        this.id = id;
    }

    /** The C enum value. */
    public int id() {
        return id;
    }

    static SetEncoding of(int id) {
        for (SetEncoding e : values()) {
            if (e.id == id) {
                return e;
            }
        }
        throw new KetamaException("unknown set encoding id " + id);
    }
}
