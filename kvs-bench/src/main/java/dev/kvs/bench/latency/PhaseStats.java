package dev.kvs.bench.latency;

import java.util.Collections;
import java.util.Map;
import java.util.TreeMap;

/**
 * The SETs of one measurement and how they went.
 *
 * @param sent SETs sent
 * @param ok SETs answered {@code +OK}; the latencies are theirs
 * @param failures SETs not answered {@code +OK}, by kind: the error reply's first word ({@code BUSY},
 *     {@code NOREPLICA}, ...), {@code timeout} (no reply in time) or {@code connection} (the
 *     connection failed)
 * @param p50Ms median latency in milliseconds, or null without a successful SET
 * @param p99Ms 99th percentile in milliseconds, or null
 * @param maxMs largest latency in milliseconds, or null
 */
record PhaseStats(long sent, long ok, Map<String, Long> failures, Double p50Ms, Double p99Ms, Double maxMs) {
    PhaseStats {
        failures = Collections.unmodifiableMap(new TreeMap<>(failures));
    }

    static PhaseStats of(long sent, Latencies latencies, Map<String, Long> failures) {
        return new PhaseStats(
                sent,
                latencies.count(),
                failures,
                latencies.percentileMs(50),
                latencies.percentileMs(99),
                latencies.maxMs());
    }

    /** SETs that failed, of every kind. */
    long failed() {
        return failures.values().stream().mapToLong(Long::longValue).sum();
    }
}
