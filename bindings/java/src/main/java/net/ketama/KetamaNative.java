package net.ketama;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Pointer;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The C functions of libketama.so, bound with JNA direct mapping
 * ({@code Native.register}), which costs about a sixth of interface mapping
 * per call. Sizes assume LP64 ({@code size_t} is a Java {@code long}); the
 * structs are read and written through {@link NativeStructs}, generated with
 * include/ketama.h. {@code make generate} (crates/ketama-gen) checks every
 * declaration here against the header's prototype (its {@code java_accepts}
 * documents the type mapping).
 *
 * <p>The library is looked up in the system property {@code ketama.library}
 * or the environment variable {@code KETAMA_LIBRARY} (the file or its
 * directory), then as {@code ketama} on {@code jna.library.path} and the
 * system library path, then by its SONAME {@code libketama.so.1} (all that the
 * runtime package libketama1 installs; {@code libketama.so} comes with the
 * development package).
 */
final class KetamaNative {
    private KetamaNative() {}

    /** Why loading failed, or null when the functions are registered. */
    private static final String LOAD_ERROR;

    static {
        String error = null;
        List<String> tried = new ArrayList<>();
        NativeLibrary library = null;
        String configured = System.getProperty("ketama.library");
        String source = "system property ketama.library";
        if (configured == null || configured.isEmpty()) {
            configured = System.getenv("KETAMA_LIBRARY");
            source = "KETAMA_LIBRARY";
        }
        if (configured != null && !configured.isEmpty()) {
            File file = new File(configured);
            if (file.isDirectory()) {
                file = new File(file, "libketama.so");
            }
            try {
                library = NativeLibrary.getInstance(file.getAbsolutePath());
            } catch (UnsatisfiedLinkError e) {
                tried.add(source + ": " + file.getAbsolutePath() + ": " + e.getMessage());
            }
        } else {
            tried.add("system property ketama.library / KETAMA_LIBRARY: not set");
            try {
                library = NativeLibrary.getInstance("ketama");
            } catch (UnsatisfiedLinkError e) {
                tried.add("jna.library.path and system library path (libketama.so): " + e.getMessage());
            }
            if (library == null) {
                try {
                    library = NativeLibrary.getInstance("libketama.so.1");
                } catch (UnsatisfiedLinkError e) {
                    tried.add("system library path (libketama.so.1): " + e.getMessage());
                }
            }
        }
        if (library != null) {
            try {
                if (Native.SIZE_T_SIZE != 8 || Native.POINTER_SIZE != 8) {
                    throw new UnsatisfiedLinkError("this binding supports 64-bit JVMs only");
                }
                Native.register(KetamaNative.class, library);
            } catch (UnsatisfiedLinkError e) {
                tried.add(library.getFile() + ": not this libketama (" + e.getMessage() + ")");
                library = null;
            }
        }
        if (library == null) {
            error = "libketama.so not found or not usable; looked in:\n  " + String.join("\n  ", tried)
                    + "\nSet -Dketama.library=/path/to/libketama.so or KETAMA_LIBRARY, or install the libketama1 package.";
        }
        LOAD_ERROR = error;
    }

    /** Throws a KetamaException naming where the library was looked for, if it was not loaded. */
    static void ensureLoaded() {
        if (LOAD_ERROR != null) {
            throw new KetamaException(LOAD_ERROR);
        }
    }

    /** Throws the library's error for a non-zero status (call on the thread that got it). */
    static void check(int status) {
        if (status != 0) {
            throw new KetamaException(status, string(ketama_status_name(status)), string(ketama_error()));
        }
    }

    /** The library's last error message on this thread. */
    static String lastError() {
        return string(ketama_error());
    }

    static String string(Pointer p) {
        return p == null ? "" : p.getString(0, StandardCharsets.UTF_8.name());
    }

    // ---- ring API (see include/ketama.h) ----
    static native int ketama_ring_new(Pointer servers, long count, int flavour, int hash, long[] ringOut);

    static native int ketama_ring_new_from_file(String path, int flavour, int hash, int parseMode, long[] ringOut);

    static native int ketama_ring_new_with_options(Pointer servers, long count, int flavour, int hash, String options, long[] ringOut);

    static native int ketama_ring_new_from_file_with_options(String path, int flavour, int hash, int parseMode, String options, long[] ringOut);

    static native void ketama_ring_free(long ring);

    // ---- the process's ring cache (RingCache) ----
    static native int ketama_ring_cache_configure(long rings, long bytes);

    static native int ketama_ring_cache_get_stats(Pointer out);

    static native int ketama_ring_cache_get_sharing(Pointer out);

    /** {@code out} receives a {@code ketama_server_ref} ({@link NativeStructs.KetamaServerRef}). */
    static native int ketama_find_server(long ring, byte[] key, long keyLen, Pointer out);

    /**
     * The server index for {@code keyLen} bytes at native address {@code key}, or a
     * negated status. Primitive arguments only: JNA passes them without converting or
     * copying anything (a {@code byte[]} costs a copy in and out, a {@code long[]} too).
     */
    static native long ketama_find_server_index(long ring, long key, long keyLen);

    static native int ketama_find_server_avoiding(long ring, byte[] key, long keyLen, int[] down, long downCount, Pointer out);

    /** Replica list: the indices of {@code n} distinct servers for the key into {@code indices}. */
    static native int ketama_find_replicas(long ring, byte[] key, long keyLen, long n, int[] indices, long capacity, long[] count);

