// Asks Guava's jump consistent hash (Hashing.consistentHash, Debian
// libguava-java) which bucket each 64-bit key hash falls in, and so which
// server: the hashes and the servers' bucket order come from another peer
// (xxhash_natsort_peer.go, xxh3_peer.py).
//
// Usage: java -cp CLASSES:guava.jar GuavaJumpPeer CASE_DIR...
// Each CASE_DIR has `order` (the server index of each bucket, one a line)
// and `hashes` (one unsigned 64-bit hash a line, decimal). The peer writes
// `out`: the server index of each hash's bucket (-1 with no buckets).
import com.google.common.hash.Hashing;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;

public class GuavaJumpPeer {
    public static void main(String[] args) throws IOException {
        for (String dir : args) {
            List<String> order = Files.readAllLines(Paths.get(dir, "order"), StandardCharsets.UTF_8);
            List<String> hashes = Files.readAllLines(Paths.get(dir, "hashes"), StandardCharsets.UTF_8);
            StringBuilder out = new StringBuilder();
            for (String h : hashes) {
                long hash = Long.parseUnsignedLong(h);
                if (order.isEmpty()) {
                    out.append("-1\n");
                } else {
                    out.append(order.get(Hashing.consistentHash(hash, order.size()))).append('\n');
                }
            }
            Path path = Paths.get(dir, "out");
            Files.write(path, out.toString().getBytes(StandardCharsets.UTF_8));
        }
        System.out.println("Guava " + Hashing.class.getPackage().getImplementationVersion()
            + " Hashing.consistentHash (Debian libguava-java)");
    }
}
