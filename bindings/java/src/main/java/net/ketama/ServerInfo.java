package net.ketama;

/** A server of a ring: address, name (or null), weight as given (0 if none) and its point count. */
public record ServerInfo(String address, String name, long weight, int points) {}
