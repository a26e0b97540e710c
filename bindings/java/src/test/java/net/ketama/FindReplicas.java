package net.ketama;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Replica lists for each key read from stdin, for tests/bindings/replicas.rs:
 *
 * <pre>
 * java net.ketama.FindReplicas SIZES CASES_FILE
 * </pre>
 *
 * <p>SIZES is a comma-separated list of replica counts; each line of CASES_FILE is
 * {@code SERVERS_FILE<TAB>FLAVOUR<TAB>OUTFILE}, and OUTFILE gets {@code KEY<TAB>N<TAB>I,J,...}
 * ({@link Ring#replicas}) per key and count, all cases in one JVM.
 */
public final class FindReplicas {
    public static void main(String[] args) throws IOException {
        String[] sizes = args[0].split(",");
        List<String> keys = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            keys.add(line);
        }
        for (String line : Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8)) {
            String[] fields = line.split("\t");
            StringBuilder out = new StringBuilder();
            try (Ring ring = Ring.fromFile(Path.of(fields[0]), fields[1], "default")) {
                for (String key : keys) {
                    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
                    for (String size : sizes) {
                        int[] listed = ring.replicas(bytes, Integer.parseInt(size));
                        out.append(key).append('\t').append(size).append('\t');
                        for (int i = 0; i < listed.length; i++) {
                            out.append(i == 0 ? "" : ",").append(listed[i]);
                        }
                        out.append('\n');
                    }
                }
            }
            Files.writeString(Path.of(fields[2]), out, StandardCharsets.UTF_8);
        }
    }
}
