package dev.kvs.wan;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * How late a direction delivers its chunks: a fixed log-linear histogram of microseconds, exact below
 * 32 µs and within 1/16 (6 %) above, up to about 19 hours (later counts in the last bucket). One
 * thread records (the link's event loop: a few shifts and one ordered store, no allocation); any
 * thread may take a {@link #snapshot()}.
 */
final class LatenessHistogram {
    /** Bits of a value below its leading one that pick the sub-bucket: 16 sub-buckets per power of two. */
    private static final int SUB_BITS = 4;

    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    /** Values below this are counted exactly, one bucket each. */
    private static final int EXACT = 2 * SUB_BUCKETS;
    /** Highest power of two with its own buckets: values up to 2^36 µs (19 hours) are told apart. */
    private static final int MAX_EXPONENT = 35;

    static final int BUCKETS = EXACT + (MAX_EXPONENT - SUB_BITS) * SUB_BUCKETS;

    private final AtomicLongArray counts = new AtomicLongArray(BUCKETS);
    private volatile long maxMicros;

    /** Records one chunk {@code nanos} late (negative counts as 0). Single writer. */
    void record(long nanos) {
        long micros = Math.max(0, nanos / 1000);
        int i = bucket(micros);
        counts.setRelease(i, counts.getPlain(i) + 1);
        if (micros > maxMicros) maxMicros = micros;
    }

    /** The percentiles so far; not atomic with a concurrent {@link #record}, every count is read once. */
    WanLinkStats.Lateness snapshot() {
        long[] c = new long[BUCKETS];
        long total = 0;
        for (int i = 0; i < BUCKETS; i++) {
            c[i] = counts.getAcquire(i);
            total += c[i];
        }
        long max = maxMicros;
        return new WanLinkStats.Lateness(total, percentile(c, total, 0.50, max), percentile(c, total, 0.99, max), max);
    }

    static int bucket(long micros) {
        if (micros < EXACT) return (int) micros;
        int exponent = 63 - Long.numberOfLeadingZeros(micros); // >= SUB_BITS + 1
        if (exponent > MAX_EXPONENT) return BUCKETS - 1;
        int sub = (int) (micros >>> (exponent - SUB_BITS)) & (SUB_BUCKETS - 1);
        return EXACT + (exponent - SUB_BITS - 1) * SUB_BUCKETS + sub;
    }

    /** The highest value counted in bucket {@code i}. */
    static long highest(int i) {
        if (i < EXACT) return i;
        int exponent = (i - EXACT) / SUB_BUCKETS + SUB_BITS + 1;
        long sub = (i - EXACT) % SUB_BUCKETS;
        long lowest = (1L << exponent) | (sub << (exponent - SUB_BITS));
        return lowest + (1L << (exponent - SUB_BITS)) - 1;
    }

    /**
     * The smallest bucket bound at or below which a fraction {@code q} of the values lie: an upper
     * bound of the true percentile, at most 6 % above it, and never above the maximum.
     */
    private static long percentile(long[] counts, long total, double q, long max) {
        if (total == 0) return 0;
        long rank = Math.max(1, (long) Math.ceil(q * total));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) return Math.min(highest(i), max);
        }
        return max;
    }
}
