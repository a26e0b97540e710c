package net.ketama;

/**
 * A server to build a ring from: its address as the client spells it, its
 * weight (0 = the flavour's default) and an optional name (null for none).
 */
public record Server(String address, long weight, String name) {
    /** An unweighted server. */
    public Server(String address) {
        this(address, 0, null);
    }

    /** A weighted server. */
    public Server(String address, long weight) {
        this(address, weight, null);
    }
}
