package net.ketama;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import net.spy.memcached.CASResponse;
import net.spy.memcached.CASValue;
import net.spy.memcached.ConnectionFactory;
import net.spy.memcached.DefaultConnectionFactory;
import net.spy.memcached.MemcachedClient;
import net.spy.memcached.internal.OperationFuture;
import net.spy.memcached.ops.StatusCode;

/**
 * spymemcached's {@code get}, {@code getBulk}, {@code set}, {@code add} and {@code delete}
 * across a {@link Migration} from the ring of {@code oldServers} to the ring of
 * {@code newServers} ({@code "HOST:PORT"} strings):
 *
 * <pre>{@code
 * MigratingMemcachedClient cache = new MigratingMemcachedClient(oldServers, newServers,
 *         "libketama", "libketama", MigrationMode.WARMUP, 0, "interval=60s,warmup=1h");
 * }</pre>
 *
 * <p>Every decision is the library's: which server to ask, in which order, with which
 * command, and what the answer is. This class only sends each command on a
 * {@link MemcachedClient} of that one server and feeds back the reply. Writes are
 * synchronous (they return once acknowledged); an operation a server failed throws
 * {@link MigrationFailedException}. Values go through spymemcached's default transcoder.
 */
public final class MigratingMemcachedClient implements AutoCloseable {
    private final Migration migration;
    private final long timeoutMs;
    private final Map<String, MemcachedClient> servers = new LinkedHashMap<>();

