package dev.kvs.replication.primary;

import java.util.Arrays;

/**
 * The delay estimates of RFC 6817 (LEDBAT) §3.4: the <em>base</em> delay, the minimum over a sliding
 * history of one-minute buckets (so a longer route becomes the base once the shorter one has rolled
 * out of the history), and the <em>current</em> delay, the minimum of the last few samples (so one
 * late sample does not count as a queue). Delays are in nanoseconds and may be offset by a constant
 * (the clock offset between two nodes): only differences mean anything. Not thread-safe.
 */
final class DelayHistory {
    static final long BUCKET_NANOS = 60_000_000_000L;
    /** RFC 6817's CURRENT_FILTER: the current delay is the minimum of at least this many samples. */
    static final int CURRENT_FILTER = 4;
    /** Samples kept for the current delay: those of the filter span, up to this many. */
    private static final int RECENT = 256;

    private final long[] buckets;
    private final long[] recent = new long[RECENT];
    private final long[] recentAt = new long[RECENT];
    private int recentCount;
    private int recentNext;
    /** Index of the bucket being filled, and when it started. */
    private int bucket;

    private long bucketStart;
    private boolean empty = true;

    /** @param historyBuckets one-minute buckets remembered (RFC 6817's BASE_HISTORY) */
    DelayHistory(int historyBuckets) {
        if (historyBuckets < 1) throw new IllegalArgumentException("historyBuckets < 1: " + historyBuckets);
        buckets = new long[historyBuckets];
    }

    boolean isEmpty() {
        return empty;
    }

    /** Adds a delay sample taken at {@code now}. */
    void add(long delay, long now) {
        if (empty) {
            empty = false;
            Arrays.fill(buckets, Long.MAX_VALUE);
            bucketStart = now;
        }
        roll(now);
        if (delay < buckets[bucket]) buckets[bucket] = delay;
        recent[recentNext] = delay;
        recentAt[recentNext] = now;
        recentNext = (recentNext + 1) % RECENT;
        if (recentCount < RECENT) recentCount++;
    }

    /** Starts new buckets for every minute passed since the current one started, dropping the oldest. */
    private void roll(long now) {
        while (now - bucketStart >= BUCKET_NANOS) {
            bucketStart += BUCKET_NANOS;
            bucket = (bucket + 1) % buckets.length;
            buckets[bucket] = Long.MAX_VALUE;
            if (now - bucketStart >= BUCKET_NANOS * buckets.length) { // idle for longer than the history
                Arrays.fill(buckets, Long.MAX_VALUE);
                bucketStart = now;
            }
        }
    }

    /** The minimum over the history; {@code Long.MAX_VALUE} before the first sample. */
    long base() {
        long min = Long.MAX_VALUE;
        for (long b : buckets) min = Math.min(min, b);
        return min;
    }

    /**
     * The minimum of the samples taken since {@code now - span}, and at least of the last {@link
     * #CURRENT_FILTER}; {@code Long.MAX_VALUE} before the first. On a fast link many samples arrive per
     * millisecond, and a filter over a few of them would take one scheduling hiccup of the JVM for a
     * queue; a span of a fraction of the round trip filters it out and still reacts within the trip.
     */
    long current(long now, long span) {
        long min = Long.MAX_VALUE;
        for (int i = 1; i <= recentCount; i++) {
            int k = Math.floorMod(recentNext - i, RECENT);
            if (i > CURRENT_FILTER && now - recentAt[k] > span) break;
            min = Math.min(min, recent[k]);
        }
        return min;
    }

    /** Current (over {@code span}) minus base: the queueing delay; 0 before the first sample. */
    long queueing(long now, long span) {
        return empty ? 0 : Math.max(0, current(now, span) - base());
    }
}
