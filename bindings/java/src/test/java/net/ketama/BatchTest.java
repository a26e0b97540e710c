package net.ketama;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.Test;

/**
 * The batch lookups ({@code Ring.serverIndices}, {@code Ring.serversFor}: one
 * {@code ketama_find_servers_packed} call per batch) answer like the single-key
 * lookups. Run by tests/bindings/java.rs.
 */
public class BatchTest {
    private static final int KEYS = 12_000;

    /**
     * Deterministic string keys: the empty key, typical ASCII keys, long keys (up to
     * 10,000 characters) and non-ASCII keys (Cyrillic, CJK, an emoji, a NUL).
     */
    private static List<String> stringKeys() {
        Random random = new Random(20261122);
        List<String> keys = new ArrayList<>(List.of(""));
        for (int i = 1; i < KEYS; i++) {
            switch (i % 5) {
                case 0 -> keys.add("user:" + i);
                case 1 -> keys.add(String.valueOf((char) ('a' + i % 26)).repeat(1 + random.nextInt(3) * random.nextInt(5001)));
                case 2 -> keys.add("ключ:" + i + ":键:\uD83D\uDE00");
                case 3 -> keys.add("é" + i + "\0tail");
                default -> keys.add(Long.toString(random.nextLong()));
            }
        }
        return keys;
    }

    /** Random binary keys of 0 to 300 bytes (NUL and high bytes, not valid UTF-8). */
    private static byte[][] binaryKeys() {
        Random random = new Random(7);
        byte[][] keys = new byte[KEYS][];
        for (int i = 0; i < KEYS; i++) {
            keys[i] = new byte[i == 0 ? 0 : random.nextInt(301)];
            random.nextBytes(keys[i]);
        }
        return keys;
    }

    private static Ring ring(Flavour flavour) {
        Map<String, Long> weights = new LinkedHashMap<>();
        for (int i = 0; i < 150; i++) {
            weights.put("10.0." + i + ".1:11211", 1L + i % 7);
        }
        return Ring.fromWeights(weights, flavour, Hash.DEFAULT);
    }

    @Test
    public void stringBatchesEqualSingleLookups() {
        List<String> keys = stringKeys();
        assertTrue(keys.stream().mapToInt(String::length).max().getAsInt() > 5000);
        for (Flavour flavour : List.of(Flavour.LIBKETAMA, Flavour.SPYMEMCACHED, Flavour.LIBMEMCACHED, Flavour.TWEMPROXY)) {
            try (Ring ring = ring(flavour)) {
                int[] batch = ring.serverIndices(keys);
                List<String> servers = ring.serversFor(keys);
                assertEquals(KEYS, batch.length);
                assertEquals(KEYS, servers.size());
                int same = 0;
                for (int i = 0; i < KEYS; i++) {
                    int single = ring.serverIndex(keys.get(i).getBytes(StandardCharsets.UTF_8));
                    assertEquals(flavour + " key " + i, single, batch[i]);
                    assertEquals(flavour + " key " + i, ring.server(keys.get(i)), servers.get(i));
                    same++;
                }
                assertEquals(KEYS, same);
                assertTrue(flavour + ": keys spread", Arrays.stream(batch).distinct().count() > 100);
            }
        }
    }

    @Test
    public void byteBatchesEqualSingleLookups() {
        byte[][] keys = binaryKeys();
        try (Ring ring = ring(Flavour.LIBKETAMA)) {
            int[] batch = ring.serverIndices(keys);
            for (int i = 0; i < KEYS; i++) {
                assertEquals("key " + i, ring.serverIndex(keys[i]), batch[i]);
            }
            // The packed form directly: the same bytes back to back.
            int[] lengths = Arrays.stream(keys).mapToInt(k -> k.length).toArray();
            byte[] packed = new byte[Arrays.stream(lengths).sum()];
            int offset = 0;
            for (byte[] key : keys) {
                System.arraycopy(key, 0, packed, offset, key.length);
                offset += key.length;
            }
            assertArrayEquals(batch, ring.serverIndices(packed, lengths));
        }
    }

