// Asks the real spymemcached (Debian libspymemcached-java) for its continuum
// and key placements, for crates/ketama-core/tests/peers/spymemcached.rs. No network: the nodes
// are MemcachedNode stand-ins that only answer getSocketAddress().
//
//   java SpyPeer ring CASE...   each CASE file holds
//       format SPYMEMCACHED|LIBMEMCACHED|EVCACHE
//       repetitions N                    (EVCACHE: its bucket.size; 160 if absent)
//       hash KETAMA_HASH|NATIVE_HASH|CRC_HASH|FNV1_64_HASH|...
//       weighted 0|1
//       server HOSTNAME IP PORT WEIGHT   (HOSTNAME "-": an IP literal without a name)
//       keys PATH                        (one UTF-8 key per line)
//       out PATH                         (one node index per key)
//       dump PATH                        (the continuum: "point index" per line)
//   java SpyPeer hash KEYS OUT  per key, every DefaultHashAlgorithm's hash
//   java SpyPeer array HASH CASE_DIR...
//       the locator DefaultConnectionFactory(..., HASH).createLocator builds
//       (ArrayModNodeLocator) over stand-in nodes: each CASE_DIR has `servers`
//       (HOST:PORT lines), `keys` (UTF-8 keys); writes `out` (getPrimary's
//       node index per key)
//   java SpyPeer live HASH SERVERS DOWN KEYS
//       a real MemcachedClient with DefaultConnectionFactory(..., HASH) on the
//       SERVERS (HOST:PORT lines) stores every key of KEYS; the servers whose
//       indices DOWN lists accept no connection, and the client is given
//       until every other node is active before the first key
import java.io.*;
import java.lang.reflect.*;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import net.spy.memcached.*;
import net.spy.memcached.util.DefaultKetamaNodeLocatorConfiguration;

public class SpyPeer {
    /**
     * Netflix EVCache's node keys on the real KetamaNodeLocator, written from
     * the rule of EVCacheKetamaNodeLocatorConfiguration.getKeyForNode
     * (Netflix/EVCache, evcache-core/src/main/java/com/netflix/evcache/pool/,
     * commit fa8721e6): host name, '/', host address and ":11211" whatever
     * the node's port, then "-" and the repetition; bucket.size repetitions.
     */
    static class EvcacheConfiguration extends DefaultKetamaNodeLocatorConfiguration {
        final int repetitions;

        EvcacheConfiguration(int repetitions) {
            this.repetitions = repetitions;
        }

        @Override
        public int getNodeRepetitions() {
            return repetitions;
        }

        @Override
        public String getKeyForNode(MemcachedNode node, int repetition) {
            InetSocketAddress isa = (InetSocketAddress) node.getSocketAddress();
            return isa.getHostName() + '/' + isa.getAddress().getHostAddress() + ":11211" + "-" + repetition;
        }
    }

    static MemcachedNode node(InetSocketAddress address) {
        InvocationHandler handler = (proxy, method, args) -> {
            switch (method.getName()) {
                case "getSocketAddress": return address;
                case "toString": return "node " + address;
                case "hashCode": return System.identityHashCode(proxy);
                case "equals": return proxy == args[0];
                default: throw new UnsupportedOperationException(method.getName());
            }
        };
        return (MemcachedNode) java.lang.reflect.Proxy.newProxyInstance(
            SpyPeer.class.getClassLoader(), new Class<?>[] {MemcachedNode.class}, handler);
    }

