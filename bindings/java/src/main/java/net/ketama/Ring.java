package net.ketama;

import com.sun.jna.Memory;
import com.sun.jna.Pointer;
import java.lang.ref.Cleaner;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.StampedLock;

/**
 * An immutable consistent-hashing ring of libketama.so. Thread-safe.
 *
 * <p>Close it (try-with-resources) to release the native ring; a ring that
 * becomes unreachable unclosed is released by a {@link Cleaner}. Closing
 * twice or using a closed ring throws {@link IllegalStateException}, never
 * crashes the JVM: lookups hold a read lock that {@link #close()} waits for.
 */
public final class Ring implements AutoCloseable {
    private static final Cleaner CLEANER = Cleaner.create();

    /** The native handle, freed exactly once (by close() or the cleaner). */
    private static final class Handle implements Runnable {
        final long ring;

        Handle(long ring) {
            this.ring = ring;
        }

        @Override
        public void run() {
            KetamaNative.ketama_ring_free(ring);
        }
    }

    private final Handle handle;
    private final Cleaner.Cleanable cleanable;
    private final StampedLock lock = new StampedLock();
    private volatile boolean closed;
    private final String[] addresses;

    private Ring(long ring) {
        this.handle = new Handle(ring);
        this.cleanable = CLEANER.register(this, handle);
        List<ServerInfo> info = readServers();
        this.addresses = new String[info.size()];
        for (int i = 0; i < addresses.length; i++) {
            addresses[i] = info.get(i).address();
        }
    }

    /** Reads a server file ({@code ADDRESS<TAB>WEIGHT} lines) strictly, libketama flavour. */
    public static Ring fromFile(Path path) {
        return fromFile(path, Flavour.LIBKETAMA, Hash.DEFAULT, ParseMode.STRICT);
    }

    /**
     * Reads a server file.
     *
     * @param libketamaParser read it exactly like the original libketama ({@link ParseMode#LIBKETAMA})
     *     instead of the strict reader (which rejects every line the original would misread, naming it)
     * @throws KetamaException with the library's message on failure
     */
    public static Ring fromFile(Path path, Flavour flavour, Hash hash, boolean libketamaParser) {
        return fromFile(path, flavour, hash, libketamaParser ? ParseMode.LIBKETAMA : ParseMode.STRICT);
    }

    /**
     * Reads a server file the way {@code parseMode} says.
     *
     * @throws KetamaException with the library's message on failure
     */
    public static Ring fromFile(Path path, Flavour flavour, Hash hash, ParseMode parseMode) {
        KetamaNative.ensureLoaded();
        return fromFileIds(path, flavour.id(), hash.id(), parseMode.id());
    }

    /**
     * Reads a server file strictly, for a flavour and key hash given by name: the names the
     * CLI takes ({@code "twemproxy"}, {@code "php-memcached"}, ...; a hash as the flavour's
     * client spells it, so twemproxy's {@code "crc32"} is the 15-bit crc; {@code null} or
     * {@code "default"} for the flavour's own), resolved by the library.
     *
     * @throws KetamaException naming the known names when a name is unknown
     */
    public static Ring fromFile(Path path, String flavour, String hash) {
        return fromFile(path, flavour, hash, "strict");
    }

    /**
     * Reads a server file for a flavour, key hash and parse mode ({@code "strict"},
     * {@code "libketama"}, {@code "peers"}, ...) given by name, resolved by the library.
     *
     * @throws KetamaException naming the known names when a name is unknown
     */
    public static Ring fromFile(Path path, String flavour, String hash, String parseMode) {
        return fromFile(path, flavour, hash, parseMode, null);
    }

    /**
     * As {@link #fromFile(Path, String, String, String)}, with placement options as the library
     * reads them: {@code "points=100"}, {@code "hash_tag={}"} ({@code null}: the peer's defaults).
     *
     * @throws KetamaException naming the option when the flavour's peer has no such option
     */
    public static Ring fromFile(Path path, String flavour, String hash, String parseMode, String options) {
        KetamaNative.ensureLoaded();
        int flavourId = flavourId(flavour);
        int[] mode = new int[1];
        KetamaNative.check(KetamaNative.ketama_parse_mode_from_name(parseMode, mode));
        return fromFileIds(path, flavourId, hashId(flavourId, hash), mode[0], options);
    }

