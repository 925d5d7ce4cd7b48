package dev.kvs.bench.drill;

import java.util.Map;

/**
 * What a load run did: writes attempted and acknowledged, failures by kind, and the latency of the
 * acknowledged writes.
 *
 * @param mode the replication mode label the clients asked for
 * @param clients clients that wrote
 * @param valueSize bytes per value
 * @param attempted writes sent
 * @param acked writes acknowledged (each one is in the ack file)
 * @param failed writes that failed (not acknowledged: refused, timed out, connection lost)
 * @param failures failed writes by exception name
 * @param elapsedSeconds from the first write to the end of the run
 * @param p50Micros median latency of acknowledged writes, microseconds
 * @param p99Micros 99th percentile latency of acknowledged writes, microseconds
 */
record LoadResult(
        String mode,
        int clients,
        int valueSize,
        long attempted,
        long acked,
        long failed,
        Map<String, Long> failures,
        double elapsedSeconds,
        long p50Micros,
        long p99Micros) {

    LoadResult {
        failures = Map.copyOf(failures);
    }

    /** Acknowledged writes per second. */
    double writesPerSecond() {
        return elapsedSeconds <= 0 ? 0 : acked / elapsedSeconds;
    }

    /** Acknowledged value bytes per second, in MB/s (10^6). */
    double megabytesPerSecond() {
        return writesPerSecond() * valueSize / 1e6;
    }
}
