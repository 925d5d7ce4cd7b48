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
    /** Entries beyond {@link #maxEntries} for growth by tombstones only: see {@link StoreConfig#tombstoneReserve}. */
    private final long tombstoneEntries;

    private final long maxBytes;
    private final AtomicLong entries = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong keyBytes = new AtomicLong();
    private final AtomicLong live = new AtomicLong();

    Capacity(StoreConfig config) {
        this.maxEntries = config.maxEntries();
        this.tombstoneEntries = maxEntries + config.tombstoneReserve();
        this.maxBytes = config.maxBytes();
    }

    /** @throws StoreFullException if the growth in {@code d} does not fit; nothing is reserved then */
    void reserve(Delta d) {
        if (d.entries() > 0 && !tryGrow(entries, d.entries(), entryLimit(d))) {
            throw full(entries.get(), d.entries(), "entries", "maxEntries", maxEntries);
        }
        // a tombstone made live again takes no entry, but counts as live: the reserve is for tombstones
        if (d.live() > 0 && !tryGrow(live, d.live(), maxEntries)) {
            if (d.entries() > 0) entries.addAndGet(-d.entries());
            throw full(live.get(), d.live(), "live keys", "maxEntries", maxEntries);
        }
        if (d.bytes() > 0 && !tryGrow(bytes, d.bytes(), maxBytes)) {
            if (d.entries() > 0) entries.addAndGet(-d.entries());
            if (d.live() > 0) live.addAndGet(-d.live());
            throw full(bytes.get(), d.bytes(), "bytes", "maxBytes", maxBytes);
        }
    }

    /** Like {@link #reserve} but answers false instead of throwing. */
    boolean tryReserve(Delta d) {
        try {
            reserve(d);
            return true;
        } catch (StoreFullException e) {
            return false;
        }
    }

    /**
     * Commits {@code actual} in place of a reservation of {@code reserved}, which must have grown
     * each limited counter at least as much (an overwrite reserved as if it were an insert).
     */
    void settle(Delta reserved, Delta actual) {
        add(entries, actual.entries() - Math.max(0, reserved.entries()));
        add(live, actual.live() - Math.max(0, reserved.live()));
        add(bytes, actual.bytes() - Math.max(0, reserved.bytes()));
        add(keyBytes, actual.keyBytes());
    }

    void cancel(Delta d) {
        if (d.entries() > 0) entries.addAndGet(-d.entries());
        if (d.live() > 0) live.addAndGet(-d.live());
        if (d.bytes() > 0) bytes.addAndGet(-d.bytes());
    }

    void commit(Delta d) {
        if (d.entries() < 0) entries.addAndGet(d.entries());
        if (d.live() < 0) live.addAndGet(d.live());
        if (d.bytes() < 0) bytes.addAndGet(d.bytes());
        add(keyBytes, d.keyBytes());
    }

    /** A change that adds no live record (only tombstones) may use the tombstone reserve too. */
    private long entryLimit(Delta d) {
        return d.live() <= 0 ? tombstoneEntries : maxEntries;
    }

    /** Adds {@code n} unless it is 0: the counters are shared by every writing thread. */
    private static void add(AtomicLong counter, long n) {
        if (n != 0) counter.addAndGet(n);
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

    private static boolean tryGrow(AtomicLong counter, long growth, long max) {
        while (true) {
            long current = counter.get();
            if (current + growth > max) return false;
            if (counter.compareAndSet(current, current + growth)) return true;
        }
    }

    private static StoreFullException full(long current, long growth, String unit, String limit, long max) {
        String what = growth == 1 ? current + " " + unit : current + " " + unit + " + " + growth + " new";
        return new StoreFullException("store full: " + what + " (" + limit + " " + max + ")");
    }
}