    private static Ring fromFileIds(Path path, int flavour, int hash, int parseMode) {
        return fromFileIds(path, flavour, hash, parseMode, null);
    }

    private static Ring fromFileIds(Path path, int flavour, int hash, int parseMode, String options) {
        long[] out = new long[1];
        KetamaNative.check(KetamaNative.ketama_ring_new_from_file_with_options(
                path.toString(), flavour, hash, parseMode, options, out));
        return new Ring(out[0]);
    }

    /**
     * The {@code ketama_flavour} id of a flavour name or alias, as the library resolves it
     * ({@code ketama_flavour_from_name}).
     *
     * @throws KetamaException naming the known flavours when the name is unknown
     */
    public static int flavourId(String flavour) {
        KetamaNative.ensureLoaded();
        int[] out = new int[1];
        KetamaNative.check(KetamaNative.ketama_flavour_from_name(flavour, out));
        return out[0];
    }

    /**
     * The {@code ketama_hash} id of a key hash as flavour {@code flavourId}'s client spells it
     * ({@code ketama_hash_from_name}); {@code null} is {@code "default"}, the flavour's own.
     *
     * @throws KetamaException naming the hashes the flavour offers when the name is not one
     */
    public static int hashId(int flavourId, String hash) {
        KetamaNative.ensureLoaded();
        int[] out = new int[1];
        KetamaNative.check(KetamaNative.ketama_hash_from_name(flavourId, hash == null ? "default" : hash, out));
        return out[0];
    }

    /** An unweighted ring of the given addresses, libketama flavour. */
    public static Ring fromAddresses(List<String> addresses) {
        List<Server> servers = new ArrayList<>();
        for (String a : addresses) {
            servers.add(new Server(a));
        }
        return fromServers(servers, Flavour.LIBKETAMA, Hash.DEFAULT);
    }

    /** A weighted ring (address to weight, in the map's iteration order). */
    public static Ring fromWeights(Map<String, Long> weights, Flavour flavour, Hash hash) {
        List<Server> servers = new ArrayList<>();
        weights.forEach((a, w) -> servers.add(new Server(a, w)));
        return fromServers(servers, flavour, hash);
    }

    /**
     * A ring of {@code servers} for {@code flavour} and {@code hash}.
     *
     * @throws KetamaException with the library's message when the list is rejected
     */
    public static Ring fromServers(List<Server> servers, Flavour flavour, Hash hash) {
        KetamaNative.ensureLoaded();
        return fromServerIds(servers, flavour.id(), hash.id());
    }

    /**
     * A ring of {@code servers} for a flavour and key hash given by name, resolved by the
     * library as in {@link #fromFile(Path, String, String)}.
     *
     * @throws KetamaException with the library's message when a name or the list is rejected
     */
    public static Ring fromServers(List<Server> servers, String flavour, String hash) {
        return fromServers(servers, flavour, hash, null);
    }

    /**
     * As {@link #fromServers(List, String, String)}, with placement options as the library
     * reads them ({@code "points=100"}, {@code "hash_tag={}"}; {@code null}: the peer's defaults).
     *
     * @throws KetamaException with the library's message when a name, an option or the list is rejected
     */
    public static Ring fromServers(List<Server> servers, String flavour, String hash, String options) {
        int flavourId = flavourId(flavour);
        return fromServerIds(servers, flavourId, hashId(flavourId, hash), options);
    }

    /** A weighted ring (address to weight, in the map's iteration order), flavour and hash by name. */
    public static Ring fromWeights(Map<String, Long> weights, String flavour, String hash) {
        List<Server> servers = new ArrayList<>();
        weights.forEach((a, w) -> servers.add(new Server(a, w)));
        return fromServers(servers, flavour, hash);
    }

    private static Ring fromServerIds(List<Server> servers, int flavour, int hash) {
        return fromServerIds(servers, flavour, hash, null);
    }

    private static Ring fromServerIds(List<Server> servers, int flavour, int hash, String options) {
        List<Memory> keep = new ArrayList<>();
        Memory list = NativeServerList.of(servers, keep);
        long[] out = new long[1];
        KetamaNative.check(KetamaNative.ketama_ring_new_with_options(list, servers.size(), flavour, hash, options, out));
        return new Ring(out[0]);
    }

