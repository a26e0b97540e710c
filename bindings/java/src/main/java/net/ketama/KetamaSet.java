package net.ketama;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * A decoded memcached set value (the library's set codec): members in
 * bytewise order, counters, the compacted value, and set algebra.
 *
 * <p>Values are built from APPEND payloads made by {@link #encode} and
 * written with {@link SetWriter}; read them with {@link #decode} or
 * {@link #planRead}, which also says when to store the compacted value
 * under CAS. Close it (try-with-resources); closing twice or using a closed
 * set throws {@link IllegalStateException}.
 */
public final class KetamaSet implements AutoCloseable {
    /** Counters of a decoded set ({@code redundant}: what compaction deletes). */
    public record Stats(long members, long records, long removals, long redundant, long valueLength, SetEncoding encoding) {}

    /** Compaction policy: compact when {@code redundant > threshold}, or over {@code softLimit} bytes with any redundancy. */
    public record Policy(long threshold, long softLimit, boolean ratio) {
        /** The library's defaults ({@code ketama_set_policy_default}). */
        public static final Policy DEFAULT = libraryDefault();

        private static Policy libraryDefault() {
            KetamaNative.ensureLoaded();
            Memory p = new Memory(NativeStructs.KetamaSetPolicy.SIZE);
            KetamaNative.check(KetamaNative.ketama_set_policy_default(p));
            return new Policy(NativeStructs.KetamaSetPolicy.getThreshold(p),
                    NativeStructs.KetamaSetPolicy.getSoftLimit(p), NativeStructs.KetamaSetPolicy.getRatio(p));
        }
    }

    /** A compaction write: store {@code value} under CAS {@code cas} with {@code exptime} (null: TTL was unknown). */
    public record Compaction(byte[] value, long cas, Integer exptime) {}

    /** The result of {@link #planRead}: the set and the compaction to write, or null. */
    public record ReadPlan(KetamaSet set, Compaction compaction) {}

    private final NativeHandle handle;

    private KetamaSet(long set) {
        this.handle = new NativeHandle(this, set, KetamaNative::ketama_set_free, "ketama set");
    }

    /** Decodes a stored value (T1 or B1 detected). @throws KetamaException KETAMA_ERR_SET_DECODE with kind, offset and record */
    public static KetamaSet decode(byte[] value) {
        return decode(value, SetEncoding.AUTO);
    }

    /** Decodes a stored value strictly in {@code encoding}. */
    public static KetamaSet decode(byte[] value, SetEncoding encoding) {
        KetamaNative.ensureLoaded();
        long[] out = new long[1];
        KetamaNative.check(KetamaNative.ketama_set_decode(value, value.length, encoding.id(), 0, out, null));
        return new KetamaSet(out[0]);
    }

    /**
     * Reads a paired list ({@code follow-X} and {@code unfollow-X} values; an
     * empty array for a missing key), counted: the members occurring more often
     * in {@code adds} than in {@code removes}.
     *
     * @throws KetamaException KETAMA_ERR_SET_DECODE when a value does not decode
     */
    public static KetamaSet decodePaired(byte[] adds, byte[] removes) {
        KetamaNative.ensureLoaded();
        long[] out = new long[1];
        KetamaNative.check(KetamaNative.ketama_set_decode_paired(adds, adds.length, removes, removes.length, 0, out));
        return new KetamaSet(out[0]);
    }

    /** The T1 APPEND payload recording string members (UTF-8) in one list of a pair. */
    public static byte[] encodePaired(Collection<String> members) {
        KetamaNative.ensureLoaded();
        List<byte[]> bytes = new ArrayList<>();
        for (String m : members) {
            bytes.add(m.getBytes(StandardCharsets.UTF_8));
        }
        List<Memory> keep = new ArrayList<>();
        Memory refs = memberRefs(bytes, keep);
        Memory out = buffer();
        KetamaNative.check(KetamaNative.ketama_set_encode_paired(refs, bytes.size(), SetEncoding.T1.id(), 0, out));
        java.lang.ref.Reference.reachabilityFence(keep);
        return take(out);
    }

    /** The key of one list of a pair: {@code follow-<base>} ({@code adds} true) or {@code unfollow-<base>}. */
    public static String pairedKey(String base, boolean adds) {
        return pairedKey(base, adds ? SetSide.ADD : SetSide.REMOVE);
    }

    /** The key of the {@code side} list of a pair: {@code follow-<base>} or {@code unfollow-<base>}. */
    public static String pairedKey(String base, SetSide side) {
        KetamaNative.ensureLoaded();
        byte[] bytes = base.getBytes(StandardCharsets.UTF_8);
        Memory out = buffer();
        KetamaNative.check(KetamaNative.ketama_set_paired_key(bytes, bytes.length, side.id(), out));
        return new String(take(out), StandardCharsets.UTF_8);
    }

    /** {@code ketama_set_member_ref[]} for {@code members}; the copies stay alive in {@code keep}. */
    private static Memory memberRefs(List<byte[]> members, List<Memory> keep) {
        final long size = NativeStructs.KetamaSetMemberRef.SIZE;
        Memory refs = new Memory(size * Math.max(1, members.size()));
        for (int i = 0; i < members.size(); i++) {
            byte[] m = members.get(i);
            Memory copy = new Memory(Math.max(1, m.length));
            copy.write(0, m, 0, m.length);
            keep.add(copy);
            Pointer ref = refs.share(size * i);
            NativeStructs.KetamaSetMemberRef.setData(ref, copy);
            NativeStructs.KetamaSetMemberRef.setLen(ref, m.length);
        }
        return refs;
    }

    /** Whether the value started with the {@code ^} seal (a retired list of a flipped pair). */
    public boolean isSealed() {
        return handle.with(p -> KetamaNative.ketama_set_is_sealed(p) != 0);
    }

    /** The T1 APPEND/ADD payload recording {@code op} of string members (UTF-8). */
    public static byte[] encode(SetOp op, Collection<String> members) {
        List<byte[]> bytes = new ArrayList<>();
        for (String m : members) {
            bytes.add(m.getBytes(StandardCharsets.UTF_8));
        }
        return encode(op, SetEncoding.T1, bytes);
    }

    /** The APPEND/ADD payload recording {@code op} of {@code members} in {@code encoding}. @throws KetamaException KETAMA_ERR_SET_MEMBER */
    public static byte[] encode(SetOp op, SetEncoding encoding, List<byte[]> members) {
        KetamaNative.ensureLoaded();
        List<Memory> keep = new ArrayList<>();
        Memory refs = memberRefs(members, keep);
        Memory out = buffer();
        KetamaNative.check(KetamaNative.ketama_set_encode(op.id(), encoding.id(), refs, members.size(), 0, out));
        java.lang.ref.Reference.reachabilityFence(keep);
        return take(out);
    }

    /**
     * The read step: decodes {@code value} fetched with CAS {@code cas} and says whether to
     * compact. {@code remainingTtl}: seconds left (-1 never expires), null when unknown.
     */
    public static ReadPlan planRead(byte[] value, long cas, Integer remainingTtl, Policy policy, boolean force) {
        KetamaNative.ensureLoaded();
        long[] set = new long[1];
        Memory compaction = new Memory(NativeStructs.KetamaSetCompaction.SIZE);
        compaction.clear();
        KetamaNative.check(KetamaNative.ketama_set_plan_read(value, value.length, SetEncoding.AUTO.id(), cas,
                remainingTtl == null ? 0 : remainingTtl, (byte) (remainingTtl != null ? 1 : 0), policy(policy),
                (byte) (force ? 1 : 0), set, compaction));
        KetamaSet decoded = new KetamaSet(set[0]);
        Compaction write = null;
        if (NativeStructs.KetamaSetCompaction.getNeeded(compaction)) {
            byte[] bytes = take(NativeStructs.KetamaSetCompaction.getValueData(compaction),
                    NativeStructs.KetamaSetCompaction.getValueLen(compaction));
            write = new Compaction(bytes, NativeStructs.KetamaSetCompaction.getCas(compaction),
                    NativeStructs.KetamaSetCompaction.getExptimeKnown(compaction)
                            ? NativeStructs.KetamaSetCompaction.getExptime(compaction) : null);
        }
        return new ReadPlan(decoded, write);
    }

    /** SUNION (null entries are missing keys). */
    public static KetamaSet union(KetamaSet... sets) {
        return algebra(0, sets);
    }

    /** SINTER (null entries are missing keys). */
    public static KetamaSet inter(KetamaSet... sets) {
        return algebra(1, sets);
    }

    /** SDIFF: the first set minus the others. */
    public static KetamaSet diff(KetamaSet... sets) {
        return algebra(2, sets);
    }

    private static KetamaSet algebra(int which, KetamaSet[] sets) {
        KetamaNative.ensureLoaded();
        return withAll(sets, 0, new long[sets.length], pointers -> {
            long[] out = new long[1];
            int status = switch (which) {
                case 0 -> KetamaNative.ketama_set_union(pointers, pointers.length, out);
                case 1 -> KetamaNative.ketama_set_inter(pointers, pointers.length, out);
                default -> KetamaNative.ketama_set_diff(pointers, pointers.length, out);
            };
            KetamaNative.check(status);
            return new KetamaSet(out[0]);
        });
    }

    /** Holds every set's read lock while {@code use} runs on their pointers. */
    private static <T> T withAll(KetamaSet[] sets, int i, long[] pointers, java.util.function.Function<long[], T> use) {
        if (i == sets.length) {
            return use.apply(pointers);
        }
        if (sets[i] == null) {
            return withAll(sets, i + 1, pointers, use);
        }
        return sets[i].handle.with(p -> {
            pointers[i] = p;
            return withAll(sets, i + 1, pointers, use);
        });
    }

    /** SCARD. */
    public int size() {
        return handle.with(p -> (int) KetamaNative.ketama_set_card(p));
    }

    /** SISMEMBER. */
    public boolean contains(byte[] member) {
        byte[] out = new byte[1];
        handle.with(p -> {
            KetamaNative.check(KetamaNative.ketama_set_contains(p, member, member.length, out));
            return null;
        });
        return out[0] != 0;
    }

    /** SISMEMBER of a string's UTF-8 bytes. */
    public boolean contains(String member) {
        return contains(member.getBytes(StandardCharsets.UTF_8));
    }

    /** SMEMBERS in bytewise order. */
    public List<byte[]> members() {
        return handle.with(p -> {
            int count = (int) KetamaNative.ketama_set_card(p);
            List<byte[]> members = new ArrayList<>(count);
            long[] data = new long[1];
            long[] len = new long[1];
            for (int i = 0; i < count; i++) {
                KetamaNative.check(KetamaNative.ketama_set_member(p, i, data, len));
                members.add(len[0] == 0 ? new byte[0] : new Pointer(data[0]).getByteArray(0, (int) len[0]));
            }
            return Collections.unmodifiableList(members);
        });
    }

    /** SMEMBERS decoded as UTF-8 strings. */
    public List<String> memberStrings() {
        List<String> strings = new ArrayList<>();
        for (byte[] m : members()) {
            strings.add(new String(m, StandardCharsets.UTF_8));
        }
        return strings;
    }

    /** The counters. */
    public Stats stats() {
        Memory s = new Memory(NativeStructs.KetamaSetStats.SIZE);
        handle.with(p -> {
            KetamaNative.check(KetamaNative.ketama_set_get_stats(p, s));
            return null;
        });
        return new Stats(NativeStructs.KetamaSetStats.getMembers(s), NativeStructs.KetamaSetStats.getRecords(s),
                NativeStructs.KetamaSetStats.getRemovals(s), NativeStructs.KetamaSetStats.getRedundant(s),
                NativeStructs.KetamaSetStats.getValueLen(s), SetEncoding.of(NativeStructs.KetamaSetStats.getEncoding(s)));
    }

    /** Whether {@code policy} asks to compact this set. */
    public boolean shouldCompact(Policy policy, boolean force) {
        byte[] out = new byte[1];
        handle.with(p -> {
            KetamaNative.check(KetamaNative.ketama_set_should_compact(p, policy(policy), (byte) (force ? 1 : 0), out));
            return null;
        });
        return out[0] != 0;
    }

    /** The canonical value in {@code encoding}: add records in bytewise order (empty for an empty set). */
    public byte[] compacted(SetEncoding encoding) {
        Memory out = buffer();
        handle.with(p -> {
            KetamaNative.check(KetamaNative.ketama_set_compacted(p, encoding.id(), out));
            return null;
        });
        return take(out);
    }

    /** Frees the native set. @throws IllegalStateException when already closed */
    @Override
    public void close() {
        handle.close();
    }

    private static Memory policy(Policy policy) {
        if (policy == null) {
            return null;
        }
        Memory m = new Memory(NativeStructs.KetamaSetPolicy.SIZE);
        m.clear();
        NativeStructs.KetamaSetPolicy.setThreshold(m, policy.threshold());
        NativeStructs.KetamaSetPolicy.setSoftLimit(m, policy.softLimit());
        NativeStructs.KetamaSetPolicy.setRatio(m, policy.ratio());
        return m;
    }

    /** Room for a {@code ketama_set_buffer} the library fills. */
    private static Memory buffer() {
        Memory out = new Memory(NativeStructs.KetamaSetBuffer.SIZE);
        out.clear();
        return out;
    }

    /** Copies the library-owned {@code ketama_set_buffer} at {@code out} and frees it. */
    private static byte[] take(Pointer out) {
        return take(NativeStructs.KetamaSetBuffer.getData(out), NativeStructs.KetamaSetBuffer.getLen(out));
    }

    /** Copies a library-owned buffer and frees it. */
    private static byte[] take(Pointer data, long len) {
        byte[] bytes = len == 0 ? new byte[0] : data.getByteArray(0, (int) len);
        KetamaNative.SetBuffer buffer = new KetamaNative.SetBuffer();
        buffer.data = data;
        buffer.len = len;
        KetamaNative.ketama_set_buffer_free(buffer);
        return bytes;
    }
}
