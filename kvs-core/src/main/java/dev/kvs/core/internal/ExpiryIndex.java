package dev.kvs.core.internal;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The keys that have a TTL, ordered by expiry: what lets active expiry find the keys due now without
 * walking the store. Kept exact by {@link RecordWriter} under the key's stripe: a record written with
 * an expiry adds its entry, and the entry leaves when the record is replaced or removed. Costs one
 * heap entry (about 80 bytes plus the key, which is shared with nothing) per key with a TTL; keys
 * without one cost nothing. Thread-safe.
 */
final class ExpiryIndex {
    private record Entry(long at, byte[] key) {}

    private static final Comparator<Entry> ORDER =
            Comparator.comparingLong(Entry::at).thenComparing(Entry::key, Arrays::compareUnsigned);

    private final ConcurrentSkipListSet<Entry> entries = new ConcurrentSkipListSet<>(ORDER);
    private final AtomicLong size = new AtomicLong(); // the set's size() walks it

    /** {@code key} expires at {@code at} (epoch millis; 0, no expiry, adds nothing). */
    void add(byte[] key, long at) {
        if (at != 0 && entries.add(new Entry(at, key))) size.incrementAndGet();
    }

    /** {@code key}'s record that expired at {@code at} is gone or replaced. */
    void remove(byte[] key, long at) {
        if (at != 0 && entries.remove(new Entry(at, key))) size.decrementAndGet();
    }

    /** Up to {@code max} keys whose expiry has passed at {@code nowMillis}, earliest expiry first. */
    List<byte[]> due(long nowMillis, int max) {
        List<byte[]> out = new ArrayList<>(Math.min(max, 64));
        for (Entry e : entries) {
            if (out.size() >= max || e.at >= nowMillis) break; // expired means now > at
            out.add(e.key);
        }
        return out;
    }

    /** Keys with a TTL. */
    long size() {
        return size.get();
    }

    void clear() {
        entries.clear();
        size.set(0);
    }
}
