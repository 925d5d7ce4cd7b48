package dev.kvs.bench.drill;

import java.util.List;
import java.util.Map;

/**
 * One mode's line of a drill report: the load, and how its acknowledged writes fared.
 *
 * @param mode replication mode label
 * @param acked writes acknowledged to clients
 * @param complete served by the new primary with the acknowledged value
 * @param errorDetect fenced by the new primary ({@code -UNFINISHED}/{@code -LOST}): loss detected
 * @param dataLoss missing or different on the new primary, undetected
 * @param unreadable could not be read back (not classified)
 * @param attempted writes sent
 * @param failedWrites writes not acknowledged (refused, timed out, connection lost)
 * @param failures failed writes by exception name
 * @param seconds load duration
 * @param writesPerSecond acknowledged writes per second
 * @param megabytesPerSecond acknowledged value MB (10^6 bytes) per second
 * @param p50Ms median write latency, ms; null if unknown
 * @param p99Ms 99th percentile write latency, ms; null if unknown
 * @param disasterAtSeconds when the disaster happened, seconds into the load; null if none
 * @param lossExamples a few silently lost keys
 */
record ModeResult(
        String mode,
        long acked,
        long complete,
        long errorDetect,
        long dataLoss,
        long unreadable,
        Long attempted,
        Long failedWrites,
        Map<String, Long> failures,
        Double seconds,
        Double writesPerSecond,
        Double megabytesPerSecond,
        Double p50Ms,
        Double p99Ms,
        Double disasterAtSeconds,
        List<String> lossExamples) {

    /** Combines a load (if known: a verify of a file without a summary has none) and its verification. */
    static ModeResult of(String mode, LoadResult load, Classification c, Double disasterAtSeconds) {
        boolean known = load != null;
        return new ModeResult(
                mode,
                c.acked(),
                c.complete(),
                c.errorDetect(),
                c.dataLoss(),
                c.unreadable(),
                known ? load.attempted() : null,
                known ? load.failed() : null,
                known ? load.failures() : Map.of(),
                known ? round(load.elapsedSeconds()) : null,
                known ? round(load.writesPerSecond()) : null,
                known ? round(load.megabytesPerSecond()) : null,
                known && load.acked() > 0 ? load.p50Micros() / 1000.0 : null,
                known && load.acked() > 0 ? load.p99Micros() / 1000.0 : null,
                disasterAtSeconds == null ? null : round(disasterAtSeconds),
                c.lossExamples());
    }

    /** Whether silent loss here breaks a promise: {@code sync} and {@code id-first} must have none. */
    boolean lossForbidden() {
        return mode.equals("sync") || mode.equals("id-first");
    }

    private static double round(double d) {
        return Math.round(d * 100) / 100.0;
    }
}
