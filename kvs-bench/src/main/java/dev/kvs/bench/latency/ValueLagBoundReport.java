package dev.kvs.bench.latency;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.replication.ValueLagStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What {@code kvs bench value-lag} measured, as printed and as written by {@code --json}.
 *
 * @param benchmark {@code value-lag}
 * @param settings what ran
 * @param maxValueLagMillis the primary's bound ({@code replication.maxValueLagMs} as its {@code GET /status}
 *     reports it)
 * @param idle the small SETs with nothing else crossing the link
 * @param loaded the small SETs while the writers wrote large values, after the ramp
 * @param writers what the writers of large values did until the kill
 * @param goodput value bytes the backup received during the loaded measurement
 * @param lag the primary's value lag, sampled from the writers' start to the kill
 * @param primary the primary's bound at the end of the loaded measurement: projected lag, drain rate, waits
 * @param fenced what the promoted backup fenced after the kill
 * @param verdict the acceptance bounds
 * @param provenance where and on what it ran
 */
record ValueLagBoundReport(
        String benchmark,
        Settings settings,
        long maxValueLagMillis,
        PhaseStats idle,
        PhaseStats loaded,
        BulkWriters.Result writers,
        KeysUnderLoadReport.Goodput goodput,
        LagSampler.Result lag,
        ValueLagStatus primary,
        Fenced fenced,
        Verdict verdict,
        @JsonUnwrapped Provenance provenance)
        implements Benchmark.Result {

    /** How far above the bound the oldest unshipped value may get. */
    static final long SLACK_MILLIS = 1_000;

    /**
     * What ran.
     *
     * @param delayMs one-way WAN delay
     * @param bandwidthMbit WAN bandwidth each way
     * @param bufferBytes the link's queue per direction
     * @param queueing {@code fifo} or {@code fair}
     * @param mode the replication mode of every client
     * @param flowControl {@code on} or {@code off}
     * @param maxValueLagMs the bound set on the primary, or null for its default
     * @param smallSize bytes per small value
     * @param intervalMs time between two small SETs
     * @param idleSeconds how long the idle phase sent small SETs
     * @param writers writers of large values
     * @param valueSize bytes per large value
     * @param rampSeconds how long the writers wrote before the loaded measurement began
     * @param seconds how long the loaded measurement lasted, ending with the kill
     */
    record Settings(
            double delayMs,
            double bandwidthMbit,
            long bufferBytes,
            String queueing,
            String mode,
            String flowControl,
            Long maxValueLagMs,
            long smallSize,
            double intervalMs,
            double idleSeconds,
            int writers,
            long valueSize,
            double rampSeconds,
            double seconds) {}

    /**
     * What a failover right after the kill fences: the backup's unfinished keys.
     *
     * @param keys keys the promoted backup declared lost ({@code lostCount})
     * @param valueBytes their values' bytes
     * @param oldestAgeMillis how long before the kill the oldest of them reached the backup as a key
     *     packet (its {@code sinceMillis} in {@code GET /lost} before the promotion); 0 if none
     */
    record Fenced(long keys, long valueBytes, long oldestAgeMillis) {}

    /**
     * The bounds: the oldest unshipped value at most the bound + 1 s old, value goodput at least 80% of the
     * link, the small SETs within keys-under-load's bounds with none failed, and what the kill fenced
     * within the bound: its oldest key at most the bound + 1 s old, its bytes at most what the link
     * carries in the bound + 1 s.
     */
    static Verdict verdict(
            long bound,
            LagSampler.Result lag,
            KeysUnderLoadReport.Goodput goodput,
            PhaseStats idle,
            PhaseStats loaded,
            Fenced fenced) {
        double limit = bound + SLACK_MILLIS;
        Double idleP50 = idle.p50Ms();
        List<Verdict.Check> checks = new ArrayList<>();
        checks.add(Verdict.Check.atMost(
                "oldest unshipped value <= maxValueLagMs + 1 s",
                lag.samples() == 0 ? null : (double) lag.maxLagMillis(),
                limit,
                "ms"));
        checks.add(Verdict.Check.atLeast(
                "value goodput >= " + Report.number(KeysUnderLoadReport.MIN_GOODPUT_PERCENT) + "% of the link",
                goodput.percentOfLink(),
                KeysUnderLoadReport.MIN_GOODPUT_PERCENT,
                "%"));
        checks.add(Verdict.Check.atMost(
                "small SETs: loaded p50 <= idle p50 + " + Report.number(KeysUnderLoadReport.P50_MARGIN_MS) + " ms",
                loaded.p50Ms(),
                idleP50 == null ? null : idleP50 + KeysUnderLoadReport.P50_MARGIN_MS,
                "ms"));
        checks.add(Verdict.Check.atMost(
                "small SETs: loaded p99 <= idle p50 + " + Report.number(KeysUnderLoadReport.P99_MARGIN_MS) + " ms",
                loaded.p99Ms(),
                idleP50 == null ? null : idleP50 + KeysUnderLoadReport.P99_MARGIN_MS,
                "ms"));
        checks.add(Verdict.Check.atMost("small SETs failed = 0", (double) (idle.failed() + loaded.failed()), 0.0, ""));
        checks.add(Verdict.Check.atMost(
                "oldest fenced key at the kill <= maxValueLagMs + 1 s",
                fenced == null ? null : (double) fenced.oldestAgeMillis(),
                limit,
                "ms"));
        checks.add(Verdict.Check.atMost(
                "fenced value bytes <= link rate x (maxValueLagMs + 1 s)",
                fenced == null ? null : (double) fenced.valueBytes(),
                goodput.linkBytesPerSecond() * limit / 1000,
                "B"));
        return Verdict.of(checks);
    }

    /** One line saying what runs. */
    static String describe(Settings s, LinkSettings link) {
        return String.format(
                Locale.ROOT,
                "WAN %s; maxValueLagMs %s; %d writers write %s values back to back in %s for %s s (measured after"
                        + " %s s), beside %s SETs every %s ms (%s s idle first); then kill -9 of the primary and"
                        + " promotion of the backup; flow control %s",
                Report.link(link),
                s.maxValueLagMs() == null ? "at its default" : s.maxValueLagMs(),
                s.writers(),
                Report.bytes(s.valueSize()),
                s.mode(),
                Report.number(s.rampSeconds() + s.seconds()),
                Report.number(s.rampSeconds()),
                Report.bytes(s.smallSize()),
                Report.number(s.intervalMs()),
                Report.number(s.idleSeconds()),
                s.flowControl());
    }

    /** The results as text: the lag, goodput, small SETs, what the kill fenced, the verdict. */
    @Override
    public String render() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "value lag: max %,d ms (at %.1f s of %,d samples, one every %d ms; mean %.0f ms); bound %,d ms%n",
                lag.maxLagMillis(),
                lag.maxAtSeconds(),
                lag.samples(),
                lag.periodMillis(),
                lag.meanLagMillis(),
                maxValueLagMillis));
        if (primary != null) {
            b.append(String.format(
                    Locale.ROOT,
                    "the bound at the end: projected lag %,d ms, drain rate %s, %,d writes held for %,d ms in all%n",
                    primary.projectedLagMillis(),
                    primary.drainBytesPerSecond() < 0 ? "unknown" : Report.rate(primary.drainBytesPerSecond()),
                    primary.waits(),
                    primary.waitMillis()));
        }
        b.append(String.format(
                Locale.ROOT,
                "value goodput: %s over %.1f s = %s of the link's %s%n",
                Report.rate(goodput.bytesPerSecond()),
                goodput.seconds(),
                goodput.percentOfLink() == null ? "-" : String.format(Locale.ROOT, "%.1f%%", goodput.percentOfLink()),
                Report.rate(goodput.linkBytesPerSecond())));
        b.append(String.format(
                Locale.ROOT,
                "writers: %,d SETs of %s acknowledged (%s), %s failed%s%n",
                writers.acked(),
                Report.bytes(writers.valueSize()),
                Report.bytes(writers.ackedBytes()),
                writers.failures().values().stream().mapToLong(Long::longValue).sum(),
                KeysUnderLoadReport.failures(writers.failures())));
        b.append('\n');
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"small SETs", "sent", "ok", "failed", "p50 ms", "p99 ms", "max ms"});
        rows.add(row("idle", idle));
        rows.add(row("loaded", loaded));
        b.append(Report.columns(rows));
        b.append('\n');
        b.append(
                fenced == null
                        ? "after the kill: nothing read from the backup\n"
                        : String.format(
                                Locale.ROOT,
                                "after the kill: the promoted backup fenced %,d keys (%s of values), the oldest"
                                        + " %,d ms before the kill%n",
                                fenced.keys(),
                                Report.bytes(fenced.valueBytes()),
                                fenced.oldestAgeMillis()));
        b.append('\n');
        b.append(verdict.render());
        return b.toString();
    }

    private static String[] row(String name, PhaseStats p) {
        return new String[] {
            name,
            String.format(Locale.ROOT, "%,d", p.sent()),
            String.format(Locale.ROOT, "%,d", p.ok()),
            p.failed() + KeysUnderLoadReport.failures(p.failures()),
            Report.ms(p.p50Ms()),
            Report.ms(p.p99Ms()),
            Report.ms(p.maxMs())
        };
    }
}
