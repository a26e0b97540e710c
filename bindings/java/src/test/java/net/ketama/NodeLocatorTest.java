package net.ketama;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.AddrUtil;
import net.spy.memcached.DefaultConnectionFactory;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * KetamaNodeLocator inside a real spymemcached MemcachedClient against the
 * memcached servers on loopback named by the system property
 * {@code ketama.test.memcached} (comma-separated host:port, started by tests/bindings/java.rs).
 */
public class NodeLocatorTest {
    private static List<String> addresses;
    private static MemcachedClient client;
    private static List<MemcachedClient> direct;

    @BeforeClass
    public static void connect() throws IOException {
        String servers = System.getProperty("ketama.test.memcached");
        assertNotNull("set -Dketama.test.memcached=host:port,...", servers);
        addresses = List.of(servers.split(","));
        client = new MemcachedClient(new DefaultConnectionFactory() {
            @Override
            public NodeLocator createLocator(List<MemcachedNode> nodes) {
                return new KetamaNodeLocator(nodes, Flavour.LIBKETAMA);
            }
        }, AddrUtil.getAddresses(addresses));
        direct = new ArrayList<>();
        for (String address : addresses) {
            direct.add(new MemcachedClient(AddrUtil.getAddresses(address)));
        }
    }

    @AfterClass
    public static void disconnect() {
        client.shutdown(5, TimeUnit.SECONDS);
        for (MemcachedClient c : direct) {
            c.shutdown(5, TimeUnit.SECONDS);
        }
    }

    /** Keys written through the client land on the library's server for them, and only there. */
    @Test
    public void clientPlacesKeysOnTheRingsServers() throws Exception {
        try (Ring ring = Ring.fromAddresses(addresses)) {
            for (int i = 0; i < 300; i++) {
                assertTrue(client.set("locator:" + i, 60, "v" + i).get(5, TimeUnit.SECONDS));
            }
            int[] perServer = new int[addresses.size()];
            for (int i = 0; i < 300; i++) {
                String key = "locator:" + i;
                int expected = addresses.indexOf(ring.server(key));
                perServer[expected]++;
                for (int s = 0; s < addresses.size(); s++) {
                    Object value = direct.get(s).get(key);
                    if (s == expected) {
                        assertEquals(key, "v" + i, value);
                    } else {
                        assertNull(key + " also on " + addresses.get(s), value);
                    }
                }
                assertEquals("v" + i, client.get(key));
            }
            for (int n : perServer) {
                assertTrue("every server got keys", n > 0);
            }
        }
    }

    @Test
    public void locatorAgreesWithTheRing() {
        NodeLocator locator = client.getNodeLocator();
        try (Ring ring = Ring.fromAddresses(addresses)) {
            for (int i = 0; i < 10_000; i++) {
                String key = "k" + i;
                InetSocketAddress at = (InetSocketAddress) locator.getPrimary(key).getSocketAddress();
                assertEquals(ring.server(key), at.getHostString() + ":" + at.getPort());
            }
        }
    }

    /** spymemcached's own node spelling is host:port for literal addresses. */
    @Test
    public void spymemcachedNodeNames() {
        for (MemcachedNode node : client.getNodeLocator().getAll()) {
            InetSocketAddress a = (InetSocketAddress) node.getSocketAddress();
            assertEquals(a.getHostString() + ":" + a.getPort(), KetamaNodeLocator.spymemcachedName().apply(node));
        }
    }

    /** getSequence yields every other node once, in the library's failover order. */
    @Test
    public void sequenceIsTheFailoverOrder() {
        NodeLocator locator = client.getNodeLocator();
        List<MemcachedNode> all = new ArrayList<>(locator.getAll());
        try (Ring ring = Ring.fromAddresses(addresses)) {
            for (int i = 0; i < 200; i++) {
                String key = "seq" + i;
                MemcachedNode primary = locator.getPrimary(key);
                Set<MemcachedNode> seen = new HashSet<>();
                seen.add(primary);
                List<Integer> down = new ArrayList<>();
                down.add(all.indexOf(primary));
                Iterator<MemcachedNode> sequence = locator.getSequence(key);
                while (sequence.hasNext()) {
                    MemcachedNode next = sequence.next();
                    assertTrue("no repeats", seen.add(next));
                    int expected = ring.findAvoiding(key.getBytes(), down.stream().mapToInt(x -> x).toArray()).serverIndex();
                    assertEquals(expected, all.indexOf(next));
                    down.add(expected);
                }
                assertEquals(all.size(), seen.size());
            }
        }
    }

    @Test
    public void readonlyCopyAndUpdate() {
        NodeLocator locator = client.getNodeLocator();
        NodeLocator copy = locator.getReadonlyCopy();
        assertEquals(locator.getAll().size(), copy.getAll().size());
        for (int i = 0; i < 1000; i++) {
            assertEquals(locator.getPrimary("ro" + i).getSocketAddress(), copy.getPrimary("ro" + i).getSocketAddress());
        }
        List<MemcachedNode> nodes = new ArrayList<>(copy.getAll());
        KetamaNodeLocator mine = new KetamaNodeLocator(nodes, Flavour.LIBKETAMA);
        mine.updateLocator(nodes.subList(0, 1));
        for (int i = 0; i < 100; i++) {
            assertEquals(nodes.get(0), mine.getPrimary("u" + i));
        }
        assertFalse(mine.getSequence("u").hasNext());
    }
}
