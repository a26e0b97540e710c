package net.ketama;

/**
 * Where a key landed: the server's index in input order and address, the
 * continuum point that was hit (unsigned, as a long) and its index.
 */
public record Location(int serverIndex, String address, long point, long pointIndex) {}
