package dev.kvs.replication.primary;

import java.util.concurrent.locks.LockSupport;

/** A token bucket of bytes per second with a one-second burst; 0 means unlimited. Single-threaded. */
final class RateLimiter {
    private final long bytesPerSecond;
    private double tokens;
    private long lastNanos = System.nanoTime();

    RateLimiter(long bytesPerSecond) {
        this.bytesPerSecond = bytesPerSecond;
        this.tokens = bytesPerSecond;
    }

    /** No cap: {@link #acquire} never waits. */
    boolean unlimited() {
        return bytesPerSecond <= 0;
    }

    void acquire(int bytes) {
        if (bytesPerSecond <= 0) return;
        while (true) {
            long now = System.nanoTime();
            tokens = Math.min(bytesPerSecond, tokens + (now - lastNanos) * bytesPerSecond / 1e9);
            lastNanos = now;
            if (tokens >= Math.min(bytes, bytesPerSecond)) {
                tokens -= bytes; // may go negative for a chunk larger than the burst: paid back later
                return;
            }
            double missing = Math.min(bytes, bytesPerSecond) - tokens;
            LockSupport.parkNanos((long) (missing * 1e9 / bytesPerSecond));
        }
    }
}
