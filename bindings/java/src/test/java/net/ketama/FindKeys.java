package net.ketama;

import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * KEY<TAB>SERVER for each key read from stdin, like {@code ketama find FILE}:
 * {@code java net.ketama.FindKeys SERVERS_FILE [FLAVOUR]}. Used by the
 * cross-language agreement test.
 */
public final class FindKeys {
    public static void main(String[] args) throws Exception {
        Flavour flavour = args.length > 1 ? Flavour.valueOf(args[1].toUpperCase().replace('-', '_')) : Flavour.LIBKETAMA;
        try (Ring ring = Ring.fromFile(Path.of(args[0]), flavour, Hash.DEFAULT, false);
                BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                BufferedWriter out = new BufferedWriter(new OutputStreamWriter(System.out, StandardCharsets.UTF_8))) {
            for (String key; (key = in.readLine()) != null; ) {
                out.write(key);
                out.write('\t');
                out.write(ring.server(key));
                out.write('\n');
            }
        }
    }
}
