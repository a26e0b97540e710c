package net.ketama;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/** The Ring API over libketama.so. Run by tests/bindings/java.rs. */
public class RingTest {
    private static Path dir;
    private static Path pinned;

    @BeforeClass
    public static void files() throws IOException {
        dir = Files.createTempDirectory("ketama-java-test");
        pinned = dir.resolve("servers");
        Files.writeString(pinned, "127.0.0.1:11211\t600\n127.0.0.1:11212\t400\n");
    }

    @AfterClass
    public static void cleanup() throws IOException {
        try (var files = Files.list(dir)) {
            for (Path p : (Iterable<Path>) files::iterator) {
                Files.delete(p);
            }
        }
        Files.delete(dir);
    }

    /** The python_ketama vectors of the original: 320 points, "test" -> (3454255383, 127.0.0.1:11211). */
    @Test
    public void pinnedVectorsOfTheOriginal() {
        try (Ring ring = Ring.fromFile(pinned)) {
            assertEquals(2, ring.serverCount());
            assertEquals(320, ring.pointCount());
            Location at = ring.find("test");
            assertEquals(3454255383L, at.point());
            assertEquals("127.0.0.1:11211", at.address());
            assertEquals(0, at.serverIndex());
            assertEquals("127.0.0.1:11211", ring.server("test"));
            assertEquals(3446378249L, Ring.hashi("test"));
            assertArrayEquals(new long[] {3454255383L, 0}, ring.point(at.pointIndex()));
            List<ServerInfo> servers = ring.servers();
            assertEquals(new ServerInfo("127.0.0.1:11211", null, 600, 192), servers.get(0));
            assertEquals(new ServerInfo("127.0.0.1:11212", null, 400, 128), servers.get(1));
        }
    }

    @Test
    public void continuumIsSorted() {
        try (Ring ring = Ring.fromFile(pinned)) {
            long previous = -1;
            for (long i = 0; i < ring.pointCount(); i++) {
                long point = ring.point(i)[0];
                assertTrue(point >= previous);
                previous = point;
            }
        }
    }

    @Test
    public void listAndFileAgree() {
        Map<String, Long> weights = new LinkedHashMap<>();
        weights.put("127.0.0.1:11211", 600L);
        weights.put("127.0.0.1:11212", 400L);
        try (Ring file = Ring.fromFile(pinned); Ring map = Ring.fromWeights(weights, Flavour.LIBKETAMA, Hash.MD5)) {
            for (int i = 0; i < 5000; i++) {
                String key = "key:" + i;
                assertEquals(file.find(key), map.find(key));
            }
        }
        try (Ring plain = Ring.fromAddresses(List.of("10.0.0.1:11211", "10.0.0.2:11211", "10.0.0.3:11211"))) {
            assertEquals(480, plain.pointCount());
        }
    }

    @Test
    public void binaryKeys() {
        try (Ring ring = Ring.fromFile(pinned)) {
            byte[] withNul = {'a', 0, 'b'};
            assertNotEquals(ring.find(withNul).point(), ring.find("a").point());
            assertEquals(ring.find("é"), ring.find("é".getBytes(StandardCharsets.UTF_8)));
            ring.find(new byte[0]);
            ring.find(new byte[100_000]);
        }
    }

    @Test
    public void failover() {
        try (Ring ring = Ring.fromFile(pinned)) {
            byte[] key = "test".getBytes(StandardCharsets.UTF_8);
            assertEquals(1, ring.findAvoiding(key, 0).serverIndex());
            assertEquals(ring.find(key), ring.findAvoiding(key));
            KetamaException all = assertThrows(KetamaException.class, () -> ring.findAvoiding(key, 0, 1));
            assertEquals("KETAMA_ERR_NO_SERVER_AVAILABLE", all.statusName());
            assertEquals(7, all.status());
            KetamaException range = assertThrows(KetamaException.class, () -> ring.findAvoiding(key, 9));
            assertEquals("KETAMA_ERR_INVALID_ARGUMENT", range.statusName());
            assertTrue(range.getMessage(), range.getMessage().contains("9"));
        }
    }