    /** An operation a server needed did not answer: it is not acknowledged. */
    public static final class MigrationFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        MigrationFailedException(String message) {
            super(message);
        }
    }

    /**
     * Connects one spymemcached client to every server of both lists.
     *
     * @param fromFlavour the old ring's flavour name, {@code toFlavour} the new one's
     * @param startMs milliseconds since the Unix epoch; 0: now
     * @param options the schedule and TTLs as the library reads them; null: its defaults
     * @throws IOException when a client cannot be created
     */
    public MigratingMemcachedClient(List<String> oldServers, List<String> newServers, String fromFlavour,
            String toFlavour, MigrationMode mode, long startMs, String options) throws IOException {
        this(oldServers, newServers, fromFlavour, toFlavour, mode, startMs, options, new DefaultConnectionFactory());
    }

    /**
     * As the constructor above, each server's client made with {@code factory} (its operation
     * timeout bounds every command; a command that times out fails the operation).
     *
     * @throws IOException when a client cannot be created
     */
    public MigratingMemcachedClient(List<String> oldServers, List<String> newServers, String fromFlavour,
            String toFlavour, MigrationMode mode, long startMs, String options, ConnectionFactory factory)
            throws IOException {
        this.timeoutMs = factory.getOperationTimeout();
        try (Ring oldRing = Ring.fromServers(servers(oldServers), fromFlavour, null);
                Ring newRing = Ring.fromServers(servers(newServers), toFlavour, null)) {
            this.migration = Migration.create(oldRing, newRing, mode, startMs, options);
        }
        List<String> all = new ArrayList<>(oldServers);
        all.addAll(newServers);
        for (String address : all) {
            if (!servers.containsKey(address)) {
                int colon = address.lastIndexOf(':');
                servers.put(address, new MemcachedClient(factory, List.of(new InetSocketAddress(
                        address.substring(0, colon), Integer.parseInt(address.substring(colon + 1))))));
            }
        }
    }

    private static List<Server> servers(List<String> addresses) {
        List<Server> list = new ArrayList<>();
        for (String address : addresses) {
            list.add(new Server(address));
        }
        return list;
    }

    /** The migration (routes and phases). */
    public Migration migration() {
        return migration;
    }

    /** The key's value, or null on a miss. */
    public Object get(String key) {
        Result r = run(MigrationOp.GET, key, null, 0);
        return r.outcome == MigrationOutcome.HIT_NEW || r.outcome == MigrationOutcome.HIT_OLD ? r.value : null;
    }

    /** The values of the keys that hit, by key. */
    public Map<String, Object> getBulk(Collection<String> keys) {
        Map<String, Object> found = new LinkedHashMap<>();
        for (String key : keys) {
            Object value = get(key);
            if (value != null) {
                found.put(key, value);
            }
        }
        return found;
    }

    /** Stores the value with TTL {@code exp}; true once acknowledged. */
    public boolean set(String key, int exp, Object value) {
        return run(MigrationOp.SET, key, value, exp).outcome == MigrationOutcome.STORED;
    }

    /** Stores the value if the key holds none; true when stored. */
    public boolean add(String key, int exp, Object value) {
        return run(MigrationOp.ADD, key, value, exp).outcome == MigrationOutcome.STORED;
    }

    /** Deletes the key on every side the migration names; true when it held a value. */
    public boolean delete(String key) {
        return run(MigrationOp.DELETE, key, null, 0).outcome == MigrationOutcome.DELETED;
    }

    /** Shuts every connection down and releases the migration. */
    @Override
    public void close() {
        for (MemcachedClient client : servers.values()) {
            client.shutdown(timeoutMs, TimeUnit.MILLISECONDS);
        }
        migration.close();
    }

    private record Result(MigrationOutcome outcome, Object value) {}

    private record Reply(MigrationReply kind, Object value, long cas) {}

    private Result run(MigrationOp kind, String key, Object value, int exp) {
        Object oldValue = null;
        Object newValue = null;
        try (Migration.Operation op = migration.begin(kind, key, 0)) {
            for (Migration.Step step = op.step(); step != null; step = op.step()) {
                Object sent = switch (step.command()) {
                    case CAS_COPY -> oldValue;
                    case ADD_LEASE -> new String(step.lease(), StandardCharsets.UTF_8);
                    default -> value;
                };
                int ttl = step.exptime() == null ? exp : step.exptime();
                Reply reply;
                try {
                    reply = send(servers.get(step.address()), step, key, sent, ttl, timeoutMs);
                } catch (RuntimeException | InterruptedException | java.util.concurrent.ExecutionException
                        | java.util.concurrent.TimeoutException e) {
                    if (e instanceof InterruptedException) {
                        Thread.currentThread().interrupt();
                    }
                    reply = new Reply(MigrationReply.FAILED, null, 0);
                }
                if (reply.kind() == MigrationReply.HIT) {
                    if (step.side() == MigrationSide.OLD) {
                        oldValue = reply.value();
                    } else {
                        newValue = reply.value();
                    }
                }
                op.reply(reply.kind(), bytes(reply.value()), reply.cas());
            }
            MigrationOutcome outcome = op.outcome();
            if (outcome == MigrationOutcome.FAILED) {
                throw new MigrationFailedException(kind.name().toLowerCase() + " " + key
                        + ": a server failed during the migration");
            }
            return new Result(outcome, outcome == MigrationOutcome.HIT_NEW ? newValue : oldValue);
        }
    }

    /** A value's bytes as the library sees them (a lease is ASCII, stored as a String). */
    private static byte[] bytes(Object value) {
        if (value instanceof byte[] b) {
            return b;
        }
        return value instanceof String s ? s.getBytes(StandardCharsets.UTF_8) : new byte[0];
    }

    private static Reply send(MemcachedClient client, Migration.Step step, String key, Object value, int ttl,
            long timeoutMs)
            throws InterruptedException, java.util.concurrent.ExecutionException,
            java.util.concurrent.TimeoutException {
        switch (step.command()) {
            case GET: {
                Object found = client.get(key);
                return found == null ? new Reply(MigrationReply.MISS, null, 0) : new Reply(MigrationReply.HIT, found, 0);
            }
            case GETS: {
                CASValue<Object> found = client.gets(key);
                return found == null ? new Reply(MigrationReply.MISS, null, 0)
                        : new Reply(MigrationReply.HIT, found.getValue(), found.getCas());
            }
            case CAS_COPY:
            case CAS_VALUE: {
                CASResponse r = client.cas(key, step.cas(), ttl, value);
                return new Reply(switch (r) {
                    case OK -> MigrationReply.STORED;
                    case EXISTS -> MigrationReply.EXISTS;
                    case NOT_FOUND -> MigrationReply.NOT_FOUND;
                    default -> MigrationReply.FAILED;
                }, null, 0);
            }
            case DELETE:
                return status(client.delete(key), MigrationReply.DELETED, timeoutMs);
            case SET:
                return status(client.set(key, ttl, value), MigrationReply.STORED, timeoutMs);
            default: // ADD, ADD_LEASE
                return status(client.add(key, ttl, value), MigrationReply.STORED, timeoutMs);
        }
    }

    /** The reply of a storage or delete command, from its status code. */
    private static Reply status(OperationFuture<Boolean> future, MigrationReply success, long timeoutMs)
            throws InterruptedException, java.util.concurrent.ExecutionException,
            java.util.concurrent.TimeoutException {
        if (Boolean.TRUE.equals(future.get(timeoutMs, TimeUnit.MILLISECONDS))) {
            return new Reply(success, null, 0);
        }
        StatusCode code = future.getStatus().getStatusCode();
        MigrationReply kind = switch (code) {
            case ERR_NOT_FOUND -> MigrationReply.NOT_FOUND;
            case ERR_NOT_STORED, ERR_EXISTS -> success == MigrationReply.STORED ? MigrationReply.NOT_STORED
                    : MigrationReply.FAILED;
            default -> MigrationReply.FAILED;
        };
        return new Reply(kind, null, 0);
    }
}
