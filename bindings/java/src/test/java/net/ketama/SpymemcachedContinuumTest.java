package net.ketama;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.HashAlgorithm;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;
import org.junit.AfterClass;
import org.junit.Test;

/**
 * The spymemcached flavours against spymemcached's own KetamaNodeLocator in
 * the same JVM: for 3, 10 and 100 servers, unweighted and weighted, both
 * node-key formats and several hashes, the whole continuum and the primary
 * node of 10,000 keys must be identical.
 */
public class SpymemcachedContinuumTest {
    private static final int KEYS = 10_000;
    private static int configurations;
    private static long keysCompared;
    private static long pointsCompared;

    @AfterClass
    public static void report() {
        System.out.println("spymemcached continuum: " + configurations + " configurations, " + pointsCompared
                + " points and " + keysCompared + " keys compared, 0 differences");
    }

    /** A MemcachedNode that only answers getSocketAddress (no network). */
    static MemcachedNode node(InetSocketAddress address) {
        return (MemcachedNode) Proxy.newProxyInstance(SpymemcachedContinuumTest.class.getClassLoader(),
                new Class<?>[] {MemcachedNode.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getSocketAddress" -> address;
                    case "toString" -> "node " + address;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /**
     * {@code count} nodes on 10.x addresses, ports 11211 and others. With {@code named}, every
     * address carries a host name (no DNS is done); otherwise every other one is a bare literal.
     */
    static List<MemcachedNode> nodes(int count, boolean named) throws Exception {
        List<MemcachedNode> nodes = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] ip = {10, 0, (byte) (i / 200), (byte) (1 + i % 200)};
            int port = i % 3 == 0 ? 11211 : 11300 + i;
            InetAddress address = named || i % 2 == 0
                    ? InetAddress.getByAddress("cache-" + i + ".example", ip)
                    : InetAddress.getByAddress(ip);
            nodes.add(node(new InetSocketAddress(address, port)));
        }
        return nodes;
    }

    static List<String> keys() {
        Random random = new Random(42);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < KEYS; i++) {
            keys.add(switch (i % 4) {
                case 0 -> "key:" + i;
                case 1 -> "user/" + random.nextLong();
                case 2 -> "ключ-" + i + "-ü€";
                default -> Integer.toHexString(random.nextInt()) + "😀" + i;
            });
        }
        return keys;
    }

    @SuppressWarnings("unchecked")
    static TreeMap<Long, MemcachedNode> spyContinuum(net.spy.memcached.KetamaNodeLocator locator) throws Exception {
        Method getter = net.spy.memcached.KetamaNodeLocator.class.getDeclaredMethod("getKetamaNodes");
        getter.setAccessible(true);
        return (TreeMap<Long, MemcachedNode>) getter.invoke(locator);
    }

    /** Compares one configuration: continuum and 10,000 lookups. */
    static void compare(int count, boolean weighted, KetamaNodeKeyFormatter.Format format, HashAlgorithm spyHash, Hash hash)
            throws Exception {
        List<MemcachedNode> nodes = nodes(count, format == KetamaNodeKeyFormatter.Format.LIBMEMCACHED);
        Map<InetSocketAddress, Integer> weights = new HashMap<>();
        if (weighted) {
            for (int i = 0; i < count; i++) {
                weights.put((InetSocketAddress) nodes.get(i).getSocketAddress(), 1 + (i * 7) % 13);
            }
        }
        net.spy.memcached.KetamaNodeLocator spy = new net.spy.memcached.KetamaNodeLocator(nodes, spyHash, format, weights);
        Flavour flavour = format == KetamaNodeKeyFormatter.Format.SPYMEMCACHED ? Flavour.SPYMEMCACHED : Flavour.SPYMEMCACHED_LIBMEMCACHED;
        KetamaNodeLocator ours = new KetamaNodeLocator(nodes, flavour, hash, weights, KetamaNodeLocator.defaultName(flavour));
        String what = count + " servers, " + (weighted ? "weighted" : "unweighted") + ", " + format + ", " + spyHash;

        // The continuum: the same points, each owned by the same node.
        TreeMap<Long, MemcachedNode> expected = spyContinuum(spy);
        Ring ring = ours.ring();
        Map<Long, MemcachedNode> actual = new LinkedHashMap<>();
        for (long i = 0; i < ring.pointCount(); i++) {
            long[] point = ring.point(i);
            actual.putIfAbsent(point[0], nodes.get((int) point[1]));
        }
        assertEquals(what + ": distinct points", expected.size(), actual.size());
        for (Map.Entry<Long, MemcachedNode> e : expected.entrySet()) {
            assertTrue(what + ": point " + e.getKey() + " owned by " + e.getValue() + ", ours " + actual.get(e.getKey()),
                    e.getValue() == actual.get(e.getKey()));
        }
        pointsCompared += expected.size();

        // Lookups.
        int differences = 0;
        String first = null;
        for (String key : keys()) {
            MemcachedNode want = spy.getPrimary(key);
            MemcachedNode got = ours.getPrimary(key);
            if (want != got) {
                differences++;
                first = first == null ? key + ": spymemcached " + want + ", ours " + got : first;
            }
        }
        assertEquals(what + ": differing keys (first: " + first + ")", 0, differences);
        keysCompared += KEYS;
        configurations++;
    }

    @Test
    public void unweightedKetamaHash() throws Exception {
        for (int count : new int[] {3, 10, 100}) {
            for (KetamaNodeKeyFormatter.Format format : KetamaNodeKeyFormatter.Format.values()) {
                compare(count, false, format, DefaultHashAlgorithm.KETAMA_HASH, Hash.DEFAULT);
            }
        }
    }

    @Test
    public void weighted() throws Exception {
        for (int count : new int[] {3, 10, 100}) {
            for (KetamaNodeKeyFormatter.Format format : KetamaNodeKeyFormatter.Format.values()) {
                compare(count, true, format, DefaultHashAlgorithm.KETAMA_HASH, Hash.DEFAULT);
            }
        }
    }

    @Test
    public void otherHashes() throws Exception {
        Map<HashAlgorithm, Hash> hashes = new LinkedHashMap<>();
        hashes.put(DefaultHashAlgorithm.FNV1A_32_HASH, Hash.SPY_FNV1A_32);
        hashes.put(DefaultHashAlgorithm.FNV1_64_HASH, Hash.SPY_FNV1_64);
        hashes.put(DefaultHashAlgorithm.NATIVE_HASH, Hash.SPY_NATIVE);
        hashes.put(DefaultHashAlgorithm.CRC_HASH, Hash.CRC);
        for (Map.Entry<HashAlgorithm, Hash> e : hashes.entrySet()) {
            for (int count : new int[] {3, 10, 100}) {
                compare(count, false, KetamaNodeKeyFormatter.Format.SPYMEMCACHED, e.getKey(), e.getValue());
            }
        }
    }

    /** The locator's failover sequence never repeats and covers every other node. */
    @Test
    public void sequenceCoversAllNodes() throws Exception {
        List<MemcachedNode> nodes = nodes(10, false);
        NodeLocator ours = new KetamaNodeLocator(nodes, Flavour.SPYMEMCACHED);
        for (String key : keys().subList(0, 100)) {
            List<MemcachedNode> seen = new ArrayList<>();
            seen.add(ours.getPrimary(key));
            ours.getSequence(key).forEachRemaining(seen::add);
            assertEquals(10, seen.size());
            assertEquals(10, Collections.frequency(seen, null) + new java.util.HashSet<>(seen).size());
        }
    }
}
