// The placement arithmetic of libketama's Java port (java_ketama/SockIOPool.java),
// written for this test from reading that class (setServersAndWeights,
// initialize, md5HashingAlg, findPointFor), run in a real JVM so that Java's
// own int overflow, Math.floor, String.getBytes and TreeMap decide.
//
// Usage: java -Dfile.encoding=UTF-8 SockIoPoolPeer CASE_DIR...
// A CASE_DIR has `servers` (the server lines, one per line, as the String[]
// handed to setServersAndWeights) and `keys` (UTF-8 keys, one per line); the
// program writes `out` (each key's server index) and `dump` (the whole
// continuum, "point index" in TreeMap order).

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

public final class SockIoPoolPeer {
    public static void main(String[] args) throws Exception {
        for (String arg : args) {
            runCase(Path.of(arg));
        }
    }

    private static void runCase(Path dir) throws Exception {
        List<String> lines = Files.readAllLines(dir.resolve("servers"), StandardCharsets.UTF_8);
        String[] servers = new String[lines.size()];
        Integer[] weights = new Integer[lines.size()];
        // setServersAndWeights: an int running total; a weight Integer.parseInt
        // cannot read counts as 1.
        int totalWeight = 0;
        for (int i = 0; i < servers.length; i++) {
            String[] fields = lines.get(i).split("\t");
            servers[i] = fields[0];
            int w;
            try {
                w = Integer.parseInt(fields[1]);
            } catch (Exception e) {
                w = 1;
            }
            weights[i] = w;
            totalWeight += w;
        }
        // initialize(): the weights are added once more when the total is not positive.
        if (totalWeight <= 0) {
            for (Integer w : weights) {
                totalWeight += (w == null) ? 1 : w;
            }
        }
        TreeMap<Long, Integer> ring = new TreeMap<>();
        MessageDigest md5 = MessageDigest.getInstance("MD5");
        for (int i = 0; i < servers.length; i++) {
            int w = weights[i];
            double digests = Math.floor(((double) (40 * servers.length * w)) / (double) totalWeight);
            for (long j = 0; j < digests; j++) {
                byte[] d = md5.digest((servers[i] + "-" + j).getBytes());
                for (int h = 0; h < 4; h++) {
                    long point = word(d, h);
                    ring.put(point, i);
                }
            }
        }
        try (PrintWriter dump = new PrintWriter(Files.newBufferedWriter(dir.resolve("dump")))) {
            for (Map.Entry<Long, Integer> e : ring.entrySet()) {
                dump.println(e.getKey() + " " + e.getValue());
            }
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(dir.resolve("out")))) {
            for (String key : Files.readAllLines(dir.resolve("keys"), StandardCharsets.UTF_8)) {
                md5.reset();
                long hash = word(md5.digest(key.getBytes()), 0);
                Long at = ring.ceilingKey(hash);
                if (at == null) {
                    at = ring.firstKey();
                }
                out.println(ring.get(at));
            }
        }
    }

    /** Little-endian word {@code h} of a digest, as an unsigned value in a long. */
    private static long word(byte[] d, int h) {
        return ((long) (d[3 + h * 4] & 0xFF) << 24)
                | ((long) (d[2 + h * 4] & 0xFF) << 16)
                | ((long) (d[1 + h * 4] & 0xFF) << 8)
                | ((long) (d[h * 4] & 0xFF));
    }
}