    @Test
    public void errorsCarryTheLibraryMessage() throws IOException {
        KetamaException device = assertThrows(KetamaException.class, () -> Ring.fromFile(Path.of("/dev/zero")));
        assertEquals("KETAMA_ERR_PARSE", device.statusName());
        assertTrue(device.getMessage(), device.getMessage().contains("(line 1 in /dev/zero)"));
        KetamaException missing = assertThrows(KetamaException.class, () -> Ring.fromFile(dir.resolve("missing")));
        assertEquals("KETAMA_ERR_IO", missing.statusName());
        assertTrue(missing.getMessage(), missing.getMessage().contains(dir.resolve("missing").toString()));

        Path bad = dir.resolve("bad");
        Files.writeString(bad, "127.0.0.1:11211\t600\n127.0.0.1:11212\tlots\n");
        KetamaException parse = assertThrows(KetamaException.class, () -> Ring.fromFile(bad));
        assertEquals("KETAMA_ERR_PARSE", parse.statusName());
        assertTrue(parse.getMessage(), parse.getMessage().contains("line 2"));
        assertEquals(parse.getMessage(), KetamaNative.lastError());

        assertEquals("KETAMA_ERR_NO_SERVERS",
                assertThrows(KetamaException.class, () -> Ring.fromAddresses(List.of())).statusName());
        assertEquals("KETAMA_ERR_INVALID_ARGUMENT",
                assertThrows(KetamaException.class, () -> Ring.fromAddresses(List.of(""))).statusName());
        assertThrows(KetamaException.class, () -> Ring.fromServers(List.of(new Server("a:1", -1)), Flavour.LIBKETAMA, Hash.DEFAULT));
    }

    /** serverIndex (scratch buffer, or a temporary one past 1024 bytes) agrees with find. */
    @Test
    public void serverIndexAgreesWithFind() {
        try (Ring ring = Ring.fromFile(pinned)) {
            byte[] nul = {'a', 0, 'b'};
            byte[] high = {(byte) 0xff, (byte) 0xfe};
            byte[] edge = new byte[1024];
            byte[] longer = new byte[1025];
            byte[] huge = new byte[5000];
            java.util.Arrays.fill(edge, (byte) 'e');
            java.util.Arrays.fill(longer, (byte) 'l');
            java.util.Arrays.fill(huge, (byte) 'x');
            for (byte[] key : new byte[][] {new byte[0], nul, high, "test".getBytes(StandardCharsets.UTF_8), edge, longer, huge}) {
                assertEquals("key of " + key.length + " bytes", ring.find(key).serverIndex(), ring.serverIndex(key));
            }
            for (int i = 0; i < 2000; i++) {
                String key = "key:" + i;
                assertEquals(key, ring.find(key).address(), ring.server(key));
            }
        }
    }

    @Test
    public void closingTwiceAndUseAfterCloseThrow() {
        Ring ring = Ring.fromFile(pinned);
        ring.close();
        assertTrue(ring.isClosed());
        assertEquals("ketama ring already closed", assertThrows(IllegalStateException.class, ring::close).getMessage());
        assertThrows(IllegalStateException.class, () -> ring.find("test"));
        assertThrows(IllegalStateException.class, () -> ring.server("test"));
        assertThrows(IllegalStateException.class, () -> ring.serverIndex(new byte[1]));
        assertThrows(IllegalStateException.class, () -> ring.serverIndex(new byte[5000]));
        assertThrows(IllegalStateException.class, ring::pointCount);
        assertThrows(IllegalStateException.class, () -> ring.findAvoiding(new byte[1], 0));
        assertThrows(IllegalStateException.class, () -> ring.point(0));
    }

    /** Lookups racing with close() either succeed or throw IllegalStateException; the JVM survives. */
    @Test
    public void closeRacingWithLookups() throws InterruptedException {
        for (int round = 0; round < 20; round++) {
            Ring ring = Ring.fromFile(pinned);
            AtomicInteger ok = new AtomicInteger();
            AtomicReference<Throwable> unexpected = new AtomicReference<>();
            List<Thread> threads = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Thread thread = new Thread(() -> {
                    try {
                        for (int i = 0; ; i++) {
                            ring.server("k" + i);
                            ok.incrementAndGet();
                        }
                    } catch (IllegalStateException expected) {
                        // closed
                    } catch (Throwable e) {
                        unexpected.set(e);
                    }
                });
                thread.start();
                threads.add(thread);
            }
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (ok.get() < 1000 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            ring.close();
            for (Thread thread : threads) {
                thread.join(10_000);
                assertTrue(!thread.isAlive());
            }
            assertEquals(null, unexpected.get());
            assertTrue(ok.get() > 0);
        }
    }

    /** glibc's {@code struct mallinfo2}: bytes in use = uordblks + hblkhd. */
    @com.sun.jna.Structure.FieldOrder({"arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost"})
    public static class MallInfo extends com.sun.jna.Structure implements com.sun.jna.Structure.ByValue {
        public long arena, ordblks, smblks, hblks, hblkhd, usmblks, fsmblks, uordblks, fordblks, keepcost;
    }

    /** Bytes malloc'ed by the process (the Rust library allocates with malloc). */
    private static long mallocInUse() {
        MallInfo info = (MallInfo) com.sun.jna.Function.getFunction("c", "mallinfo2").invoke(MallInfo.class, new Object[0]);
        return info.uordblks + info.hblkhd;
    }

