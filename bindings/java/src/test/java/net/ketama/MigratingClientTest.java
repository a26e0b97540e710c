package net.ketama;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertThrows;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.ConnectionFactory;
import net.spy.memcached.ConnectionFactoryBuilder;
import net.spy.memcached.MemcachedClient;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A 3 -> 4 move under warm-up with {@link MigratingMemcachedClient} over spymemcached, on
 * the real memcached servers named by {@code ketama.test.memcached} (four host:port, started
 * by tests/bindings/java.rs: the first three are the old pool, all four the new one). Before
 * the move the keys are written where the old ring puts them with plain spymemcached clients.
 */
public class MigratingClientTest {
    private static List<String> oldServers;
    private static List<String> newServers;
    private static final Map<String, MemcachedClient> DIRECT = new HashMap<>();
    private static final List<String> KEYS = new ArrayList<>();
    /** Commands wait up to 60 s: the test machine may be loaded, and a timeout is a failure. */
    private static final ConnectionFactory FACTORY = new ConnectionFactoryBuilder().setOpTimeout(60_000).build();

    @BeforeClass
    public static void connect() throws IOException {
        String servers = System.getProperty("ketama.test.memcached");
        assertNotNull("set -Dketama.test.memcached=host:port,...", servers);
        newServers = List.of(servers.split(","));
        assertEquals(4, newServers.size());
        oldServers = newServers.subList(0, 3);
        for (String address : newServers) {
            String[] hostPort = address.split(":");
            DIRECT.put(address, new MemcachedClient(FACTORY,
                    List.of(new InetSocketAddress(hostPort[0], Integer.parseInt(hostPort[1])))));
        }
        for (int i = 0; i < 3000; i++) {
            KEYS.add("user:" + i);
        }
    }

    @AfterClass
    public static void disconnect() {
        DIRECT.values().forEach(c -> c.shutdown(5, TimeUnit.SECONDS));
    }

    private static MigratingMemcachedClient client(long startMs, String options) throws IOException {
        return new MigratingMemcachedClient(oldServers, newServers, "libketama", "libketama",
                MigrationMode.WARMUP, startMs, options, FACTORY);
    }

    @Test
    public void aWarmUpMoveReadsEveryKeyAndNothingStale() throws Exception {
        try (Ring oldRing = Ring.fromAddresses(oldServers)) {
            for (String key : KEYS) {
                assertTrue(DIRECT.get(oldRing.server(key)).set(key, 0, "v1:" + key).get(60, TimeUnit.SECONDS));
            }
        }
        long now = System.currentTimeMillis();
        try (MigratingMemcachedClient cache = client(now - 2000, "interval=1s,warmup=1h");
                MigratingMemcachedClient behind = client(System.currentTimeMillis() - 100, "interval=60s,warmup=1h");
                MigratingMemcachedClient after = client(now - 10_000_000, "interval=1s,warmup=1h")) {
            Migration migration = cache.migration();
            List<String> moved = new ArrayList<>();
            for (String key : KEYS) {
                Migration.Route route = migration.route(key);
                if (route.moved()) {
                    assertEquals(newServers.get(3), route.newServer());
                    assertTrue(oldServers.contains(route.oldServer()));
                    moved.add(key);
                }
            }
            double share = moved.size() / (double) KEYS.size();
            assertTrue("a quarter moves: " + share, share > 0.15 && share < 0.35);
            assertEquals(MigrationPhase.WARM, migration.phase(moved.get(0), 0));
            assertEquals(MigrationPhase.PREPARE, behind.migration().phase(moved.get(0), 0));
            assertEquals(MigrationPhase.NEW, after.migration().phase(moved.get(0), 0));

            int misses = 0;
            int stale = 0;
            for (String key : KEYS) {
                Object value = cache.get(key);
                if (value == null) {
                    misses++;
                } else if (!value.equals("v1:" + key)) {
                    stale++;
                }
            }
            assertEquals("misses", 0, misses);
            assertEquals("stale reads", 0, stale);
            for (String key : moved) {
                assertEquals("copied forward", "v1:" + key, DIRECT.get(newServers.get(3)).get(key));
            }
            assertEquals(200, cache.getBulk(KEYS.subList(0, 200)).size());

            // Writes during the move, read back here and a phase behind.
            List<String> rewritten = new ArrayList<>(moved.subList(0, 100));
            KEYS.stream().filter(k -> !moved.contains(k)).limit(100).forEach(rewritten::add);
            for (String key : rewritten) {
                assertTrue(cache.set(key, 0, "v2:" + key));
            }
            for (String key : rewritten) {
                assertEquals("v2:" + key, cache.get(key));
                Object late = behind.get(key);
                assertTrue("a phase behind: " + late, late == null || late.equals("v2:" + key));
            }
            for (String key : moved.subList(0, 100)) {
                assertNull("cleared on the old owner", DIRECT.get(migration.route(key).oldServer()).get(key));
            }

            // Deletes and adds: nothing comes back from the old owner.
            for (String key : moved.subList(150, 250)) {
                assertTrue(cache.delete(key));
                assertFalse(cache.delete(key));
                assertNull(cache.get(key));
                assertNull(behind.get(key));
            }
            for (String key : moved.subList(150, 200)) {
                assertTrue(cache.add(key, 0, "added"));
                assertEquals("added", cache.get(key));
            }
            assertFalse("add of a held key", cache.add(moved.get(300), 0, "added"));

            // After the schedule: the new ring alone finds every key carried forward.
            for (String key : moved.subList(301, moved.size())) {
                assertEquals("v1:" + key, after.get(key));
            }
            System.out.printf("migrating client: keys=%d moved=%d misses=%d stale=%d%n", KEYS.size(), moved.size(),
                    misses, stale);
        }
    }

    @Test
    public void badInputIsTheLibrarysError() throws IOException {
        KetamaException e = assertThrows(KetamaException.class, () -> client(0, "speed=3"));
        assertTrue(e.getMessage(), e.getMessage().contains("unknown migration option \"speed\""));
        try (Ring a = Ring.fromAddresses(oldServers); Ring b = Ring.fromAddresses(newServers);
                Migration m = Migration.create(a, b, MigrationMode.PHASED, 1000, "interval=1s")) {
            assertEquals(MigrationPhase.OLD, m.phase("k", 999));
            assertEquals(MigrationPhase.SWITCHED, m.phase("k", 2000));
            try (Migration.Operation op = m.begin(MigrationOp.DELETE, "k", 500)) {
                Migration.Step step = op.step();
                assertEquals(MigrationCommand.DELETE, step.command());
                assertEquals(MigrationSide.OLD, step.side());
                KetamaException bad = assertThrows(KetamaException.class,
                        () -> op.reply(MigrationReply.HIT, new byte[] {1}, 0));
                assertTrue(bad.getMessage(), bad.getMessage().contains("does not answer the command delete"));
                op.reply(MigrationReply.NOT_FOUND, null, 0);
                assertNull(op.step());
                assertEquals(MigrationOutcome.NOT_FOUND, op.outcome());
            }
        }
    }
}
