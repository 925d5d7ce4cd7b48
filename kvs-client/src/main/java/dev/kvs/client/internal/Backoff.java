package dev.kvs.client.internal;

import java.util.concurrent.TimeUnit;

/** Delays between retries of an {@code -UNFINISHED} request: 10 ms doubling up to 500 ms. */
final class Backoff {
    static final long FIRST_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    static final long MAX_NANOS = TimeUnit.MILLISECONDS.toNanos(500);

    private Backoff() {}

    /** The delay before retry number {@code retry} (0 for the first retry). */
    static long delayNanos(int retry) {
        if (retry < 0) throw new IllegalArgumentException("retry < 0: " + retry);
        if (retry >= 6) return MAX_NANOS; // 10 ms << 6 is already past the cap
        return Math.min(FIRST_NANOS << retry, MAX_NANOS);
    }
}
