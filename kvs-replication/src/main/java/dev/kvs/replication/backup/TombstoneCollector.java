package dev.kvs.replication.backup;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import java.util.function.BiPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Removes the backup's tombstones once they order nothing any more.
 *
 * <p>A tombstone of TxId {@code t} stops an older value of its key from being applied. Once every key
 * packet up to {@code t} has arrived ({@link BackupApplier#contiguous()}) and the key awaits no value
 * of {@code t} or before, the applier discards such a value without looking at the store (nothing
 * awaits it), so the tombstone can go. Most tombstones never stay: a delete whose key packet came
 * first removes the record at once ({@link BackupApplier#apply}). The rest (a delete's value that
 * overtook its key packet, a rename's source, an expiry, a resync's removals, a store that held
 * tombstones when the backup started) are {@link #defer deferred} here, or found by a sweep of the
 * store once it holds more than {@link #sweepAbove()} tombstones.
 *
 * <p>Thread-safe; {@link #collect} runs on one thread at a time (the listener's walker).
 */
final class TombstoneCollector {
    private static final Logger log = LoggerFactory.getLogger(TombstoneCollector.class);
    /** Deferred tombstones remembered at most; past that the next collection sweeps the store. */
    static final int MAX_DEFERRED = 65_536;

    private record Deferred(ByteKey key, TxId txId) {}

    private final KvStore store;
    /** Whether the key still awaits a value of that TxId or an older one: then its tombstone stays. */
    private final BiPredicate<byte[], TxId> awaited;

    private final BackupCounters counters;
    private final long sweepAbove;
    private final Object lock = new Object();
    private final PriorityQueue<Deferred> deferred = // lock
            new PriorityQueue<>((a, b) -> a.txId.compareTo(b.txId));
    private boolean overflowed; // lock
    /** The contiguous TxId of the last sweep: a sweep before it advances would find the same. */
    private TxId sweptAt;

    TombstoneCollector(KvStore store, BiPredicate<byte[], TxId> awaited, BackupCounters counters) {
        this.store = store;
        this.awaited = awaited;
        this.counters = counters;
        this.sweepAbove = store.config().tombstoneReserve() / 2;
        // a store that already holds records may hold tombstones of any age: look once
        this.overflowed = store.stats().entries() > 0;
    }

    /**
     * Tombstones the store may hold before a sweep looks for them: half its tombstone reserve ({@link
     * dev.kvs.core.StoreConfig#tombstoneReserve}). Only tombstones that cannot be collected yet stay
     * beyond it.
     */
    long sweepAbove() {
        return sweepAbove;
    }

    /** A tombstone of {@code txId} was written for {@code key}: collect it once it orders nothing. */
    void defer(byte[] key, TxId txId) {
        synchronized (lock) {
            if (overflowed) return; // the sweep will find it
            if (deferred.size() >= MAX_DEFERRED) {
                overflowed = true;
                deferred.clear();
                return;
            }
            deferred.add(new Deferred(new ByteKey(key), txId));
        }
    }

    /**
     * Removes the tombstones that order nothing once every key packet up to {@code contiguous} has
     * arrived: the deferred ones up to it, and, if the store holds more than {@link #sweepAbove()}
     * tombstones (or more were deferred than remembered), every such tombstone of the store.
     *
     * @return the tombstones removed
     */
    long collect(TxId contiguous) {
        if (contiguous.equals(TxId.ZERO)) return 0; // no key packet yet: nothing is settled
        List<Deferred> due = new ArrayList<>();
        boolean sweep;
        synchronized (lock) {
            while (!deferred.isEmpty() && deferred.peek().txId.compareTo(contiguous) <= 0) due.add(deferred.poll());
            sweep = overflowed;
        }
        long removed = 0;
        for (Deferred d : due) {
            Write w = store.update(
                    d.key.bytes(), h -> collectable(d.key.bytes(), h, contiguous) ? Write.remove() : Write.keep());
            if (w instanceof Write.Remove) removed++;
        }
        if (!sweep && store.tombstones() > sweepAbove && !contiguous.equals(sweptAt)) sweep = true;
        if (sweep) {
            synchronized (lock) {
                overflowed = false;
            }
            long swept = store.removeIf((key, h) -> collectable(key, h, contiguous));
            sweptAt = contiguous;
            counters.tombstoneSweeps.increment();
            log.info("tombstone sweep up to {}: {} removed, {} left", contiguous, swept, store.tombstones());
            removed += swept;
        }
        counters.tombstonesCollected.add(removed);
        return removed;
    }

    /** True if a deferred tombstone is at or before {@code contiguous}: a collection would remove it. */
    boolean due(TxId contiguous) {
        synchronized (lock) {
            return overflowed || (!deferred.isEmpty() && deferred.peek().txId.compareTo(contiguous) <= 0);
        }
    }

    /** Tombstones deferred and not collected yet. */
    int deferred() {
        synchronized (lock) {
            return deferred.size();
        }
    }

    private boolean collectable(byte[] key, RecordHeader h, TxId contiguous) {
        return h != null
                && h.state() == RecordState.TOMBSTONE
                && h.txId().compareTo(contiguous) <= 0
                && !awaited.test(key, h.txId());
    }
}
