package dev.kvs.bench.latency;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.replication.FlowControlStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * What {@code kvs bench keys-under-load} measured, as printed and as written by {@code --json}.
 *
 * @param benchmark {@code keys-under-load}
 * @param settings what ran
 * @param idle the small SETs with nothing else crossing the link
 * @param loaded the small SETs while the writers wrote large values
 * @param writers what the writers of large values did during the whole loaded phase (ramp included)
 * @param goodput value bytes the backup received during the loaded phase's measurement
 * @param primary the primary's replication at the end of the loaded phase ({@code GET /status}):
 *     the flow control's state and the value lag
 * @param verdict the acceptance bounds
 * @param provenance where and on what it ran: {@code runDir}, {@code date}, {@code java} and {@code
 *     cores} in the JSON
 */
record KeysUnderLoadReport(
        String benchmark,
        Settings settings,
        PhaseStats idle,
        PhaseStats loaded,
        BulkWriters.Result writers,
        Goodput goodput,
        BenchCluster.Replication primary,
        Verdict verdict,
        @JsonUnwrapped Provenance provenance)
        implements Benchmark.Result {

    /** Added to the idle p50: the most the loaded p50 may be. */
    static final double P50_MARGIN_MS = 15;
    /** Added to the idle p50: the most the loaded p99 may be. */
    static final double P99_MARGIN_MS = 30;
    /** The least share of the link's rate the values must get, in percent. */
    static final double MIN_GOODPUT_PERCENT = 80;

    /**
     * What ran.
     *
     * @param delayMs one-way WAN delay
     * @param bandwidthMbit WAN bandwidth each way
     * @param bufferBytes the link's queue per direction
     * @param queueing {@code fifo} or {@code fair}
     * @param mode the replication mode of every client
     * @param flowControl {@code on} or {@code off}: the primary's {@code --flow-control}
     * @param smallSize bytes per small value
     * @param intervalMs time between two small SETs
     * @param idleSeconds how long the idle phase sent small SETs
     * @param writers writers of large values
     * @param valueSize bytes per large value
     * @param rampSeconds how long the writers wrote before the loaded phase's measurement began
     * @param loadedSeconds how long the loaded phase sent small SETs
     */
    record Settings(
            double delayMs,
            double bandwidthMbit,
            long bufferBytes,
            String queueing,
            String mode,
            String flowControl,
            long smallSize,
            double intervalMs,
            double idleSeconds,
            int writers,
            long valueSize,
            double rampSeconds,
            double loadedSeconds,
            String clusterSecret) {}

    /**
     * Value goodput during the loaded phase's measurement.
     *
     * @param source where the bytes were counted
     * @param bytes bytes the link delivered to the backup's replication port (values, plus the key
     *     packets and framing, a few percent at most)
     * @param seconds how long the measurement lasted
     * @param bytesPerSecond {@code bytes / seconds}
     * @param linkBytesPerSecond the link's rate each way
     * @param percentOfLink {@code bytesPerSecond / linkBytesPerSecond} in percent, or null for an
     *     unlimited link
     * @param primaryShippedBytes value bytes the primary counted as sent meanwhile ({@code
     *     valueBytesShipped} of its {@code GET /status}), for comparison: it counts bytes when they
     *     leave the primary, not when they reach the backup
     */
    record Goodput(
            String source,
            long bytes,
            double seconds,
            double bytesPerSecond,
            double linkBytesPerSecond,
            Double percentOfLink,
            long primaryShippedBytes) {
        static final String SOURCE = "bytes the WAN link relayed to the backup's replication port";

        static Goodput of(long bytes, double seconds, double linkBytesPerSecond, long primaryShippedBytes) {
            double rate = seconds > 0 ? bytes / seconds : 0;
            Double pct = linkBytesPerSecond > 0 ? 100 * rate / linkBytesPerSecond : null;
            return new Goodput(SOURCE, bytes, seconds, rate, linkBytesPerSecond, pct, primaryShippedBytes);
        }
    }

    /**
     * The bounds: loaded p50 at most idle p50 + 15 ms, loaded p99 at most idle p50 + 30 ms, value
     * goodput at least 80% of the link, and no small SET failed (a failed SET has no latency to
     * hide behind the percentiles).
     */
    static Verdict verdict(PhaseStats idle, PhaseStats loaded, Goodput goodput) {
        Double idleP50 = idle.p50Ms();
        return Verdict.of(List.of(
                Verdict.Check.atMost(
                        "loaded p50 <= idle p50 + " + Report.number(P50_MARGIN_MS) + " ms",
                        loaded.p50Ms(),
                        idleP50 == null ? null : idleP50 + P50_MARGIN_MS,
                        "ms"),
                Verdict.Check.atMost(
                        "loaded p99 <= idle p50 + " + Report.number(P99_MARGIN_MS) + " ms",
                        loaded.p99Ms(),
                        idleP50 == null ? null : idleP50 + P99_MARGIN_MS,
                        "ms"),
                Verdict.Check.atLeast(
                        "value goodput >= " + Report.number(MIN_GOODPUT_PERCENT) + "% of the link",
                        goodput.percentOfLink(),
                        MIN_GOODPUT_PERCENT,
                        "%"),
                Verdict.Check.atMost("small SETs failed = 0", (double) (idle.failed() + loaded.failed()), 0.0, "")));
    }

    /** One line saying what runs. */
    static String describe(Settings s, LinkSettings link) {
        return String.format(
                Locale.ROOT,
                "WAN %s; %s SETs every %s ms in %s, %s s idle, then %s s while %d writers write %s values"
                        + " back to back (measured after %s s of them); flow control %s; cluster secret %s",
                Report.link(link),
                Report.bytes(s.smallSize()),
                Report.number(s.intervalMs()),
                s.mode(),
                Report.number(s.idleSeconds()),
                Report.number(s.loadedSeconds()),
                s.writers(),
                Report.bytes(s.valueSize()),
                Report.number(s.rampSeconds()),
                s.flowControl(),
                IdFirstOverheadReport.clusterSecret(s.clusterSecret()));
    }

    /** The results as text: latency table, writers, goodput, the primary's flow control, the verdict. */
    @Override
    public String render() {
        StringBuilder b = new StringBuilder();
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"small SETs", "sent", "ok", "failed", "p50 ms", "p99 ms", "max ms"});
        rows.add(row("idle", idle));
        rows.add(row("loaded", loaded));
        b.append(Report.columns(rows));
        b.append('\n');
        b.append(String.format(
                Locale.ROOT,
                "writers: %,d SETs of %s acknowledged (%s), %s failed%s%n",
                writers.acked(),
                Report.bytes(writers.valueSize()),
                Report.bytes(writers.ackedBytes()),
                writers.failures().values().stream().mapToLong(Long::longValue).sum(),
                failures(writers.failures())));
        b.append(String.format(
                Locale.ROOT,
                "value goodput: %s over %.1f s = %s of the link's %s (%s)%n",
                Report.rate(goodput.bytesPerSecond()),
                goodput.seconds(),
                goodput.percentOfLink() == null ? "-" : String.format(Locale.ROOT, "%.1f%%", goodput.percentOfLink()),
                goodput.linkBytesPerSecond() == 0 ? "unlimited rate" : Report.rate(goodput.linkBytesPerSecond()),
                Goodput.SOURCE));
        b.append('\n');
        b.append(primaryState(primary));
        b.append('\n');
        b.append(verdict.render());
        return b.toString();
    }

    /** The flow control's state and the value lag as the primary reported them. */
    static String primaryState(BenchCluster.Replication r) {
        if (r == null) return "the primary's GET /status at the end of the loaded phase: none\n";
        FlowControlStatus f = r.flowControl() == null ? FlowControlStatus.off() : r.flowControl();
        StringBuilder b = new StringBuilder("the primary at the end of the loaded phase (its GET /status):\n");
        String line = "  %-16s %s%n";
        String phase = f.phase() == null || f.phase().equals("off") ? "" : ", " + f.phase();
        b.append(String.format(Locale.ROOT, line, "flow control", (f.enabled() ? "on" : "off") + phase));
        b.append(String.format(
                Locale.ROOT,
                line,
                "window",
                Report.bytes(f.windowBytes()) + " (" + Report.bytes(f.inFlightBytes()) + " in flight)"));
        b.append(String.format(Locale.ROOT, line, "pacing rate", Report.rate(f.pacingRateBytesPerSecond())));
        b.append(String.format(
                Locale.ROOT,
                line,
                "queueing delay",
                Report.ms(f.queueingDelayMicros() / 1000.0) + " ms (target " + Report.ms(f.targetMicros() / 1000.0)
                        + " ms, external " + Report.ms(f.externalDelayMicros() / 1000.0) + " ms)"));
        b.append(String.format(Locale.ROOT, line, "base delay", Report.ms(f.baseDelayMicros() / 1000.0) + " ms"));
        b.append(String.format(Locale.ROOT, line, "goodput", Report.rate(f.goodputBytesPerSecond())));
        b.append(String.format(Locale.ROOT, line, "min-rate alarm", f.minRateAlarm() ? "ON" : "off"));
        b.append(String.format(Locale.ROOT, line, "slowdowns", f.slowdowns()));
        b.append(String.format(
                Locale.ROOT,
                line,
                "value lag",
                Report.bytes(r.pendingValueBytes()) + " in " + r.pendingValues() + " values, oldest "
                        + Report.ms((double) r.oldestPendingValueMillis()) + " ms"));
        return b.toString();
    }

    private static String[] row(String name, PhaseStats p) {
        return new String[] {
            name,
            String.format(Locale.ROOT, "%,d", p.sent()),
            String.format(Locale.ROOT, "%,d", p.ok()),
            p.failed() + failures(p.failures()),
            Report.ms(p.p50Ms()),
            Report.ms(p.p99Ms()),
            Report.ms(p.maxMs())
        };
    }

    /** {@code  (BUSY 3, timeout 1)}, or nothing without failures. */
    static String failures(Map<String, Long> byKind) {
        if (byKind.isEmpty()) return "";
        return byKind.entrySet().stream()
                .map(e -> e.getKey() + " " + e.getValue())
                .collect(Collectors.joining(", ", " (", ")"));
    }
}
