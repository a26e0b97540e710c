import java.nio.file.Path;
import net.ketama.Location;
import net.ketama.Ring;

/**
 * The smallest use of the jar: which server of a libketama server file holds
 * each key. Prints "KEY<TAB>ADDRESS<TAB>POINT" per key. Built and run with
 * the lines of the README's "Installing" section (make java first).
 */
public final class FindServer {
    private FindServer() {}

    public static void main(String[] args) {
        if (args.length < 1) {
            System.err.println("usage: FindServer SERVERS_FILE [KEY...]");
            System.exit(2);
        }
        try (Ring ring = Ring.fromFile(Path.of(args[0]))) {
            for (int i = 1; i < args.length; i++) {
                Location location = ring.find(args[i]);
                System.out.println(args[i] + "\t" + location.address() + "\t" + location.point());
            }
        }
    }
}
