package net.ketama;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;

/**
 * A migration from one ring to another (any two flavours and server lists):
 * for every key its owners in both rings, and each get, set, add and delete
 * driven through the protocol of the key's phase ({@link Operation}). The
 * library sends nothing; {@link MigratingMemcachedClient} runs the steps on
 * spymemcached connections. Immutable: use it from many threads. See
 * docs/migration.md.
 */
public final class Migration implements AutoCloseable {
    private final NativeHandle handle;

    private Migration(long migration) {
        this.handle = new NativeHandle(this, migration, KetamaNative::ketama_migration_free, "migration");
    }

    /**
     * The migration of {@code mode} from {@code oldRing} to {@code newRing}, starting at
     * {@code startMs} (milliseconds since the Unix epoch; 0: now), with the schedule and
     * TTLs of {@code options} ({@code "interval=60s,warmup=1h,copy_ttl=1h,lease_ttl=10s"};
     * null: the library's defaults). The migration keeps its own reference to both rings.
     *
     * @throws KetamaException with the library's message for a bad option
     */
    public static Migration create(Ring oldRing, Ring newRing, MigrationMode mode, long startMs, String options) {
        KetamaNative.ensureLoaded();
        long[] out = new long[1];
        int status = oldRing.withNative(o -> newRing.withNative(
                n -> KetamaNative.ketama_migration_new(o, n, mode.id(), startMs, options, out)));
        KetamaNative.check(status);
        return new Migration(out[0]);
    }

    /** A key's owners: its server in the new ring, and in the old ring when that is another one (else null). */
    public record Route(String newServer, String oldServer) {
        /** Whether the key moves. */
        public boolean moved() {
            return oldServer != null;
        }
    }

    /** The key's owners in both rings. */
    public Route route(String key) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        try (Memory out = new Memory(MigrationStructs.KetamaMigrationOwners.SIZE)) {
            KetamaNative.check(handle.with(m -> KetamaNative.ketama_migration_route(m, k, k.length, out)));
            String newServer = text(MigrationStructs.KetamaMigrationOwners.getNewAddress(out),
                    MigrationStructs.KetamaMigrationOwners.getNewAddressLen(out));
            if (MigrationStructs.KetamaMigrationOwners.getMoved(out) == 0) {
                return new Route(newServer, null);
            }
            return new Route(newServer, text(MigrationStructs.KetamaMigrationOwners.getOldAddress(out),
                    MigrationStructs.KetamaMigrationOwners.getOldAddressLen(out)));
        }
    }

    /** The key's phase at {@code nowMs} (0: now). */
    public MigrationPhase phase(String key, long nowMs) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        int[] out = new int[1];
        KetamaNative.check(handle.with(m -> KetamaNative.ketama_migration_phase_of(m, k, k.length, nowMs, out)));
        return byId(MigrationPhase.values(), out[0], MigrationPhase::id);
    }

    /** Begins {@code op} on {@code key} at {@code nowMs} (0: now); drive it to its outcome and close it. */
    public Operation begin(MigrationOp op, String key, long nowMs) {
        byte[] k = key.getBytes(StandardCharsets.UTF_8);
        long[] out = new long[1];
        KetamaNative.check(handle.with(m -> KetamaNative.ketama_migration_begin(m, op.id(), k, k.length, nowMs, out)));
        return new Operation(out[0]);
    }

    /** Releases the native migration (operations begun keep their own reference). */
    @Override
    public void close() {
        handle.close();
    }

    /** A command to send: to which side's owner and address, with the CAS unique, TTL and lease it needs. */
    public record Step(MigrationCommand command, MigrationSide side, String address, long cas, Integer exptime, byte[] lease) {}

    /**
     * One operation on one key: {@link #step()} names the command to send next (null once
     * finished, then {@link #outcome()}), {@link #reply} feeds the server's answer. Used by one
     * thread at a time.
     */
    public static final class Operation implements AutoCloseable {
        private final NativeHandle handle;
        private final Memory step = new Memory(MigrationStructs.KetamaMigrationStep.SIZE);

        private Operation(long op) {
            this.handle = new NativeHandle(this, op, KetamaNative::ketama_migration_op_free, "migration operation");
            KetamaNative.check(handle.with(o -> KetamaNative.ketama_migration_op_step(o, step)));
        }

        /** The next command, or null when the operation is finished. */
        public Step step() {
            if (MigrationStructs.KetamaMigrationStep.getDone(step) != 0) {
                return null;
            }
            long exptime = MigrationStructs.KetamaMigrationStep.getExptime(step);
            long leaseLen = MigrationStructs.KetamaMigrationStep.getLeaseLen(step);
            return new Step(
                    byId(MigrationCommand.values(), MigrationStructs.KetamaMigrationStep.getCommand(step), MigrationCommand::id),
                    byId(MigrationSide.values(), MigrationStructs.KetamaMigrationStep.getSide(step), MigrationSide::id),
                    text(MigrationStructs.KetamaMigrationStep.getAddress(step), MigrationStructs.KetamaMigrationStep.getAddressLen(step)),
                    MigrationStructs.KetamaMigrationStep.getCas(step),
                    exptime < 0 ? null : (int) exptime,
                    leaseLen == 0 ? new byte[0]
                            : MigrationStructs.KetamaMigrationStep.getLease(step).getByteArray(0, (int) leaseLen));
        }

        /**
         * Feeds the server's answer to the current command; for a hit, {@code value} and its
         * CAS unique (0 for a plain get).
         *
         * @throws KetamaException for a reply the command cannot give
         */
        public void reply(MigrationReply reply, byte[] value, long cas) {
            byte[] v = value == null ? new byte[0] : value;
            KetamaNative.check(handle.with(o -> KetamaNative.ketama_migration_op_reply(o, reply.id(), v, v.length, cas, step)));
        }

        /** How the operation ended, or null while it runs. */
        public MigrationOutcome outcome() {
            if (MigrationStructs.KetamaMigrationStep.getDone(step) == 0) {
                return null;
            }
            return byId(MigrationOutcome.values(), MigrationStructs.KetamaMigrationStep.getOutcome(step), MigrationOutcome::id);
        }

        @Override
        public void close() {
            handle.close();
            step.close();
        }
    }

    private static String text(Pointer p, long len) {
        return new String(p.getByteArray(0, (int) len), StandardCharsets.UTF_8);
    }

    private static <E> E byId(E[] values, int id, java.util.function.ToIntFunction<E> idOf) {
        for (E value : values) {
            if (idOf.applyAsInt(value) == id) {
                return value;
            }
        }
        throw new KetamaException("the library answered an id this binding does not know: " + id);
    }
}
