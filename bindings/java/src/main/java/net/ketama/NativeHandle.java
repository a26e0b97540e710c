package net.ketama;

import java.lang.ref.Cleaner;
import java.util.concurrent.locks.StampedLock;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * A native object owned by a Java object: freed exactly once, by
 * {@link #close()} or, if never closed, by a {@link Cleaner} once the owner
 * is unreachable. Uses hold a read lock that {@code close} waits for, so a
 * use racing with close either completes or throws IllegalStateException.
 */
final class NativeHandle {
    private static final Cleaner CLEANER = Cleaner.create();

    private final long pointer;
    private final String what;
    private final Cleaner.Cleanable cleanable;
    private final StampedLock lock = new StampedLock();
    private boolean closed;

    /** Takes ownership of {@code pointer} for {@code owner}; {@code free} releases it. */
    NativeHandle(Object owner, long pointer, LongConsumer free, String what) {
        this.pointer = pointer;
        this.what = what;
        this.cleanable = CLEANER.register(owner, () -> free.accept(pointer));
    }

    /** Runs {@code use} with the live pointer. @throws IllegalStateException once closed */
    <T> T with(LongFunction<T> use) {
        long stamp = lock.readLock();
        try {
            if (closed) {
                throw new IllegalStateException(what + " is closed");
            }
            return use.apply(pointer);
        } finally {
            lock.unlockRead(stamp);
        }
    }

    /** Frees the native object. @throws IllegalStateException when already closed */
    void close() {
        long stamp = lock.writeLock();
        try {
            if (closed) {
                throw new IllegalStateException(what + " already closed");
            }
            closed = true;
            cleanable.clean();
        } finally {
            lock.unlockWrite(stamp);
        }
    }

    boolean isClosed() {
        long stamp = lock.readLock();
        try {
            return closed;
        } finally {
            lock.unlockRead(stamp);
        }
    }
}
