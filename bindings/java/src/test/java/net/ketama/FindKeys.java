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
 * java net.ketama.FindKeys SERVERS_FILE [FLAVOUR] [HASH] [PARSE]
 * java net.ketama.FindKeys --cases CASES_FILE
 * </pre>
 *
 * <p>Flavour, hash and parse mode are names as the CLI takes them (the hash as the flavour's
 * client spells it; PARSE {@code strict} by default), resolved by the library. With
 * {@code --cases}, each line of CASES_FILE is
 * {@code SERVERS_FILE<TAB>FLAVOUR<TAB>HASH<TAB>PARSE<TAB>OUTFILE}: the same keys are placed
 * for every case in one JVM, the answers written to OUTFILE, or the library's message to
 * {@code OUTFILE.error} when the case fails. Keys are looked up in one batch ({@link Ring#serversFor}); every tenth
 * key is also looked up alone and must agree. Used by tests/bindings/matrix.rs and
 * tests/bindings/agreement.rs.
 */
public final class FindKeys {
    public static void main(String[] args) throws IOException {
        boolean cases = args.length == 2 && args[0].equals("--cases");
        if (!cases && (args.length < 1 || args.length > 5)) {
            System.err.println("usage: FindKeys SERVERS_FILE [FLAVOUR] [HASH] [PARSE] [OPTIONS] | FindKeys --cases CASES_FILE");
            System.exit(2);
        }
        List<String> keys = readKeys();
        if (cases) {
            for (String line : Files.readAllLines(Path.of(args[1]), StandardCharsets.UTF_8)) {
                if (line.isEmpty()) {
                    continue;
                }
                String[] f = line.split("\t", -1);
                if (f.length != 6) {
                    throw new IllegalArgumentException(
                            "a case is SERVERS_FILE<TAB>FLAVOUR<TAB>HASH<TAB>PARSE<TAB>OPTIONS<TAB>OUTFILE, not " + line);
                }
                Path out = Path.of(f[5]);
                try (OutputStream file = Files.newOutputStream(out)) {
                    write(Path.of(f[0]), f[1], f[2], f[3], f[4].isEmpty() ? null : f[4], keys, file);
                } catch (KetamaException | IllegalStateException e) {
                    Files.deleteIfExists(out);
                    Files.writeString(Path.of(f[5] + ".error"), e.getMessage(), StandardCharsets.UTF_8);
                }
            }
            return;
        }
        try {
            write(Path.of(args[0]), args.length > 1 ? args[1] : "libketama", args.length > 2 ? args[2] : null,
                    args.length > 3 ? args[3] : "strict", args.length > 4 && !args[4].isEmpty() ? args[4] : null,
                    keys, System.out);
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

    /** The answers for one flavour, hash (null: the flavour's own), parse mode and options (null: none). */
    private static void write(Path servers, String flavour, String hash, String parse, String options,
            List<String> keys, OutputStream to) {
        try (Ring ring = Ring.fromFile(servers, flavour, hash, parse, options)) {
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
