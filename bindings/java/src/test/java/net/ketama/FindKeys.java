package net.ketama;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * KEY<TAB>SERVER for each key read from stdin, like {@code ketama find FILE}:
 *
 * <pre>
 * java net.ketama.FindKeys SERVERS_FILE [FLAVOUR] [HASH]
 * java net.ketama.FindKeys SERVERS_FILE --cases CASES_FILE
 * </pre>
 *
 * <p>Flavour and hash are names as the CLI takes them (the hash as the flavour's client
 * spells it), resolved by the library. With {@code --cases}, each line of CASES_FILE is
 * {@code FLAVOUR<TAB>HASH<TAB>OUTFILE}: the same keys are placed for every case in one JVM,
 * the answers written to OUTFILE, or the library's message to {@code OUTFILE.error} when
 * the case fails. Keys are looked up in one batch ({@link Ring#serversFor}); every tenth
 * key is also looked up alone and must agree. Used by tests/agreement_matrix.rs and
 * tests/bindings_agreement.rs.
 */
public final class FindKeys {
    public static void main(String[] args) throws IOException {
        if (args.length < 1 || args.length > 3 || (args.length > 1 && args[1].equals("--cases") && args.length != 3)) {
            System.err.println("usage: FindKeys SERVERS_FILE [FLAVOUR] [HASH] | SERVERS_FILE --cases CASES_FILE");
            System.exit(2);
        }
        Path servers = Path.of(args[0]);
        List<String> keys = readKeys();
        if (args.length == 3 && args[1].equals("--cases")) {
            for (String line : Files.readAllLines(Path.of(args[2]), StandardCharsets.UTF_8)) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] fields = line.split("\t", -1);
                if (fields.length != 3) {
                    throw new IllegalArgumentException("a case is FLAVOUR<TAB>HASH<TAB>OUTFILE, not " + line);
                }
                Path out = Path.of(fields[2]);
                try (OutputStream file = Files.newOutputStream(out)) {
                    write(servers, fields[0], fields[1], keys, file);
                } catch (KetamaException | IllegalStateException e) {
                    Files.deleteIfExists(out);
                    Files.writeString(Path.of(fields[2] + ".error"), e.getMessage(), StandardCharsets.UTF_8);
                }
            }
            return;
        }
        try {
            write(servers, args.length > 1 ? args[1] : "libketama", args.length > 2 ? args[2] : null, keys, System.out);
        } catch (KetamaException | IllegalStateException e) {
            System.err.println(e.getMessage());
            System.exit(1);
        }
    }

    private static List<String> readKeys() throws IOException {
        List<String> keys = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String key; (key = in.readLine()) != null; ) {
            keys.add(key);
        }
        return keys;
    }

    /** The answers for one flavour and hash (null: the flavour's own). */
    private static void write(Path servers, String flavour, String hash, List<String> keys, OutputStream to) {
        try (Ring ring = Ring.fromFile(servers, flavour, hash)) {
            List<String> found = ring.serversFor(keys);
            for (int i = 0; i < keys.size(); i += 10) {
                if (!ring.server(keys.get(i)).equals(found.get(i))) {
                    throw new IllegalStateException("single and batch lookups differ for " + keys.get(i));
                }
            }
            StringBuilder text = new StringBuilder();
            for (int i = 0; i < keys.size(); i++) {
                text.append(keys.get(i)).append('\t').append(found.get(i)).append('\n');
            }
            PrintStream out = new PrintStream(to, false, StandardCharsets.UTF_8);
            out.print(text);
            out.flush();
        }
    }
}
