package dev.kvs.server.internal;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The ids of one node's client connections ({@code CLIENT ID}): 1, 2, 3... in the order they were
 * accepted, never reused while the node runs. Thread-safe.
 */
public final class ClientIds {
    private final AtomicLong last = new AtomicLong();

    /** The id of the next connection. */
    public long next() {
        return last.incrementAndGet();
    }
}
