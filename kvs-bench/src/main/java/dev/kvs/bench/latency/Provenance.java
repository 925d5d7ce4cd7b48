package dev.kvs.bench.latency;

import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.time.temporal.ChronoUnit;

/**
 * Where and on what a benchmark ran: the last fields of its report's JSON.
 *
 * @param runDir where the nodes' configs and logs are
 * @param date when the run ended (ISO-8601)
 * @param java the Java runtime version
 * @param cores available processors
 */
record Provenance(String runDir, String date, String java, int cores) {
    /** A run in {@code runDir} ending now, on this JVM and machine. */
    static Provenance now(Path runDir) {
        return new Provenance(
                runDir.toString(),
                OffsetDateTime.now().truncatedTo(ChronoUnit.SECONDS).toString(),
                System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors());
    }
}