    /** Batch lookup: {@code count} keys back to back in {@code packed}; server indices into {@code out}. */
    static native int ketama_find_servers_packed(
            long ring, byte[] packed, long packedLen, int[] lengths, long count, int[] out);

    /** Multi-GET planner: {@code groupsOut[0]} receives a {@code ketama_key_groups *}. */
    static native int ketama_group_keys(
            long ring, byte[] packed, long packedLen, int[] lengths, long count, long[] groupsOut);

    static native long ketama_key_groups_count(long groups);

    /** {@code indicesOut[0]} receives a {@code const uint32_t *} owned by the plan. */
    static native int ketama_key_groups_get(
            long groups, long group, int[] serverOut, long[] indicesOut, long[] countOut);

    static native void ketama_key_groups_free(long groups);

    static native long ketama_ring_server_count(long ring);

    static native long ketama_ring_point_count(long ring);

    /** {@code out} receives a {@code ketama_server_info} ({@link NativeStructs.KetamaServerInfo}). */
    static native int ketama_ring_server(long ring, long index, Pointer out);

    static native int ketama_ring_point(long ring, long index, int[] point, int[] serverIndex);

    static native int ketama_hash_bytes(int hash, byte[] bytes, long len, int[] out);

    static native Pointer ketama_version();

    static native Pointer ketama_status_name(int status);

    // ---- names, resolved by the library (the binding keeps no table of them) ----
    static native int ketama_flavour_from_name(String name, int[] out);

    static native int ketama_hash_from_name(int flavour, String name, int[] out);

    static native int ketama_parse_mode_from_name(String name, int[] out);

    static native Pointer ketama_error();

    // ---- set codec ----
    /** {@code ketama_set_buffer} passed by value to {@code ketama_set_buffer_free}. */
    @com.sun.jna.Structure.FieldOrder({"data", "len"})
    public static final class SetBuffer extends com.sun.jna.Structure implements com.sun.jna.Structure.ByValue {
        public Pointer data;
        public long len;
    }

    static native int ketama_set_decode(byte[] value, long len, int encoding, long maxMemberLen, long[] setOut, Pointer errorOut);

    static native void ketama_set_free(long set);

    /** C {@code bool}: one byte, read as a Java byte (0 = false). */
    static native byte ketama_set_is_sealed(long set);

    static native int ketama_set_paired_key(byte[] base, long baseLen, int side, Pointer bufferOut);

    static native int ketama_set_encode_paired(Pointer members, long count, int encoding, long maxMemberLen, Pointer bufferOut);

    static native int ketama_set_decode_paired(
            byte[] adds, long addsLen, byte[] removes, long removesLen, long maxMemberLen, long[] setOut);

    static native void ketama_set_buffer_free(SetBuffer buffer);

    static native int ketama_set_get_stats(long set, Pointer out);

    static native long ketama_set_card(long set);

    static native int ketama_set_member(long set, long index, long[] dataOut, long[] lenOut);

    static native int ketama_set_contains(long set, byte[] member, long len, byte[] out);

    static native int ketama_set_encode(int op, int encoding, Pointer members, long count, long maxMemberLen, Pointer bufferOut);

    static native int ketama_set_should_compact(long set, Pointer policy, byte force, byte[] out);

    static native int ketama_set_policy_default(Pointer out);

    static native int ketama_set_compacted(long set, int encoding, Pointer bufferOut);

    static native int ketama_set_plan_read(byte[] value, long len, int encoding, long cas, long remainingTtl, byte ttlKnown,
            Pointer policy, byte force, long[] setOut, Pointer compactionOut);

    static native int ketama_set_union(long[] sets, long count, long[] out);

    static native int ketama_set_inter(long[] sets, long count, long[] out);

    static native int ketama_set_diff(long[] sets, long count, long[] out);

    static native int ketama_set_writer_new(int op, int maxRetries, long[] writerOut, int[] actionOut);

    static native int ketama_set_writer_step(long writer, int reply, int[] actionOut);

    static native void ketama_set_writer_free(long writer);

    // ---- migrations between two rings ----
    static native int ketama_migration_new(long oldRing, long newRing, int mode, long startMs, String options, long[] out);

    static native void ketama_migration_free(long migration);

    /** {@code out} receives a {@code ketama_migration_owners} ({@link MigrationStructs.KetamaMigrationOwners}). */
    static native int ketama_migration_route(long migration, byte[] key, long keyLen, Pointer out);

    static native int ketama_migration_phase_of(long migration, byte[] key, long keyLen, long nowMs, int[] phaseOut);

    static native int ketama_migration_begin(long migration, int op, byte[] key, long keyLen, long nowMs, long[] opOut);

    /** {@code out} receives a {@code ketama_migration_step} ({@link MigrationStructs.KetamaMigrationStep}). */
    static native int ketama_migration_op_step(long op, Pointer out);

    static native int ketama_migration_op_reply(long op, int reply, byte[] value, long valueLen, long cas, Pointer nextOut);

    static native void ketama_migration_op_free(long op);

    /** Any enum's name by its C type and id (NULL: no such id). */
    static native Pointer ketama_enum_name(String cType, int id);

    static native int ketama_enum_from_name(String cType, String name, int[] out);

    // ---- the original libketama API ----
    static native int ketama_hashi(String key);
}