    /** The server for a key (any bytes). @throws KetamaException when the ring has no points */
    public Location find(byte[] key) {
        Memory out = Scratch.LOCAL.get().ref;
        long stamp = readLock();
        try {
            KetamaNative.check(KetamaNative.ketama_find_server(handle.ring, key, key.length, out));
        } finally {
            lock.unlockRead(stamp);
        }
        return location(out);
    }

    /** The server for a key given as a string (its UTF-8 bytes). */
    public Location find(String key) {
        return find(key.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The index (input order) of the server for a key: the hot path, one native call
     * ({@code ketama_find_server_index}) with primitive arguments only. The key is
     * copied into this thread's native scratch buffer and passed by address, which
     * costs less than JNA's copying of a {@code byte[]} argument; nothing is allocated
     * per call (keys longer than the scratch buffer go through a temporary one).
     *
     * @throws KetamaException when the ring has no points
     * @throws IllegalStateException when the ring is closed
     */
    public int serverIndex(byte[] key) {
        int length = key.length;
        if (length > Scratch.CAPACITY) {
            try (Memory copy = new Memory(length)) {
                copy.write(0, key, 0, length);
                return serverIndexAt(Pointer.nativeValue(copy), length);
            }
        }
        Scratch scratch = Scratch.LOCAL.get();
        scratch.buffer.put(0, key, 0, length);
        return serverIndexAt(scratch.address, length);
    }

    /** {@code ketama_find_server_index} for {@code length} bytes at native {@code address}. */
    private int serverIndexAt(long address, int length) {
        long index;
        long stamp = readLock();
        try {
            index = KetamaNative.ketama_find_server_index(handle.ring, address, length);
        } finally {
            lock.unlockRead(stamp);
        }
        if (index < 0) {
            KetamaNative.check((int) -index);
        }
        return (int) index;
    }

    /** A native buffer per thread for single-key lookups (keys up to {@link #CAPACITY} bytes). */
    private static final class Scratch {
        /** memcached keys are at most 250 bytes; longer keys use a temporary buffer. */
        static final int CAPACITY = 1024;
        static final ThreadLocal<Scratch> LOCAL = ThreadLocal.withInitial(Scratch::new);

        final ByteBuffer buffer = ByteBuffer.allocateDirect(CAPACITY);
        final long address = Pointer.nativeValue(com.sun.jna.Native.getDirectBufferPointer(buffer));
        /** The {@code ketama_server_ref} that {@link #find} and {@link #findAvoiding} read. */
        final Memory ref = new Memory(NativeStructs.KetamaServerRef.SIZE);
    }

    /** {@code n} (0 or more) distinct server indices for a key, its own first, by the flavour's replica rule. */
    public int[] replicas(byte[] key, int n) {
        int[] out = new int[Math.min(n, addresses.length)]; // a negative n: NegativeArraySizeException
        long stamp = readLock();
        try {
            KetamaNative.check(KetamaNative.ketama_find_replicas(handle.ring, key, key.length, n, out, out.length, new long[1]));
        } finally {
            lock.unlockRead(stamp);
        }
        return out;
    }

    /** The address of the server for a key (UTF-8 bytes of the string). */
    public String server(String key) {
        return addresses[serverIndex(key.getBytes(StandardCharsets.UTF_8))];
    }

    /**
     * Batch lookup: the server index of each key, in order, in one native call
     * ({@code ketama_find_servers_packed}, MD5 computed several keys at a time).
     * Same answers as {@link #serverIndex(byte[])} key by key.
     *
     * @throws KetamaException when the ring has no points
     */
    public int[] serverIndices(byte[][] keys) {
        int total = 0;
        int[] lengths = new int[keys.length];
        for (int i = 0; i < keys.length; i++) {
            lengths[i] = keys[i].length;
            total = Math.addExact(total, lengths[i]);
        }
        byte[] packed = new byte[total];
        int offset = 0;
        for (byte[] key : keys) {
            System.arraycopy(key, 0, packed, offset, key.length);
            offset += key.length;
        }
        return serverIndices(packed, lengths);
    }

    /** Batch lookup of string keys (their UTF-8 bytes): the server index of each, in order. */
    public int[] serverIndices(List<String> keys) {
        byte[][] bytes = new byte[keys.size()][];
        int i = 0;
        for (String key : keys) {
            bytes[i++] = key.getBytes(StandardCharsets.UTF_8);
        }
        return serverIndices(bytes);
    }

    /**
     * Batch lookup over keys stored back to back in {@code packed}, key {@code i}
     * being {@code lengths[i]} bytes long: the server index of each, in order.
     *
     * @throws KetamaException with the library's message when the lengths run past
     *     the end of {@code packed} or the ring has no points
     */
    public int[] serverIndices(byte[] packed, int[] lengths) {
        int[] out = new int[lengths.length];
        long stamp = readLock();
        try {
            KetamaNative.check(KetamaNative.ketama_find_servers_packed(
                    handle.ring, packed, packed.length, lengths, lengths.length, out));
        } finally {
            lock.unlockRead(stamp);
        }
        return out;
    }

    /**
     * The multi-GET planner ({@code ketama_group_keys}): the keys grouped by the
     * server that holds them, for one multi-get per server. The map iterates
     * servers in ring order (address to its keys in input order); servers
     * holding none of the keys are left out.
     *
     * @throws KetamaException when the ring has no points
     */
    public Map<String, List<String>> groupKeys(List<String> keys) {
        byte[][] bytes = new byte[keys.size()][];
        int total = 0;
        int[] lengths = new int[bytes.length];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = keys.get(i).getBytes(StandardCharsets.UTF_8);
            lengths[i] = bytes[i].length;
            total = Math.addExact(total, lengths[i]);
        }
        byte[] packed = new byte[total];
        int offset = 0;
        for (byte[] key : bytes) {
            System.arraycopy(key, 0, packed, offset, key.length);
            offset += key.length;
        }
        long[] groupsOut = new long[1];
        long stamp = readLock();
        try {
            KetamaNative.check(KetamaNative.ketama_group_keys(
                    handle.ring, packed, packed.length, lengths, lengths.length, groupsOut));
        } finally {
            lock.unlockRead(stamp);
        }
        long groups = groupsOut[0];
        try {
            Map<String, List<String>> plan = new java.util.LinkedHashMap<>();
            long count = KetamaNative.ketama_key_groups_count(groups);
            int[] server = new int[1];
            long[] indices = new long[1];
            long[] n = new long[1];
            for (long g = 0; g < count; g++) {
                KetamaNative.check(KetamaNative.ketama_key_groups_get(groups, g, server, indices, n));
                int[] keyIndices = n[0] == 0 ? new int[0] : new Pointer(indices[0]).getIntArray(0, (int) n[0]);
                List<String> group = new ArrayList<>(keyIndices.length);
                for (int index : keyIndices) {
                    group.add(keys.get(index));
                }
                plan.put(addresses[server[0]], group);
            }
            return plan;
        } finally {
            KetamaNative.ketama_key_groups_free(groups);
        }
    }

    /** Batch lookup of string keys (UTF-8): the address of each key's server, in order. */
    public List<String> serversFor(List<String> keys) {
        int[] indices = serverIndices(keys);
        List<String> servers = new ArrayList<>(indices.length);
        for (int index : indices) {
            servers.add(addresses[index]);
        }
        return servers;
    }

    /**
     * Failover lookup: the server for {@code key} skipping the servers whose indices are
     * in {@code down}, by walking on along the continuum.
     *
     * @throws KetamaException when every server is down or an index is out of range
     */
    public Location findAvoiding(byte[] key, int... down) {
        Memory out = Scratch.LOCAL.get().ref;
        long stamp = readLock();
        try {
            KetamaNative.check(KetamaNative.ketama_find_server_avoiding(
                    handle.ring, key, key.length, down, down.length, out));
        } finally {
            lock.unlockRead(stamp);
        }
        return location(out);
    }

    /** Number of servers. */
    public int serverCount() {
        return addresses.length;
    }

    /** Number of points on the continuum. */
    public long pointCount() {
        long stamp = readLock();
        try {
            return KetamaNative.ketama_ring_point_count(handle.ring);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** The servers in input order. */
    public List<ServerInfo> servers() {
        long stamp = readLock();
        try {
            return readServers();
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Point {@code index} of the continuum (in order): {@code {point (unsigned), server index}}. */
    public long[] point(long index) {
        int[] point = new int[1];
        int[] server = new int[1];
        long stamp = readLock();
        try {
            KetamaNative.check(KetamaNative.ketama_ring_point(handle.ring, index, point, server));
        } finally {
            lock.unlockRead(stamp);
        }
        return new long[] {Integer.toUnsignedLong(point[0]), server[0]};
    }

    /** The address of server {@code index}. */
    public String address(int index) {
        return addresses[index];
    }

    /**
     * Releases the native ring, waiting for lookups in progress.
     *
     * @throws IllegalStateException when already closed
     */
    @Override
    public void close() {
        long stamp = lock.writeLock();
        try {
            if (closed) {
                throw new IllegalStateException("ketama ring already closed");
            }
            closed = true;
            cleanable.clean();
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    /** Whether {@link #close()} was called. */
    public boolean isClosed() {
        return closed;
    }

    /** Runs {@code use} with the live native ring (for {@link Migration}). @throws IllegalStateException once closed */
    <T> T withNative(java.util.function.LongFunction<T> use) {
        long stamp = readLock();
        try {
            return use.apply(handle.ring);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    private long readLock() {
        long stamp = lock.readLock();
        if (closed) {
            lock.unlockRead(stamp);
            throw new IllegalStateException("ketama ring is closed");
        }
        return stamp;
    }

    private List<ServerInfo> readServers() {
        int count = (int) KetamaNative.ketama_ring_server_count(handle.ring);
        List<ServerInfo> servers = new ArrayList<>(count);
        Memory info = new Memory(NativeStructs.KetamaServerInfo.SIZE);
        for (int i = 0; i < count; i++) {
            KetamaNative.check(KetamaNative.ketama_ring_server(handle.ring, i, info));
            Pointer address = NativeStructs.KetamaServerInfo.getAddress(info);
            Pointer name = NativeStructs.KetamaServerInfo.getName(info);
            servers.add(new ServerInfo(
                    new String(address.getByteArray(0, (int) NativeStructs.KetamaServerInfo.getAddressLen(info)),
                            StandardCharsets.UTF_8),
                    name == null ? null : new String(name.getByteArray(0,
                            (int) NativeStructs.KetamaServerInfo.getNameLen(info)), StandardCharsets.UTF_8),
                    NativeStructs.KetamaServerInfo.getWeight(info),
                    NativeStructs.KetamaServerInfo.getPointCount(info)));
        }
        return Collections.unmodifiableList(servers);
    }

    /** Decodes a {@code ketama_server_ref}. */
    private Location location(Pointer ref) {
        int serverIndex = NativeStructs.KetamaServerRef.getServerIndex(ref);
        long point = Integer.toUnsignedLong(NativeStructs.KetamaServerRef.getPoint(ref));
        return new Location(serverIndex, addresses[serverIndex], point, NativeStructs.KetamaServerRef.getPointIndex(ref));
    }

    /** The library version, e.g. "1.0.0". */
    public static String libraryVersion() {
        KetamaNative.ensureLoaded();
        return KetamaNative.string(KetamaNative.ketama_version());
    }

    /**
     * The 32-bit key hash {@code hash} of {@code bytes} as the rings use it
     * ({@code ketama_hash_bytes}), unsigned. @throws KetamaException for {@code Hash.DEFAULT}
     */
    public static long hash(Hash hash, byte[] bytes) {
        KetamaNative.ensureLoaded();
        int[] out = new int[1];
        KetamaNative.check(KetamaNative.ketama_hash_bytes(hash.id(), bytes, bytes.length, out));
        return Integer.toUnsignedLong(out[0]);
    }

    /** libketama's {@code ketama_hashi}: word 0 of MD5 of the key's bytes, unsigned. */
    public static long hashi(String key) {
        KetamaNative.ensureLoaded();
        return Integer.toUnsignedLong(KetamaNative.ketama_hashi(key));
    }
}
