package dev.kvs.server.internal.resp;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The node-wide budget of bytes the client port's decoders hold for bulk strings ahead of their
 * arrival ({@code bulkPreallocBytes}): a large bulk string gets its final buffer when its header
 * arrives (no doubling copies), charged with the bytes still to come and released as they arrive, when
 * the bulk completes or when its connection closes. When the budget is spent a decoder falls back to
 * growing the buffer as bytes arrive, so clients announcing huge bulks and sending nothing hold at most
 * this many bytes beyond what they sent. Thread-safe.
 */
final class BulkPreallocBudget {
    private final long limit;
    private final AtomicLong charged = new AtomicLong();

    BulkPreallocBudget(long limit) {
        if (limit < 0) throw new IllegalArgumentException("limit < 0: " + limit);
        this.limit = limit;
    }

    /** Charges {@code bytes} if the budget has room for them; false (nothing charged) if not. */
    boolean tryCharge(long bytes) {
        if (bytes > limit) return false;
        while (true) {
            long c = charged.get();
            if (c + bytes > limit) return false;
            if (charged.compareAndSet(c, c + bytes)) return true;
        }
    }

    /** Gives back {@code bytes} charged earlier. */
    void release(long bytes) {
        if (bytes != 0) charged.addAndGet(-bytes);
    }

    /** Bytes charged now: preallocated but not yet received. */
    long charged() {
        return charged.get();
    }

    long limit() {
        return limit;
    }
}
