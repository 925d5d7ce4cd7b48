package dev.kvs.core.internal;

import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A store's use counters and the {@code maxEntries}/{@code maxBytes} limits they are held to.
 *
 * <p>A write first {@link #reserve reserves} the growth it needs (or fails with nothing reserved),
 * then either {@link #commit commits} the whole change or {@link #cancel cancels} the reservation.
 * Shrinking parts of a change are applied only on commit, so a failed write never frees room it did
 * not free. Thread-safe; the counters are exact when no write is in flight.
 */
final class Capacity {
    private final long maxEntries;
    private final long maxBytes;
    private final AtomicLong entries = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong keyBytes = new AtomicLong();
    private final AtomicLong live = new AtomicLong();

    Capacity(StoreConfig config) {
        this.maxEntries = config.maxEntries();
        this.maxBytes = config.maxBytes();
    }

    /** @throws StoreFullException if the growth in {@code d} does not fit; nothing is reserved then */
    void reserve(Delta d) {
        if (d.entries() > 0) grow(entries, d.entries(), maxEntries, "entries", "maxEntries");
        if (d.bytes() > 0) {
            try {
                grow(bytes, d.bytes(), maxBytes, "bytes", "maxBytes");
            } catch (StoreFullException e) {
                if (d.entries() > 0) entries.addAndGet(-d.entries());
                throw e;
            }
        }
    }

    void cancel(Delta d) {
        if (d.entries() > 0) entries.addAndGet(-d.entries());
        if (d.bytes() > 0) bytes.addAndGet(-d.bytes());
    }

    void commit(Delta d) {
        if (d.entries() < 0) entries.addAndGet(d.entries());
        if (d.bytes() < 0) bytes.addAndGet(d.bytes());
        keyBytes.addAndGet(d.keyBytes());
        live.addAndGet(d.live());
    }

    /** Sets the counters, e.g. after clearing the store or recounting a recovered one. */
    void reset(long entryCount, long liveCount, long keyByteCount, long valueByteCount) {
        entries.set(entryCount);
        live.set(liveCount);
        keyBytes.set(keyByteCount);
        bytes.set(keyByteCount + valueByteCount);
    }

    long entries() {
        return entries.get();
    }

    long live() {
        return live.get();
    }

    long keyBytes() {
        return keyBytes.get();
    }

    long valueBytes() {
        return bytes.get() - keyBytes.get();
    }

    long maxEntries() {
        return maxEntries;
    }

    long maxBytes() {
        return maxBytes;
    }

    private static void grow(AtomicLong counter, long growth, long max, String unit, String limit) {
        while (true) {
            long current = counter.get();
            if (current + growth > max) {
                String what = growth == 1 ? current + " " + unit : current + " " + unit + " + " + growth + " new";
                throw new StoreFullException("store full: " + what + " (" + limit + " " + max + ")");
            }
            if (counter.compareAndSet(current, current + growth)) return;
        }
    }
}
