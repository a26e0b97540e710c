package net.ketama.examples;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.ketama.Flavour;
import net.ketama.KetamaNodeLocator;
import net.spy.memcached.AddrUtil;
import net.spy.memcached.DefaultConnectionFactory;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;

/**
 * spymemcached's MemcachedClient with libketama's placement: the
 * ConnectionFactory returns a {@link KetamaNodeLocator}. Stores 300 keys,
 * then checks with one plain client per server that each key is on the
 * server the locator chose, and only there.
 *
 * <pre>bindings/java/run.sh net.ketama.examples.SpymemcachedExample 127.0.0.1:11211 127.0.0.1:11212 ...</pre>
 */
public final class SpymemcachedExample {
    public static void main(String[] args) throws Exception {
        List<String> addresses = args.length > 0 ? List.of(args) : List.of("127.0.0.1:11211", "127.0.0.1:11212", "127.0.0.1:11213");
        MemcachedClient client = new MemcachedClient(new DefaultConnectionFactory() {
            @Override
            public NodeLocator createLocator(List<MemcachedNode> nodes) {
                return new KetamaNodeLocator(nodes, Flavour.LIBKETAMA);
            }
        }, AddrUtil.getAddresses(addresses));
        List<MemcachedClient> direct = new ArrayList<>();
        for (String address : addresses) {
            direct.add(new MemcachedClient(AddrUtil.getAddresses(address)));
        }
        boolean ok = true;
        try {
            Map<String, Integer> perServer = new LinkedHashMap<>();
            addresses.forEach(a -> perServer.put(a, 0));
            for (int i = 0; i < 300; i++) {
                String key = "user:" + i;
                if (!client.set(key, 60, "value of " + key).get(5, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("set " + key + " failed");
                }
                perServer.merge(serverOf(client, key), 1, Integer::sum);
            }
            StringBuilder line = new StringBuilder("placed 300 keys:");
            perServer.forEach((a, n) -> line.append(' ').append(a).append('=').append(n));
            System.out.println(line);

            int found = 0;
            int elsewhere = 0;
            for (int i = 0; i < 300; i++) {
                String key = "user:" + i;
                String home = serverOf(client, key);
                for (int s = 0; s < addresses.size(); s++) {
                    Object value = direct.get(s).get(key);
                    if (addresses.get(s).equals(home)) {
                        found += ("value of " + key).equals(value) ? 1 : 0;
                    } else if (value != null) {
                        elsewhere++;
                    }
                }
            }
            System.out.println("read back " + found + "/300 keys from their servers, " + elsewhere + " found elsewhere");
            ok = found == 300 && elsewhere == 0;
        } finally {
            client.shutdown(5, TimeUnit.SECONDS);
            direct.forEach(c -> c.shutdown(5, TimeUnit.SECONDS));
        }
        System.exit(ok ? 0 : 1);
    }

    /** host:port of the node the client's locator picks for {@code key}. */
    private static String serverOf(MemcachedClient client, String key) {
        InetSocketAddress a = (InetSocketAddress) client.getNodeLocator().getPrimary(key).getSocketAddress();
        return a.getHostString() + ":" + a.getPort();
    }
}
