package net.ketama;

/**
 * The write recipe of the set codec, driven with your own memcached client:
 * perform {@link #action()} (APPEND, ADD or PROBE) with the payload from
 * {@link KetamaSet#encode}, feed the reply to {@link #step} until
 * {@link #done()}; the outcome is then APPENDED, CREATED or
 * NOTHING_TO_REMOVE. A set that cannot grow throws KETAMA_ERR_SET_FULL
 * (compact or shard it); a key that keeps coming and going KETAMA_ERR_SET_CONTENDED.
 */
public final class SetWriter implements AutoCloseable {
    /** What to do next: the C enum {@code ketama_set_action}. */
    public enum Action {
        /** APPEND the payload. */
        APPEND,
        /** ADD the payload. */
        ADD,
        /** Check whether the key exists; reply EXISTS or NOT_FOUND. */
        PROBE,
        /** Done: appended. */
        APPENDED,
        /** Done: the set was created. */
        CREATED,
        /** Done: a remove on a missing set. */
        NOTHING_TO_REMOVE;

        static Action of(int id) {
            return values()[id - 1];
        }

        /** Whether this is an outcome rather than a command. */
        public boolean isDone() {
            return ordinal() >= APPENDED.ordinal();
        }
    }

    /** The server's reply: the C enum {@code ketama_set_reply}. */
    public enum Reply {
        /** STORED. */
        STORED,
        /** NOT_STORED. */
        NOT_STORED,
        /** EXISTS; for a probe, the key is present. */
        EXISTS,
        /** NOT_FOUND; for a probe, the key is missing. */
        NOT_FOUND,
        /** SERVER_ERROR object too large for cache. */
        TOO_LARGE
    }

    private final NativeHandle handle;
    private Action action;

    /** A writer for one payload of {@code op} records ({@code maxRetries} 0 = 3 rounds). */
    public SetWriter(SetOp op, int maxRetries) {
        KetamaNative.ensureLoaded();
        long[] writer = new long[1];
        int[] first = new int[1];
        KetamaNative.check(KetamaNative.ketama_set_writer_new(op.id(), maxRetries, writer, first));
        handle = new NativeHandle(this, writer[0], KetamaNative::ketama_set_writer_free, "set writer");
        action = Action.of(first[0]);
    }

    /** The next action, or the outcome once done. */
    public Action action() {
        return action;
    }

    /** Whether the write finished. */
    public boolean done() {
        return action.isDone();
    }

    /** Feeds the reply to the last action; returns the next. @throws KetamaException SET_FULL, SET_CONTENDED, or an impossible reply */
    public Action step(Reply reply) {
        int[] next = new int[1];
        handle.with(p -> {
            KetamaNative.check(KetamaNative.ketama_set_writer_step(p, reply.ordinal(), next));
            return null;
        });
        action = Action.of(next[0]);
        return action;
    }

    /** Frees the writer. @throws IllegalStateException when already closed */
    @Override
    public void close() {
        handle.close();
    }
}