    /** 1000 closed rings of 10 servers leave no native memory behind (a leak would be ~24 MB). */
    @Test
    public void noNativeLeak() throws Exception {
        List<String> servers = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            servers.add("10.0.0." + i + ":11211");
        }
        Ring.fromAddresses(servers).close();
        // Each ring of its own list: the library's ring cache hands out the ring already
        // built from an equal list, so the same list 1000 times would build one ring.
        // The size of one ring, from 1000 held at once (one alone, or a few hundred, are
        // within the noise of the JVM's own malloc and free when other JVMs load the machine).
        List<Ring> held = new ArrayList<>();
        System.gc(); // JNA's cleaner frees earlier tests' Memory now, not while the rings are counted
        Thread.sleep(50);
        long start = mallocInUse();
        for (int i = 0; i < 1000; i++) {
            held.add(Ring.fromAddresses(distinct(servers, i)));
        }
        long oneRing = (mallocInUse() - start) / 1000;
        for (Ring ring : held) {
            ring.close();
        }
        assertTrue("a ring allocates " + oneRing + " bytes", oneRing > 10_000);
        // The JIT and JNA's cleaner malloc and free on their own schedule (several MB either
        // way): sum three rounds after a warm-up. A leak would add 3000 rings (about 72 MB).
        long grown = 0;
        for (int round = 0; round < 4; round++) {
            System.gc(); // JNA's own Memory blocks are freed by its cleaner
            Thread.sleep(50);
            long before = mallocInUse();
            for (int i = 0; i < 1000; i++) {
                try (Ring ring = Ring.fromAddresses(distinct(servers, i))) {
                    ring.server("x");
                }
            }
            System.gc();
            Thread.sleep(50);
            long growth = mallocInUse() - before;
            System.err.println("noNativeLeak round " + round + ": malloc'ed bytes grew by " + growth);
            if (round > 0) {
                grown += growth;
            }
        }
        assertTrue("malloc'ed bytes grew by " + grown + " over 3000 closed rings of " + oneRing + " bytes",
                grown < 1000L * oneRing);
    }

    /** `servers` with one more server, its own for each `i`: a list no other `i` gives. */
    private static List<String> distinct(List<String> servers, int i) {
        List<String> list = new ArrayList<>(servers);
        list.add("10.9." + (i / 250) + "." + (i % 250) + ":11211");
        return list;
    }

    @Test
    public void keyHashes() {
        byte[] test = "test".getBytes(StandardCharsets.UTF_8);
        assertEquals(3446378249L, Ring.hash(Hash.MD5, test));
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(test);
        assertEquals(crc.getValue(), Ring.hash(Hash.CRC32, test));
        assertEquals("test".hashCode(), (int) Ring.hash(Hash.SPY_NATIVE, test));
        assertThrows(KetamaException.class, () -> Ring.hash(Hash.DEFAULT, test));
    }

    @Test
    public void enumsNameTheCConstants() {
        assertEquals("KETAMA_FLAVOUR_LIBKETAMA", Flavour.LIBKETAMA.cName());
        assertEquals("KETAMA_HASH_MD5", Hash.MD5.cName());
        assertTrue(Ring.libraryVersion().matches("\\d+\\.\\d+\\.\\d+.*"));
    }

    /** Flavour, hash and parse-mode names are the library's: aliases, the client's spellings, its errors. */
    @Test
    public void namesAreResolvedByTheLibrary() {
        assertEquals(Flavour.LIBMEMCACHED.id(), Ring.flavourId("php-memcached"));
        assertEquals(Flavour.TWEMPROXY.id(), Ring.flavourId("TWEMPROXY"));
        assertEquals(Hash.CRC.id(), Ring.hashId(Flavour.TWEMPROXY.id(), "crc32"));
        assertEquals(Hash.CRC32.id(), Ring.hashId(Flavour.TWEMPROXY.id(), "crc32a"));
        assertEquals(Hash.CRC32.id(), Ring.hashId(Flavour.PECL_MEMCACHE.id(), "crc32"));
        assertEquals(Hash.DEFAULT.id(), Ring.hashId(Flavour.DALLI.id(), null));
        Map<String, Long> weights = new LinkedHashMap<>();
        for (int i = 0; i < 8; i++) {
            weights.put("10.0.0." + i + ":11211", 1L + i % 3);
        }
        int differ = 0;
        try (Ring byName = Ring.fromWeights(weights, "twemproxy", "crc32");
                Ring byEnum = Ring.fromWeights(weights, Flavour.TWEMPROXY, Hash.CRC);
                Ring full = Ring.fromWeights(weights, Flavour.TWEMPROXY, Hash.CRC32)) {
            for (int i = 0; i < 1000; i++) {
                String key = "key:" + i;
                assertEquals(key, byEnum.server(key), byName.server(key));
                differ += byName.server(key).equals(full.server(key)) ? 0 : 1;
            }
        }
        assertTrue("crc32 and crc32a place " + differ + " of 1000 keys apart", differ > 100);
        KetamaException flavour = assertThrows(KetamaException.class, () -> Ring.fromWeights(weights, "no-such-client", null));
        assertEquals("KETAMA_ERR_INVALID_ARGUMENT", flavour.statusName());
        assertTrue(flavour.getMessage(), flavour.getMessage().contains("twemproxy"));
        KetamaException hash = assertThrows(KetamaException.class, () -> Ring.fromWeights(weights, "dalli", "murmur3"));
        assertEquals("KETAMA_ERR_INVALID_ARGUMENT", hash.statusName());
        try (Ring strict = Ring.fromFile(pinned, "libketama", null);
                Ring original = Ring.fromFile(pinned, "libketama", "default", "libketama")) {
            assertEquals(strict.server("test"), original.server("test"));
            assertEquals(320, original.pointCount());
        }
        assertThrows(KetamaException.class, () -> Ring.fromFile(pinned, "libketama", null, "loose"));
    }

    /** Perl Cache::Memcached's placement: ((crc32 >> 16) & 0x7fff) modulo the weighted bucket list. */
    @Test
    public void cacheMemcachedFlavourTakesTheHashModuloTheBuckets() {
        Map<String, Long> weights = new LinkedHashMap<>();
        weights.put("10.0.0.1:11211", 2L);
        weights.put("10.0.0.2:11211", 1L);
        weights.put("10.0.0.3:11211", 4L);
        List<String> buckets = new ArrayList<>();
        weights.forEach((address, weight) -> {
            for (long i = 0; i < weight; i++) {
                buckets.add(address);
            }
        });
        try (Ring ring = Ring.fromWeights(weights, Flavour.CACHE_MEMCACHED, Hash.DEFAULT)) {
            for (int i = 0; i < 2000; i++) {
                String key = "key:" + i;
                java.util.zip.CRC32 crc = new java.util.zip.CRC32();
                crc.update(key.getBytes(StandardCharsets.UTF_8));
                long hash = (crc.getValue() >> 16) & 0x7fff;
                assertEquals(key, buckets.get((int) (hash % buckets.size())), ring.server(key));
            }
        }
    }

    /** Writes {@code text} in place, modified an hour ago, and waits past the 100 ms its ctime takes to settle. */
    private static void writeSettled(Path path, String text) throws Exception {
        Files.writeString(path, text);
        Files.setLastModifiedTime(path, java.nio.file.attribute.FileTime.fromMillis(System.currentTimeMillis() - 3_600_000));
        Thread.sleep(200);
    }

    /** The ring cache of libketama.so: a second construction is the ring already built, an edit is read once settled. */
    @Test
    public void aSecondConstructionIsTheRingAlreadyBuilt() throws Exception {
        Path path = dir.resolve("cached");
        writeSettled(path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n");
        RingCache.Stats before = RingCache.stats();
        try (Ring first = Ring.fromFile(path); Ring second = Ring.fromFile(path)) {
            RingCache.Stats after = RingCache.stats();
            assertEquals(1, after.misses() - before.misses());
            assertEquals(1, after.hits() - before.hits());
            assertEquals(1, after.rolled() - before.rolled());
            assertEquals(0, after.attached() - before.attached());
            assertTrue(after.rings() >= 1 && after.bytes() > 0);
            assertEquals(first.server("user:1"), second.server("user:1"));
            writeSettled(path, "10.0.0.1:11211\t100\n10.0.0.2:11211\t100\n10.0.0.3:11211\t100\n");
            before = RingCache.stats();
            try (Ring edited = Ring.fromFile(path)) {
                assertEquals(3, edited.serverCount());
                assertEquals(2, first.serverCount());
                assertEquals(1, RingCache.stats().misses() - before.misses());
            }
        }
        RingCache.Stats bounds = RingCache.stats();
        try {
            RingCache.configure(0, 0);
            RingCache.Stats none = RingCache.stats();
            assertEquals(List.of(0L, 0L, 0L, 0L), List.of(none.rings(), none.bytes(), none.maxRings(), none.maxBytes()));
            try (Ring a = Ring.fromFile(path); Ring b = Ring.fromFile(path)) {
                assertEquals(2, RingCache.stats().misses() - none.misses());
                assertEquals(a.server("k"), b.server("k"));
            }
            assertThrows(IllegalArgumentException.class, () -> RingCache.configure(-1, 0));
        } finally {
            RingCache.configure(bounds.maxRings(), bounds.maxBytes());
        }
        assertEquals(bounds.maxRings(), RingCache.stats().maxRings());
    }
}
