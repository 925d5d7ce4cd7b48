package dev.kvs.core.internal;

import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;

/**
 * How one write (or a batch of them) changes a store's counters.
 *
 * @param entries change in records held, tombstones included
 * @param live change in records that are not tombstones
 * @param keyBytes change in bytes of keys held
 * @param valueBytes change in bytes of values held
 */
record Delta(long entries, long live, long keyBytes, long valueBytes) {
    static final Delta NONE = new Delta(0, 0, 0, 0);

    /**
     * The change made by replacing a key's record (absent if {@code hadOld} is false) with {@code
     * next}, or removing it if {@code next} is null.
     */
    static Delta of(int keyLength, boolean hadOld, boolean oldLive, long oldValueBytes, StoredValue next) {
        return of(
                keyLength,
                hadOld,
                oldLive,
                oldValueBytes,
                next != null,
                next != null && next.state() != RecordState.TOMBSTONE,
                next != null ? next.value().length : 0);
    }

    /** The change made by replacing a key's record (absent if {@code hadOld} is false) with a live one. */
    static Delta ofLive(int keyLength, boolean hadOld, boolean oldLive, long oldValueBytes, long nextValueBytes) {
        return of(keyLength, hadOld, oldLive, oldValueBytes, true, true, nextValueBytes);
    }

    private static Delta of(
            int keyLength,
            boolean hadOld,
            boolean oldLive,
            long oldValueBytes,
            boolean hasNext,
            boolean nextLive,
            long nextValueBytes) {
        long entries = (hasNext ? 1 : 0) - (hadOld ? 1 : 0);
        long live = (nextLive ? 1 : 0) - (hadOld && oldLive ? 1 : 0);
        return new Delta(entries, live, (long) keyLength * entries, nextValueBytes - (hadOld ? oldValueBytes : 0));
    }

    /** Room for a staged value of {@code valueBytes}, before any record refers to it. */
    static Delta staged(long valueBytes) {
        return new Delta(0, 0, 0, valueBytes);
    }

    long bytes() {
        return keyBytes + valueBytes;
    }

    Delta plus(Delta o) {
        return new Delta(entries + o.entries, live + o.live, keyBytes + o.keyBytes, valueBytes + o.valueBytes);
    }
}
