// Asks the real spymemcached (Debian libspymemcached-java) for its continuum
// and key placements, for tests/peer_spymemcached.rs. No network: the nodes
// are MemcachedNode stand-ins that only answer getSocketAddress().
//
//   java SpyPeer ring CASE...   each CASE file holds
//       format SPYMEMCACHED|LIBMEMCACHED
//       hash KETAMA_HASH|NATIVE_HASH|CRC_HASH|FNV1_64_HASH|...
//       weighted 0|1
//       server HOSTNAME IP PORT WEIGHT   (HOSTNAME "-": an IP literal without a name)
//       keys PATH                        (one UTF-8 key per line)
//       out PATH                         (one node index per key)
//       dump PATH                        (the continuum: "point index" per line)
//   java SpyPeer hash KEYS OUT  per key, every DefaultHashAlgorithm's hash
import java.io.*;
import java.lang.reflect.*;
import java.net.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.util.*;
import net.spy.memcached.*;
import net.spy.memcached.util.DefaultKetamaNodeLocatorConfiguration;

public class SpyPeer {
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
        KetamaNodeKeyFormatter.Format format = KetamaNodeKeyFormatter.Format.SPYMEMCACHED;
        HashAlgorithm hash = DefaultHashAlgorithm.KETAMA_HASH;
        boolean weighted = false;
        List<MemcachedNode> nodes = new ArrayList<>();
        Map<InetSocketAddress, Integer> weights = new HashMap<>();
        String keysPath = null, outPath = null, dumpPath = null;
        for (String line : Files.readAllLines(Paths.get(casePath))) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "format": format = KetamaNodeKeyFormatter.Format.valueOf(f[1]); break;
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
        DefaultKetamaNodeLocatorConfiguration config =
            new DefaultKetamaNodeLocatorConfiguration(new KetamaNodeKeyFormatter(format));
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

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals("ring")) {
            for (int i = 1; i < args.length; i++) ring(args[i]);
        } else if (args.length == 3 && args[0].equals("hash")) {
            hashes(args[1], args[2]);
        } else {
            System.err.println("usage: SpyPeer ring CASE... | hash KEYS OUT");
            System.exit(2);
        }
    }
}
