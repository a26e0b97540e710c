// Jedis' sharding on the Java runtime, for crates/ketama-core/tests/peers/jedis.rs.
// Jedis is a Maven artefact (not reachable here, not in Debian), so the ring is
// written from the rules of redis/jedis Sharded.java (src/main/java/redis/clients/
// jedis/util/, commit 5968eee338625fca921be0f7bef1b30e60e77e21), its Hashing.MD5 and
// MurmurHash.hash64A (commit 232ead32e78fcc2813050b0416dd77a443ed7baa); Java itself
// gives the label strings, UTF-8 encoding, MD5, and the TreeMap<Long, …> the ring is:
// signed order, put keeping the later shard, tailMap(hash) and firstKey wrapping.
//
//   java JedisPeer ring CASE_DIR...  each CASE_DIR holds `case`:
//       hash MURMUR|MD5
//       shard WEIGHT NAME          (NAME "-": no name; the rest of the line is the name)
//   and `keys` (one UTF-8 key per line); writes `out` (each key's shard index) and
//   `dump` (the ring: "point index" per entry, in TreeMap order)
//   java JedisPeer vectors IN OUT   each IN line "HEX SEED_HEX" ("-" for no bytes):
//       the MurmurHash64A of the bytes with that (64-bit) seed, as 16 hex digits
import java.io.*;
import java.nio.charset.StandardCharsets;
import java.nio.file.*;
import java.security.MessageDigest;
import java.util.*;

public class JedisPeer {
    /**
     * MurmurHash64A (Austin Appleby), bytes read little-endian. Jedis passes an int
     * seed, sign-extended into the long state; its 0x1234ABCD is positive, so it is
     * the seed's plain 64-bit value (the published vectors' seeds are zero-extended).
     */
    static long murmur64a(byte[] data, long seed) {
        final long m = 0xc6a4a7935bd1e995L;
        final int r = 47;
        long h = seed ^ (data.length * m);
        int blocks = data.length / 8;
        for (int b = 0; b < blocks; b++) {
            long k = 0;
            for (int j = 7; j >= 0; j--) k = (k << 8) | (data[b * 8 + j] & 0xffL);
            k *= m;
            k ^= k >>> r;
            k *= m;
            h ^= k;
            h *= m;
        }
        int rest = data.length % 8;
        if (rest > 0) {
            long k = 0;
            for (int j = rest - 1; j >= 0; j--) k = (k << 8) | (data[blocks * 8 + j] & 0xffL);
            h ^= k;
            h *= m;
        }
        h ^= h >>> r;
        h *= m;
        h ^= h >>> r;
        return h;
    }

    static long hash(String algo, byte[] bytes) throws Exception {
        if (algo.equals("MURMUR")) return murmur64a(bytes, 0x1234ABCDL);
        byte[] d = MessageDigest.getInstance("MD5").digest(bytes);
        return ((long) (d[3] & 0xFF) << 24) | ((long) (d[2] & 0xFF) << 16)
            | ((long) (d[1] & 0xFF) << 8) | (long) (d[0] & 0xFF);
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

    static void ring(String dir) throws Exception {
        String algo = "MURMUR";
        List<String> names = new ArrayList<>();
        List<Integer> weights = new ArrayList<>();
        for (String line : Files.readAllLines(Paths.get(dir, "case"), StandardCharsets.UTF_8)) {
            String[] f = line.split(" ", 3);
            switch (f[0]) {
                case "hash": algo = f[1]; break;
                case "shard":
                    weights.add(Integer.parseInt(f[1]));
                    names.add(f[2].equals("-") ? null : f[2]);
                    break;
                case "": break;
                default: throw new IllegalArgumentException("unknown case line: " + line);
            }
        }
        TreeMap<Long, Integer> nodes = new TreeMap<>();
        for (int i = 0; i != names.size(); ++i) {
            int count = 160 * weights.get(i);
            for (int n = 0; n < count; n++) {
                String label = names.get(i) == null ? "SHARD-" + i + "-NODE-" + n : names.get(i) + "*" + n;
                nodes.put(hash(algo, label.getBytes(StandardCharsets.UTF_8)), i);
            }
        }
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(dir + "/out")))) {
            for (String key : keys(dir + "/keys")) {
                SortedMap<Long, Integer> tail = nodes.tailMap(hash(algo, key.getBytes(StandardCharsets.UTF_8)));
                out.println(tail.isEmpty() ? nodes.get(nodes.firstKey()) : tail.get(tail.firstKey()));
            }
        }
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(dir + "/dump")))) {
            for (Map.Entry<Long, Integer> e : nodes.entrySet()) out.println(e.getKey() + " " + e.getValue());
        }
    }

    static void vectors(String in, String outPath) throws IOException {
        try (PrintWriter out = new PrintWriter(new BufferedWriter(new FileWriter(outPath)))) {
            for (String line : Files.readAllLines(Paths.get(in))) {
                String[] f = line.split(" ");
                byte[] data = new byte[f[0].equals("-") ? 0 : f[0].length() / 2];
                for (int i = 0; i < data.length; i++) data[i] = (byte) Integer.parseInt(f[0].substring(2 * i, 2 * i + 2), 16);
                out.println(String.format("%016x", murmur64a(data, Long.parseLong(f[1], 16))));
            }
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals("ring")) {
            for (int i = 1; i < args.length; i++) ring(args[i]);
        } else if (args.length == 3 && args[0].equals("vectors")) {
            vectors(args[1], args[2]);
        } else {
            System.err.println("usage: JedisPeer ring CASE_DIR... | vectors IN OUT");
            System.exit(2);
        }
    }
}
