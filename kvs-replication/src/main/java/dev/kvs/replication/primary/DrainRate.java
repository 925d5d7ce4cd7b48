package dev.kvs.replication.primary;

import dev.kvs.core.TxId;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * How fast the backup acknowledges value bytes: the bytes acknowledged over the last {@link #WINDOW_NANOS},
 * per second of <em>full</em> time in it, while at least {@code fullBytes} of values were in flight. A value
 * is acknowledged whole, after its last chunk: acknowledgements are lumpy, and only a window of several gives
 * the link's rate. Time with less in flight does not count: an idle link, a link down (its values are
 * requeued), and small values written one at a time, whose acknowledgement a round trip later measures the
 * round trip and the writer's pace, not the link's. A stalled link (values in flight, none acknowledged) counts,
 * and looks slow. With less than {@link #MIN_FULL_NANOS} of full time in the window the rate is unknown.
 *
 * <p>Not thread-safe: {@link PendingValues} calls it under its monitor.
 */
final class DrainRate {
    /** How long an acknowledgement counts. */
    static final long WINDOW_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The least full time in the window for a rate. */
    static final long MIN_FULL_NANOS = TimeUnit.MILLISECONDS.toNanos(50);

    private static final int BUCKETS = 10;
    private static final long BUCKET_NANOS = WINDOW_NANOS / BUCKETS;
    private static final long NONE = Long.MIN_VALUE;

    private final long fullBytes;
    private final LongSupplier clock;
    /** The length of each value in flight. */
    private final Map<TxId, Integer> inFlight = new HashMap<>();

    private long inFlightBytes;
    /** Since when the pipe has been full (or the last time that was counted); NONE while it is not. */
    private long fullSince = NONE;
    /** Per bucket of time: the bytes acknowledged, the full time, and which bucket (time / BUCKET_NANOS) it holds. */
    private final long[] bytes = new long[BUCKETS];

    private final long[] full = new long[BUCKETS];
    private final long[] bucketOf = new long[BUCKETS];

    /** Counting time while at least {@code fullBytes} are in flight, read from {@code clock}. */
    DrainRate(long fullBytes, LongSupplier clock) {
        this.fullBytes = Math.max(1, fullBytes);
        this.clock = clock;
        Arrays.fill(bucketOf, NONE);
    }

    /** The value {@code txId}, {@code length} bytes long, left. */
    void shipped(TxId txId, int length) {
        long now = clock.getAsLong();
        count(now);
        Integer before = inFlight.put(txId, length);
        inFlightBytes += length - (before == null ? 0 : before);
        pipe(now);
    }

    /** The backup acknowledged the value {@code txId}. */
    void acked(TxId txId) {
        long now = clock.getAsLong();
        Integer length = inFlight.remove(txId);
        if (length == null) return;
        if (fullSince != NONE) {
            count(now);
            bytes[slot(now)] += length;
        }
        inFlightBytes -= length;
        pipe(now);
    }

    /** The value {@code txId} will not be acknowledged (nacked, abandoned). */
    void unshipped(TxId txId) {
        long now = clock.getAsLong();
        count(now);
        Integer length = inFlight.remove(txId);
        if (length != null) inFlightBytes -= length;
        pipe(now);
    }

    /** No value in flight will be acknowledged (a stream dropped): they are requeued. */
    void unshippedAll() {
        count(clock.getAsLong());
        inFlight.clear();
        inFlightBytes = 0;
        fullSince = NONE;
    }

    /** Bytes per nanosecond of full time over the window; negative if unknown. */
    double bytesPerNano() {
        long now = clock.getAsLong();
        count(now);
        long bucket = Math.floorDiv(now, BUCKET_NANOS);
        long b = 0;
        long t = 0;
        for (int i = 0; i < BUCKETS; i++) {
            if (bucketOf[i] != NONE && bucket - bucketOf[i] < BUCKETS) {
                b += bytes[i];
                t += full[i];
            }
        }
        return t < MIN_FULL_NANOS ? -1 : (double) b / t;
    }

    private void pipe(long now) {
        boolean isFull = inFlightBytes >= fullBytes;
        if (!isFull) fullSince = NONE;
        else if (fullSince == NONE) fullSince = now;
    }

    /** Adds the full time up to {@code now} to its bucket. */
    private void count(long now) {
        if (fullSince == NONE) return;
        full[slot(now)] += now - fullSince;
        fullSince = now;
    }

    private int slot(long now) {
        long bucket = Math.floorDiv(now, BUCKET_NANOS);
        int slot = (int) Math.floorMod(bucket, BUCKETS);
        if (bucketOf[slot] != bucket) {
            bucketOf[slot] = bucket;
            bytes[slot] = 0;
            full[slot] = 0;
        }
        return slot;
    }
}