    @Test
    public void smallAndEmptyBatches() {
        try (Ring ring = Ring.fromWeights(
                new LinkedHashMap<>(Map.of("127.0.0.1:11211", 600L)), Flavour.LIBKETAMA, Hash.DEFAULT)) {
            assertArrayEquals(new int[0], ring.serverIndices(List.of()));
            assertArrayEquals(new int[0], ring.serverIndices(new byte[0][]));
            assertArrayEquals(new int[0], ring.serverIndices(new byte[0], new int[0]));
        }
        Map<String, Long> pinned = new LinkedHashMap<>();
        pinned.put("127.0.0.1:11211", 600L);
        pinned.put("127.0.0.1:11212", 400L);
        try (Ring ring = Ring.fromWeights(pinned, Flavour.LIBKETAMA, Hash.DEFAULT)) {
            assertEquals(List.of("127.0.0.1:11211", "127.0.0.1:11211"), ring.serversFor(List.of("test", "test")));
            assertArrayEquals(new int[] {0, ring.serverIndex(new byte[0])}, ring.serverIndices(List.of("test", "")));
        }
    }

    @Test
    public void lengthsPastThePackedBufferThrowTheLibrarysMessage() {
        try (Ring ring = ring(Flavour.LIBKETAMA)) {
            byte[] packed = "abcdef".getBytes(StandardCharsets.US_ASCII);
            KetamaException e = assertThrows(KetamaException.class, () -> ring.serverIndices(packed, new int[] {3, 4}));
            assertEquals("KETAMA_ERR_INVALID_ARGUMENT", e.statusName());
            assertEquals("lengths[1] = 4 runs past the end of packed (6 bytes) at offset 3", e.getMessage());
            e = assertThrows(KetamaException.class, () -> ring.serverIndices(packed, new int[] {-1}));
            assertEquals("lengths[0] = 4294967295 runs past the end of packed (6 bytes) at offset 0", e.getMessage());
            // The ring stays usable.
            assertArrayEquals(
                    new int[] {ring.serverIndex("abc".getBytes(StandardCharsets.US_ASCII)), ring.serverIndex("def".getBytes(StandardCharsets.US_ASCII))},
                    ring.serverIndices(packed, new int[] {3, 3}));
        }
    }

    @Test
    public void batchesOnAClosedRingThrow() {
        Ring ring = ring(Flavour.LIBKETAMA);
        ring.close();
        assertThrows(IllegalStateException.class, () -> ring.serverIndices(List.of("k")));
        assertThrows(IllegalStateException.class, () -> ring.serverIndices(new byte[1], new int[] {1}));
        try (Ring open = ring(Flavour.LIBKETAMA)) {
            assertThrows(NullPointerException.class, () -> open.serverIndices(new byte[][] {null}));
        }
    }

    /** The multi-GET planner groups every key under the server a single lookup gives. */
    @Test
    public void groupKeysPlansOneMultiGetPerServer() {
        List<String> keys = stringKeys().subList(0, 3000);
        try (Ring ring = ring(Flavour.LIBKETAMA)) {
            Map<String, List<String>> expected = new LinkedHashMap<>();
            for (ServerInfo info : ring.servers()) {
                expected.put(info.address(), new ArrayList<>());
            }
            for (String key : keys) {
                expected.get(ring.server(key)).add(key);
            }
            expected.values().removeIf(List::isEmpty);
            Map<String, List<String>> plan = ring.groupKeys(keys);
            assertEquals(expected, plan);
            assertEquals(new ArrayList<>(expected.keySet()), new ArrayList<>(plan.keySet()));
            assertEquals(3000, plan.values().stream().mapToInt(List::size).sum());
            assertTrue(ring.groupKeys(List.of()).isEmpty());
        }
    }
}
