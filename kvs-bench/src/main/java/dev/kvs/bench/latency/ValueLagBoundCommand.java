package dev.kvs.bench.latency;

import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.server.cli.KvsVersionProvider;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code kvs bench value-lag}: does {@code replication.maxValueLagMs} keep a primary's exposure within its
 * bound while writers outrun the WAN link? See {@link ValueLagBound}.
 */
@Command(
        name = "value-lag",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "The bound on exposure in time (maxValueLagMs) under writers faster than the WAN link.",
        descriptionHeading = "%n",
        description = {
            "Starts dc-backup and dc-main as separate JVMs on loopback, joined by a WAN link emulator in"
                    + " this process (--delay-ms each way, --bandwidth-mbit, --buffer, --queueing), dc-main with"
                    + " --flow-control and replication.maxValueLagMs at its default unless --max-value-lag-ms is"
                    + " given. One client sends a small SET (--small-size) every --interval-ms in --mode, open-loop,"
                    + " for --idle-seconds alone; then --writers clients write --value-size values back to back"
                    + " (-BUSY and timeouts counted, not fatal) and, after --ramp-seconds, the small SETs run again"
                    + " for --duration. dc-main's value lag (GET /status: the age of the oldest value the backup"
                    + " has not acknowledged) is read every 100 ms from the writers' start. Then dc-main is killed"
                    + " (SIGKILL) with the writers still writing, and dc-backup promoted.",
            "",
            "Prints the largest lag, the value goodput (bytes the link relayed to the backup per second during"
                    + " the measurement, as a share of the link rate), the small SETs' latencies, the keys the"
                    + " promoted backup fenced, and PASS or FAIL against: largest lag <= bound + 1 s, goodput >="
                    + " 80%%, keys-under-load's bounds on the small SETs (loaded p50 <= idle p50 + 15 ms, loaded"
                    + " p99 <= idle p50 + 30 ms, none failed), the oldest fenced key at most bound + 1 s old at"
                    + " the kill, and the fenced value bytes at most what the link carries in bound + 1 s."
        },
        optionListHeading = "%nOptions:%n")
public final class ValueLagBoundCommand implements Callable<Integer> {
    @Mixin
    private final LinkOptions linkOptions = LinkOptions.withRate(20, 8);

    @Option(
            names = "--duration",
            paramLabel = "TIME",
            converter = BenchOptions.SecondsConverter.class,
            description = "How long the loaded measurement runs after the ramp: 20s, 60s, 2m (default: 60s)")
    private double duration = 60;

    @Option(
            names = "--max-value-lag-ms",
            paramLabel = "MS",
            description = "dc-main's replication.maxValueLagMs (default: none given, the node's default)")
    private Long maxValueLagMs;

    @Option(
            names = "--writers",
            paramLabel = "N",
            description = "Writers of large values, one connection each (default: ${DEFAULT-VALUE})")
    private int writers = 4;

    @Option(
            names = "--value-size",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "Bytes per large value: 100B, 100kB, 1MiB, 10MiB, up to 64MiB (default: 1MiB)")
    private long valueSize = 1 << 20;

    @Option(
            names = "--small-size",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "Bytes per small value, up to 1MiB (default: 100)")
    private long smallSize = 100;

    @Option(
            names = "--interval-ms",
            paramLabel = "MS",
            description = "Time between two small SETs in ms (default: ${DEFAULT-VALUE})")
    private double intervalMs = 50;

    @Option(
            names = "--idle-seconds",
            paramLabel = "S",
            description = "How long the idle phase sends small SETs (default: ${DEFAULT-VALUE})")
    private double idleSeconds = 10;

    @Option(
            names = "--ramp-seconds",
            paramLabel = "S",
            description = "How long the writers write before the measurement begins (the lag is read from their"
                    + " start) (default: ${DEFAULT-VALUE})")
    private double rampSeconds = 2;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            converter = BenchOptions.ModeConverter.class,
            description = "Replication mode of every client: id-first, id-first-after-reply, sync, async"
                    + " (default: id-first)")
    private String mode = "id-first";

    @Mixin
    private RunOptions run;

    @Override
    public Integer call() throws InterruptedException {
        return run.run(this::benchmark);
    }

    /** The benchmark the options describe, checked. */
    ValueLagBound benchmark() {
        LinkSettings link = linkOptions.settings();
        return new ValueLagBound(settings(link), link, ProgressLine.stderrIsTerminal());
    }

    /** The settings, checked; the link must have a rate, goodput being a share of it. */
    ValueLagBoundReport.Settings settings(LinkSettings link) {
        if (link.bitsPerSecond() == 0) {
            throw new IllegalArgumentException("--bandwidth-mbit must be above 0: goodput is a share of it");
        }
        if (!(duration >= 1 && duration <= 3600)) {
            throw new IllegalArgumentException("--duration is not in 1s..1h: " + duration + " s");
        }
        if (maxValueLagMs != null && (maxValueLagMs < 0 || maxValueLagMs > 3_600_000)) {
            throw new IllegalArgumentException("--max-value-lag-ms is not in 0..3600000: " + maxValueLagMs);
        }
        if (writers < 1 || writers > 64) throw new IllegalArgumentException("--writers is not in 1..64: " + writers);
        if (valueSize < 1 || valueSize > BenchOptions.MAX_VALUE_SIZE) {
            throw new IllegalArgumentException("--value-size is not in 1B..64MiB: " + valueSize);
        }
        if (smallSize < 1 || smallSize > 1 << 20) {
            throw new IllegalArgumentException("--small-size is not in 1B..1MiB: " + smallSize);
        }
        if (!(intervalMs >= 1 && intervalMs <= 10_000)) {
            throw new IllegalArgumentException("--interval-ms is not in 1..10000: " + intervalMs);
        }
        if (!(idleSeconds >= 0.5 && idleSeconds <= 600)) {
            throw new IllegalArgumentException("--idle-seconds is not in 0.5..600: " + idleSeconds);
        }
        if (!(rampSeconds >= 0 && rampSeconds <= 600)) {
            throw new IllegalArgumentException("--ramp-seconds is not in 0..600: " + rampSeconds);
        }
        return new ValueLagBoundReport.Settings(
                link.delayMs(),
                link.bandwidthMbit(),
                link.bufferBytes(),
                link.queueing().name().toLowerCase(Locale.ROOT),
                mode,
                run.flowControl(),
                maxValueLagMs,
                smallSize,
                intervalMs,
                idleSeconds,
                writers,
                valueSize,
                rampSeconds,
                duration);
    }
}
