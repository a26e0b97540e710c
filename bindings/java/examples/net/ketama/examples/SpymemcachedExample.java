package net.ketama.examples;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.ketama.Flavour;
import net.ketama.KetamaNodeLocator;
import net.ketama.KetamaSet;
import net.ketama.SetEncoding;
import net.ketama.SetOp;
import net.ketama.SetWriter;
import net.spy.memcached.AddrUtil;
import net.spy.memcached.CASResponse;
import net.spy.memcached.CASValue;
import net.spy.memcached.DefaultConnectionFactory;
import net.spy.memcached.KetamaConnectionFactory;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.NodeLocator;
import net.spy.memcached.internal.OperationFuture;
import net.spy.memcached.transcoders.SerializingTranscoder;
import net.spy.memcached.transcoders.Transcoder;

/**
 * spymemcached's MemcachedClient with libketama's placement: the
 * ConnectionFactory returns a {@link KetamaNodeLocator}. Stores 300 keys,
 * then checks with one plain client per server that each key is on the
 * server the locator chose, and only there; shows that spymemcached's own
 * KetamaConnectionFactory places keys like the SPYMEMCACHED flavour. Then keeps a set in one key with
 * the library's set codec: append/add through {@link SetWriter}, gets, and
 * cas with the compacted value.
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
            ok = found == 300 && elsewhere == 0 && spymemcachedFlavour(addresses, direct) && setDemo(client);
        } finally {
            client.shutdown(5, TimeUnit.SECONDS);
            direct.forEach(c -> c.shutdown(5, TimeUnit.SECONDS));
        }
        System.exit(ok ? 0 : 1);
    }

    /**
     * spymemcached's own KetamaConnectionFactory places keys exactly where a locator of the
     * library's SPYMEMCACHED flavour says.
     */
    static boolean spymemcachedFlavour(List<String> addresses, List<MemcachedClient> direct) throws Exception {
        MemcachedClient theirs = new MemcachedClient(new KetamaConnectionFactory(), AddrUtil.getAddresses(addresses));
        try {
            NodeLocator ours = new KetamaNodeLocator(new ArrayList<>(theirs.getNodeLocator().getAll()), Flavour.SPYMEMCACHED);
            int agree = 0;
            for (int i = 0; i < 300; i++) {
                String key = "pooled:" + i;
                theirs.set(key, 60, "v").get(5, TimeUnit.SECONDS);
                InetSocketAddress at = (InetSocketAddress) ours.getPrimary(key).getSocketAddress();
                int index = addresses.indexOf(at.getHostString() + ":" + at.getPort());
                agree += "v".equals(direct.get(index).get(key)) ? 1 : 0;
            }
            System.out.println("spymemcached KetamaConnectionFactory placed " + agree + "/300 keys where the SPYMEMCACHED flavour says");
            return agree == 300;
        } finally {
            theirs.shutdown(5, TimeUnit.SECONDS);
        }
    }

    /** Raw byte[] values, never compressed (APPEND concatenates bytes). */
    private static final Transcoder<Object> RAW = raw();

    private static Transcoder<Object> raw() {
        SerializingTranscoder t = new SerializingTranscoder();
        t.setCompressionThreshold(Integer.MAX_VALUE);
        return t;
    }

    /** Adds or removes members with the write recipe; returns the outcome. */
    static SetWriter.Action writeSet(MemcachedClient client, String key, List<String> members, SetOp op) throws Exception {
        byte[] payload = KetamaSet.encode(op, members);
        try (SetWriter writer = new SetWriter(op, 0)) {
            while (!writer.done()) {
                SetWriter.Reply reply;
                if (writer.action() == SetWriter.Action.PROBE) {
                    reply = client.get(key, RAW) != null ? SetWriter.Reply.EXISTS : SetWriter.Reply.NOT_FOUND;
                } else {
                    OperationFuture<Boolean> f = writer.action() == SetWriter.Action.APPEND
                            ? client.append(key, (Object) payload, RAW)
                            : client.add(key, 0, payload, RAW);
                    boolean stored = f.get(5, TimeUnit.SECONDS);
                    String message = f.getStatus().getMessage();
                    reply = stored ? SetWriter.Reply.STORED
                            : message != null && message.contains("too large") ? SetWriter.Reply.TOO_LARGE
                            : SetWriter.Reply.NOT_STORED;
                }
                writer.step(reply);
            }
            return writer.action();
        }
    }

    /** A set in one key: appends, removes, a CAS compaction; true when nothing was lost. */
    static boolean setDemo(MemcachedClient client) throws Exception {
        String key = "followers:alice";
        client.delete(key).get(5, TimeUnit.SECONDS);
        List<SetWriter.Action> outcomes = List.of(
                writeSet(client, key, List.of("bob", "carol"), SetOp.ADD),
                writeSet(client, key, List.of("dave"), SetOp.ADD),
                writeSet(client, key, List.of("bob"), SetOp.REMOVE));
        for (int i = 0; i < 150; i++) {
            writeSet(client, key, List.of("fan" + i), SetOp.ADD);
        }
        for (int i = 0; i < 150; i += 2) {
            writeSet(client, key, List.of("fan" + i), SetOp.REMOVE);
        }
        System.out.println("set " + key + " on " + serverOf(client, key) + ": " + outcomes);

        CASValue<Object> read = client.gets(key, RAW);
        KetamaSet.ReadPlan plan = KetamaSet.planRead((byte[]) read.getValue(), read.getCas(), null, null, false);
        KetamaSet.Stats stats = plan.set().stats();
        plan.set().close();
        System.out.println("read " + stats.members() + " members from " + stats.records() + " records (" + stats.redundant() + " redundant)");
        if (plan.compaction() == null) {
            System.out.println("expected the library to ask for compaction");
            return false;
        }
        CASResponse response = client.cas(key, plan.compaction().cas(), 0, plan.compaction().value(), RAW);
        System.out.println("compacted under CAS: " + response);

        List<String> expected = new ArrayList<>(List.of("carol", "dave"));
        for (int i = 1; i < 150; i += 2) {
            expected.add("fan" + i);
        }
        expected.sort((a, b) -> java.util.Arrays.compare(a.getBytes(), b.getBytes()));
        try (KetamaSet after = KetamaSet.decode((byte[]) client.get(key, RAW))) {
            boolean same = after.memberStrings().equals(expected);
            System.out.println("after compaction: " + after.stats().members() + " members in " + after.stats().records()
                    + " records, " + (same ? "none lost" : "MEMBERS DIFFER"));
            return same && response == CASResponse.OK && after.stats().encoding() == SetEncoding.T1;
        }
    }

    /** host:port of the node the client's locator picks for {@code key}. */
    private static String serverOf(MemcachedClient client, String key) {
        InetSocketAddress a = (InetSocketAddress) client.getNodeLocator().getPrimary(key).getSocketAddress();
        return a.getHostString() + ":" + a.getPort();
    }
}
