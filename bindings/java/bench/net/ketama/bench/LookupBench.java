package net.ketama.bench;

import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import net.ketama.Flavour;
import net.ketama.Hash;
import net.ketama.KetamaNodeLocator;
import net.ketama.Ring;
import net.spy.memcached.DefaultHashAlgorithm;
import net.spy.memcached.MemcachedNode;

/**
 * Per-key lookup cost from Java, measured like benches/c/lookup_peers.c: the
 * median over 15 rounds of (time to look up every key) / keys, after warm-up
 * rounds for the JIT. Run by scripts/bench.sh:
 *
 * <pre>java net.ketama.bench.LookupBench SERVERS_FILE SERVER_COUNT KEYS_FILE</pre>
 *
 * prints {@code NAME<TAB>SERVERS<TAB>NS_PER_KEY} lines for this binding (single
 * key and batch, libketama ring from the file), and for spymemcached's own
 * {@code KetamaNodeLocator.getPrimary} next to this binding's
 * {@code net.ketama.KetamaNodeLocator.getPrimary} (same nodes, same placement).
 */
public final class LookupBench {
    private static final int ROUNDS = 15;
    private static final int WARM_UP_ROUNDS = 10;
    private static volatile long sink;

    private LookupBench() {}

    /** One timed pass over all keys; returns a value derived from the answers (kept in {@link #sink}). */
    private interface Round {
        long run();
    }

    private static double medianNsPerKey(Round round, int keys) {
        for (int i = 0; i < WARM_UP_ROUNDS; i++) {
            sink += round.run();
        }
        double[] samples = new double[ROUNDS];
        for (int r = 0; r < ROUNDS; r++) {
            long start = System.nanoTime();
            sink += round.run();
            samples[r] = (double) (System.nanoTime() - start) / keys;
        }
        Arrays.sort(samples);
        return samples[ROUNDS / 2];
    }

    /** A MemcachedNode that only answers getSocketAddress (the locators need no connection). */
    private static MemcachedNode node(InetSocketAddress address) {
        return (MemcachedNode) Proxy.newProxyInstance(LookupBench.class.getClassLoader(),
                new Class<?>[] {MemcachedNode.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getSocketAddress" -> address;
                    case "toString" -> "node " + address;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    /** The nodes of a libketama server file (IPv4 literals, so no DNS). */
    private static List<MemcachedNode> nodes(Path serversFile) throws Exception {
        List<MemcachedNode> nodes = new ArrayList<>();
        for (String line : Files.readAllLines(serversFile)) {
            String address = line.split("\t")[0];
            int colon = address.lastIndexOf(':');
            InetAddress host = InetAddress.getByName(address.substring(0, colon));
            nodes.add(node(new InetSocketAddress(host, Integer.parseInt(address.substring(colon + 1)))));
        }
        return nodes;
    }

    private static void print(String name, String servers, double nsPerKey) {
        System.out.printf("%s\t%s\t%.1f%n", name, servers, nsPerKey);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: LookupBench SERVERS_FILE SERVER_COUNT KEYS_FILE");
            System.exit(2);
        }
        Path serversFile = Path.of(args[0]);
        String count = args[1];
        List<String> keys = Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8);
        int n = keys.size();

        try (Ring ring = Ring.fromFile(serversFile, Flavour.LIBKETAMA, Hash.DEFAULT, true)) {
            print("java Ring.serverIndex(key.getBytes(UTF_8)) (JNA, single)", count, medianNsPerKey(() -> {
                long sum = 0;
                for (String key : keys) {
                    sum += ring.serverIndex(key.getBytes(StandardCharsets.UTF_8));
                }
                return sum;
            }, n));
            print("java Ring.serverIndices(List<String>) (JNA, batch)", count, medianNsPerKey(() -> {
                int[] indices = ring.serverIndices(keys);
                return indices[n - 1];
            }, n));
        }

        List<MemcachedNode> nodes = nodes(serversFile);
        net.spy.memcached.KetamaNodeLocator spy =
                new net.spy.memcached.KetamaNodeLocator(nodes, DefaultHashAlgorithm.KETAMA_HASH);
        KetamaNodeLocator ours = new KetamaNodeLocator(nodes, Flavour.SPYMEMCACHED);
        for (String key : keys.subList(0, Math.min(n, 1000))) {
            if (spy.getPrimary(key) != ours.getPrimary(key)) {
                throw new IllegalStateException("the locators disagree on " + key);
            }
        }
        print("java spymemcached KetamaNodeLocator.getPrimary", count, medianNsPerKey(() -> {
            long sum = 0;
            for (String key : keys) {
                sum += System.identityHashCode(spy.getPrimary(key));
            }
            return sum;
        }, n));
        print("java net.ketama.KetamaNodeLocator.getPrimary (JNA, spymemcached flavour)", count, medianNsPerKey(() -> {
            long sum = 0;
            for (String key : keys) {
                sum += System.identityHashCode(ours.getPrimary(key));
            }
            return sum;
        }, n));
        ours.ring().close();
    }
}
