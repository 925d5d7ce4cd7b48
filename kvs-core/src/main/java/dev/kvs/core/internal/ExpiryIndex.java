package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The keys that have a TTL, grouped by expiry: what lets active expiry find the keys due now without
 * walking the store. Kept exact by {@link RecordWriter} under the key's stripe: a record written with
 * an expiry adds its entry, and the entry leaves when the record is replaced or removed. Keys without
 * a TTL cost nothing. Thread-safe.
 *
 * <p>Entries sit in buckets of {@code 2^SHIFT} ms (about a second), each a hash set, and only the
 * buckets are kept in order: adding and removing an entry is a hash operation on its bucket (every
 * {@code SET ... EX} replaces one), where a skip list of every entry made each write walk a deep,
 * cache-cold list. Keys come out bucket by bucket, so earliest first to within a bucket.
 *
 * <p>A bucket whose time is partly past (the current second's, say) has to be read whole to find its
 * due keys, in no order. So that a burst of short TTLs is not read again for every batch taken from
 * it, the due keys one read finds beyond the batch wait in {@link #ready} for the next calls (each is
 * looked up again in its bucket first: it may be gone or rewritten by then), and a partly past bucket
 * is read again only once they are taken.
 */
final class ExpiryIndex {
    /** Buckets of 1024 ms. */
    private static final int SHIFT = 10;

    private record Entry(long at, ByteKey key) {}

    private final ConcurrentHashMap<Long, Set<Entry>> buckets = new ConcurrentHashMap<>();
    /** The buckets' numbers in order; one changes only with its bucket, inside the map's compute. */
    private final ConcurrentSkipListSet<Long> order = new ConcurrentSkipListSet<>();

    private final AtomicLong size = new AtomicLong();
    /** Due entries found by a read of a partly past bucket and not handed out yet; {@link #due} only. */
    private final java.util.ArrayDeque<Entry> ready = new java.util.ArrayDeque<>();

    /** {@code key} expires at {@code at} (epoch millis; 0, no expiry, adds nothing). */
    void add(byte[] key, long at) {
        if (at == 0) return;
        Entry e = new Entry(at, new ByteKey(key));
        boolean[] added = {false};
        buckets.compute(at >> SHIFT, (b, set) -> {
            if (set == null) {
                set = ConcurrentHashMap.newKeySet();
                order.add(b);
            }
            added[0] = set.add(e);
            return set;
        });
        if (added[0]) size.incrementAndGet();
    }

    /** {@code key}'s record that expired at {@code at} is gone or replaced. */
    void remove(byte[] key, long at) {
        if (at == 0) return;
        Entry e = new Entry(at, new ByteKey(key));
        boolean[] removed = {false};
        buckets.computeIfPresent(at >> SHIFT, (b, set) -> {
            removed[0] = set.remove(e);
            if (!set.isEmpty()) return set;
            order.remove(b);
            return null;
        });
        if (removed[0]) size.decrementAndGet();
    }

    /** Up to {@code max} keys whose expiry has passed at {@code nowMillis} (expired means now > at). */
    synchronized List<byte[]> due(long nowMillis, int max) {
        List<byte[]> out = new ArrayList<>(Math.min(max, 64));
        if (!ready.isEmpty()) {
            // what the last read found; the next call reads again (a read now would find these again)
            while (out.size() < max && !ready.isEmpty()) {
                Entry e = ready.poll();
                Set<Entry> set = buckets.get(e.at >> SHIFT);
                if (set != null && set.contains(e)) out.add(e.key.bytes());
            }
            if (!out.isEmpty()) return out;
        }
        long last = nowMillis >> SHIFT;
        for (Long b : order) {
            if (b > last) break;
            Set<Entry> set = buckets.get(b);
            if (set == null) continue;
            boolean whole = (b + 1) << SHIFT <= nowMillis; // every entry of the bucket is due
            for (Entry e : set) {
                if (e.at >= nowMillis) continue;
                if (out.size() < max) {
                    out.add(e.key.bytes());
                    if (out.size() >= max && whole) return out;
                } else {
                    ready.add(e); // read whole anyway: keep the rest for the next calls
                }
            }
        }
        return out;
    }

    /** Keys with a TTL. */
    long size() {
        return size.get();
    }

    synchronized void clear() {
        ready.clear();
        buckets.clear();
        order.clear();
        size.set(0);
    }
}
