// Prints what the JVM prints for each socket address, for
// crates/ketama-core/tests/peers/xmemcached.rs: xmemcached labels a ketama
// server with String.valueOf(InetSocketAddress) of its connection.
//
//   java SocketStrings FILE   FILE: "HOST PORT" lines, HOST an IP literal
//                             (no DNS); one String.valueOf per line
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Paths;

public class SocketStrings {
    public static void main(String[] args) throws Exception {
        for (String line : Files.readAllLines(Paths.get(args[0]))) {
            if (line.isEmpty()) continue;
            String[] f = line.split(" ");
            InetAddress ip = InetAddress.getByName(f[0]);
            System.out.println(String.valueOf(new InetSocketAddress(ip, Integer.parseInt(f[1]))));
        }
    }
}
