package net.ketama;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.function.Function;
import net.spy.memcached.KetamaNodeKeyFormatter;
import net.spy.memcached.MemcachedNode;
import net.spy.memcached.MemcachedNodeROImpl;
import net.spy.memcached.NodeLocator;

/**
 * A spymemcached {@link NodeLocator} backed by libketama.so: a
 * {@code MemcachedClient} places keys exactly like the chosen flavour's
 * client (libketama, php-memcached, spymemcached, ...). Plug it in through a
 * {@code ConnectionFactory} whose {@code createLocator} returns it.
 *
 * <p>Each node is named for the ring by {@code nodeName}; by default as the
 * flavour's client names it ({@link #defaultName}): for the spymemcached
 * flavours like spymemcached's own {@code KetamaNodeKeyFormatter}, so that
 * the continuum equals spymemcached's {@code KetamaNodeLocator}; otherwise
 * {@code host:port}. Keys are passed as their UTF-8 bytes (spymemcached's
 * {@code KeyUtil.getKeyBytes}).
 *
 * <p>{@link #getSequence} yields the other nodes in failover order: the
 * servers the library picks when the previous ones are marked down.
 * {@link #updateLocator} builds a new ring; the old one is released by the
 * garbage collector once no lookup uses it.
 */
public final class KetamaNodeLocator implements NodeLocator {
    /** The ring and the nodes in ring order; replaced as a whole. */
    private record State(Ring ring, List<MemcachedNode> nodes) {}

    private final Flavour flavour;
    private final Hash hash;
    private final Map<InetSocketAddress, Integer> weights;
    private final Function<MemcachedNode, String> nodeName;
    private volatile State state;

    /** Unweighted nodes, the flavour's own key hash, nodes named as the flavour's client names them. */
    public KetamaNodeLocator(List<MemcachedNode> nodes, Flavour flavour) {
        this(nodes, flavour, Hash.DEFAULT, Collections.emptyMap(), defaultName(flavour));
    }

    /**
     * How the flavour's client spells a node: {@link #spymemcachedName()} for
     * {@code SPYMEMCACHED}, {@link #hostNamePort()} for {@code SPYMEMCACHED_LIBMEMCACHED}
     * (the library drops a default port itself), {@link #hostPortName()} otherwise.
     */
    public static Function<MemcachedNode, String> defaultName(Flavour flavour) {
        return switch (flavour) {
            case SPYMEMCACHED -> spymemcachedName();
            case SPYMEMCACHED_LIBMEMCACHED -> hostNamePort();
            default -> hostPortName();
        };
    }

    /**
     * @param weights weight per node address (absent: the flavour's default)
     * @param nodeName how a node's address is spelled on the ring
     */
    public KetamaNodeLocator(List<MemcachedNode> nodes, Flavour flavour, Hash hash,
            Map<InetSocketAddress, Integer> weights, Function<MemcachedNode, String> nodeName) {
        this.flavour = flavour;
        this.hash = hash;
        this.weights = weights;
        this.nodeName = nodeName;
        this.state = build(nodes);
    }

    /** spymemcached's own node spelling ({@code KetamaNodeKeyFormatter}, SPYMEMCACHED format). */
    public static Function<MemcachedNode, String> spymemcachedName() {
        return node -> {
            String key = new KetamaNodeKeyFormatter(KetamaNodeKeyFormatter.Format.SPYMEMCACHED).getKeyForNode(node, 0);
            return key.substring(0, key.length() - 2); // without "-0"
        };
    }

    /**
     * {@code getHostName():port}, the host part of spymemcached's LIBMEMCACHED node keys
     * (note that {@code getHostName} may do a reverse DNS lookup for an address without a name).
     */
    public static Function<MemcachedNode, String> hostNamePort() {
        return node -> {
            SocketAddress a = node.getSocketAddress();
            if (a instanceof InetSocketAddress isa) {
                return isa.getHostName() + ":" + isa.getPort();
            }
            return String.valueOf(a);
        };
    }

    /** {@code host:port} with the host as given (no DNS lookup): the libketama file spelling. */
    public static Function<MemcachedNode, String> hostPortName() {
        return node -> {
            SocketAddress a = node.getSocketAddress();
            if (a instanceof InetSocketAddress isa) {
                return isa.getHostString() + ":" + isa.getPort();
            }
            return String.valueOf(a);
        };
    }

    private State build(List<MemcachedNode> nodes) {
        List<Server> servers = new ArrayList<>(nodes.size());
        for (MemcachedNode node : nodes) {
            Integer weight = node.getSocketAddress() instanceof InetSocketAddress isa ? weights.get(isa) : null;
            servers.add(new Server(nodeName.apply(node), weight == null ? 0 : weight));
        }
        return new State(Ring.fromServers(servers, flavour, hash), List.copyOf(nodes));
    }

    @Override
    public MemcachedNode getPrimary(String key) {
        State s = state;
        return s.nodes.get(s.ring.serverIndex(key.getBytes(StandardCharsets.UTF_8)));
    }

    @Override
    public Iterator<MemcachedNode> getSequence(String key) {
        State s = state;
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        int first = s.ring.serverIndex(bytes);
        return new Iterator<>() {
            /** Indices already handed out (the primary first): the "down" list of the next lookup. */
            private int[] returned = {first};
            private int next = advance();

            /** The next failover server, or -1 once every server owning points was returned. */
            private int advance() {
                if (returned.length >= s.nodes.size()) {
                    return -1;
                }
                try {
                    return s.ring.findAvoiding(bytes, returned).serverIndex();
                } catch (KetamaException e) {
                    return -1; // KETAMA_ERR_NO_SERVER_AVAILABLE: the rest own no points
                }
            }

            @Override
            public boolean hasNext() {
                return next >= 0;
            }

            @Override
            public MemcachedNode next() {
                if (next < 0) {
                    throw new NoSuchElementException();
                }
                int index = next;
                returned = grow(returned, index);
                next = advance();
                return s.nodes.get(index);
            }
        };
    }

    private static int[] grow(int[] a, int value) {
        int[] b = java.util.Arrays.copyOf(a, a.length + 1);
        b[a.length] = value;
        return b;
    }

    @Override
    public Collection<MemcachedNode> getAll() {
        return state.nodes;
    }

    @Override
    public NodeLocator getReadonlyCopy() {
        List<MemcachedNode> copies = new ArrayList<>();
        for (MemcachedNode node : state.nodes) {
            copies.add(new MemcachedNodeROImpl(node));
        }
        return new KetamaNodeLocator(copies, flavour, hash, weights, nodeName);
    }

    @Override
    public void updateLocator(List<MemcachedNode> nodes) {
        state = build(nodes);
    }

    /** The ring in use (for inspection; do not close it). */
    public Ring ring() {
        return state.ring;
    }
}
