package dev.kvs.bench.latency;

import java.util.Arrays;

/**
 * Latency samples of one measurement, in microseconds, kept whole: a benchmark phase has at most a few
 * thousand, so percentiles are exact (nearest rank) rather than bucketed. Immutable.
 */
final class Latencies {
    private final long[] sortedMicros;

    private Latencies(long[] sortedMicros) {
        this.sortedMicros = sortedMicros;
    }

    /** The samples in {@code micros}, in any order. */
    static Latencies of(long... micros) {
        long[] copy = micros.clone();
        for (long m : copy) {
            if (m < 0) throw new IllegalArgumentException("latency < 0: " + m);
        }
        Arrays.sort(copy);
        return new Latencies(copy);
    }

    int count() {
        return sortedMicros.length;
    }

    /**
     * The {@code p}-th percentile in milliseconds by nearest rank (the smallest sample with at least
     * {@code p}% of the samples at or below it), or {@code null} without samples.
     *
     * @throws IllegalArgumentException if {@code p} is not in (0, 100]
     */
    Double percentileMs(double p) {
        if (!(p > 0 && p <= 100)) throw new IllegalArgumentException("percentile not in (0, 100]: " + p);
        if (sortedMicros.length == 0) return null;
        int rank = (int) Math.ceil(p / 100 * sortedMicros.length);
        return sortedMicros[Math.max(0, rank - 1)] / 1000.0;
    }

    /** The largest sample in milliseconds, or {@code null} without samples. */
    Double maxMs() {
        return sortedMicros.length == 0 ? null : sortedMicros[sortedMicros.length - 1] / 1000.0;
    }
}