    static List<String> keys(String path) throws IOException {
        byte[] all = Files.readAllBytes(Paths.get(path));
        List<String> keys = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < all.length; i++) {
            if (all[i] == '\n') {
                keys.add(new String(all, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        return keys;
    }

    @SuppressWarnings("unchecked")
    static void ring(String casePath) throws Exception {
        String format = "SPYMEMCACHED";
        int repetitions = 160;
        HashAlgorithm hash = DefaultHashAlgorithm.KETAMA_HASH;
        boolean weighted = false;
        List<MemcachedNode> nodes = new ArrayList<>();
        Map<InetSocketAddress, Integer> weights = new HashMap<>();
        String keysPath = null, outPath = null, dumpPath = null;
        for (String line : Files.readAllLines(Paths.get(casePath))) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "format": format = f[1]; break;
                case "repetitions": repetitions = Integer.parseInt(f[1]); break;
                case "hash": hash = DefaultHashAlgorithm.valueOf(f[1]); break;
                case "weighted": weighted = f[1].equals("1"); break;
                case "server": {
                    InetAddress ip = InetAddress.getByName(f[2]); // an IP literal: no DNS
                    InetAddress address = f[1].equals("-") ? ip : InetAddress.getByAddress(f[1], ip.getAddress());
                    InetSocketAddress socket = new InetSocketAddress(address, Integer.parseInt(f[3]));
                    nodes.add(node(socket));
                    weights.put(socket, Integer.parseInt(f[4]));
                    break;
                }
                case "keys": keysPath = f[1]; break;
                case "out": outPath = f[1]; break;
                case "dump": dumpPath = f[1]; break;
                case "": break;
                default: throw new IllegalArgumentException("unknown case line: " + line);
            }
        }
        DefaultKetamaNodeLocatorConfiguration config = format.equals("EVCACHE")
            ? new EvcacheConfiguration(repetitions)
            : new DefaultKetamaNodeLocatorConfiguration(
                new KetamaNodeKeyFormatter(KetamaNodeKeyFormatter.Format.valueOf(format)));
        KetamaNodeLocator locator = weighted
            ? new KetamaNodeLocator(nodes, hash, weights, config)
            : new KetamaNodeLocator(nodes, hash, config);
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(outPath)))) {
            for (String key : keys(keysPath)) {
                MemcachedNode primary = locator.getPrimary(key);
                int index = -1;
                for (int i = 0; i < nodes.size(); i++) if (nodes.get(i) == primary) index = i;
                out.println(index);
            }
        }
        Method getter = KetamaNodeLocator.class.getDeclaredMethod("getKetamaNodes");
        getter.setAccessible(true);
        TreeMap<Long, MemcachedNode> continuum = (TreeMap<Long, MemcachedNode>) getter.invoke(locator);
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(dumpPath)))) {
            for (Map.Entry<Long, MemcachedNode> e : continuum.entrySet()) {
                int index = -1;
                for (int i = 0; i < nodes.size(); i++) if (nodes.get(i) == e.getValue()) index = i;
                out.println(e.getKey() + " " + index);
            }
        }
    }

    static void hashes(String keysPath, String outPath) throws IOException {
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(outPath)))) {
            for (String key : keys(keysPath)) {
                StringBuilder row = new StringBuilder();
                for (DefaultHashAlgorithm alg : DefaultHashAlgorithm.values()) {
                    if (row.length() > 0) row.append(' ');
                    row.append(alg.name()).append('=').append(alg.hash(key));
                }
                out.println(row);
            }
        }
    }

    static List<InetSocketAddress> addresses(String path) throws IOException {
        List<InetSocketAddress> list = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(path))) {
            if (line.isEmpty()) continue;
            int colon = line.lastIndexOf(':');
            String host = line.substring(0, colon).replace("[", "").replace("]", "");
            list.add(InetSocketAddress.createUnresolved(host, Integer.parseInt(line.substring(colon + 1))));
        }
        return list;
    }

    static ConnectionFactory factory(String hash) {
        return new DefaultConnectionFactory(DefaultConnectionFactory.DEFAULT_OP_QUEUE_LEN,
            DefaultConnectionFactory.DEFAULT_READ_BUFFER_SIZE, DefaultHashAlgorithm.valueOf(hash));
    }

    static void array(String hash, String dir) throws IOException {
        List<MemcachedNode> nodes = new ArrayList<>();
        for (InetSocketAddress address : addresses(dir + "/servers")) nodes.add(node(address));
        NodeLocator locator = factory(hash).createLocator(nodes);
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(dir + "/out")))) {
            for (String key : keys(dir + "/keys")) {
                MemcachedNode primary = locator.getPrimary(key);
                int index = -1;
                for (int i = 0; i < nodes.size(); i++) if (nodes.get(i) == primary) index = i;
                out.println(index);
            }
        }
    }

    static void live(String hash, String serversPath, String downPath, String keysPath) throws Exception {
        List<InetSocketAddress> servers = new ArrayList<>();
        for (InetSocketAddress a : addresses(serversPath)) servers.add(new InetSocketAddress(a.getHostString(), a.getPort()));
        Set<Integer> down = new HashSet<>();
        for (String line : Files.readAllLines(Paths.get(downPath))) if (!line.isEmpty()) down.add(Integer.parseInt(line));
        MemcachedClient client = new MemcachedClient(factory(hash), servers);
        List<MemcachedNode> nodes = new ArrayList<>(client.getNodeLocator().getAll());
        long deadline = System.nanoTime() + 60_000_000_000L;
        for (int i = 0; i < nodes.size(); i++) {
            while (!down.contains(i) && !nodes.get(i).isActive()) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("node " + i + " never became active");
                Thread.sleep(10);
            }
        }
        List<net.spy.memcached.internal.OperationFuture<Boolean>> stored = new ArrayList<>();
        for (String key : keys(keysPath)) stored.add(client.set(key, 0, "v"));
        for (net.spy.memcached.internal.OperationFuture<Boolean> f : stored) {
            if (!f.get()) throw new IllegalStateException("set " + f.getKey() + " failed: " + f.getStatus());
        }
        client.shutdown();
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals("ring")) {
            for (int i = 1; i < args.length; i++) ring(args[i]);
        } else if (args.length == 3 && args[0].equals("hash")) {
            hashes(args[1], args[2]);
        } else if (args.length >= 3 && args[0].equals("array")) {
            for (int i = 2; i < args.length; i++) array(args[1], args[i]);
        } else if (args.length == 5 && args[0].equals("live")) {
            live(args[1], args[2], args[3], args[4]);
        } else {
            System.err.println("usage: SpyPeer ring CASE... | hash KEYS OUT | array HASH CASE_DIR... | live HASH SERVERS DOWN KEYS");
            System.exit(2);
        }
    }
}
