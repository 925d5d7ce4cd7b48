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
 * {@code kvs bench keys-under-load}: does an id-first write still cost about one round trip while
 * large values fill the WAN link? See {@link KeysUnderLoad}.
 */
@Command(
        name = "keys-under-load",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "Latency of small id-first writes while large values fill the WAN link.",
        descriptionHeading = "%n",
        description = {
            "Starts dc-backup and dc-main as separate JVMs on loopback, joined by a WAN link emulator in"
                    + " this process (--delay-ms each way, --bandwidth-mbit, --buffer, --queueing), dc-main with"
                    + " --flow-control. One client sends a small SET (--small-size) every --interval-ms in --mode"
                    + " on one connection, open-loop: each latency runs from when the SET was due to its reply.",
            "  idle    --idle-seconds of small SETs with nothing else on the link;",
            "  loaded  --writers clients write --value-size values back to back (each its own connection;"
                    + " -BUSY, -NOREPLICA and timeouts are counted, not fatal); after --ramp-seconds the small"
                    + " SETs run again for --loaded-seconds.",
            "",
            "Prints the idle and loaded latencies, the value goodput (bytes the link relayed to the backup"
                    + " per second during the loaded measurement, as a share of the link rate), the primary's"
                    + " flow control state from its GET /status at the end of the loaded phase, and PASS or"
                    + " FAIL against: loaded p50 <= idle p50 + 15 ms, loaded p99 <= idle p50 + 30 ms, goodput"
                    + " >= 80%%, no small SET failed. Node configs and logs go to a run directory (printed);"
                    + " Ctrl-C stops every process the benchmark started."
        },
        optionListHeading = "%nOptions:%n")
public final class KeysUnderLoadCommand implements Callable<Integer> {
    @Mixin
    private final LinkOptions linkOptions = LinkOptions.withRate(20, 8);

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
            description = "How long the writers write before the loaded phase's measurement begins, so that the"
                    + " link's queue has built up (default: ${DEFAULT-VALUE})")
    private double rampSeconds = 2;

    @Option(
            names = "--loaded-seconds",
            paramLabel = "S",
            description = "How long the loaded phase sends small SETs (default: ${DEFAULT-VALUE})")
    private double loadedSeconds = 20;

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            converter = BenchOptions.ModeConverter.class,
            description = "Replication mode of every client: id-first, id-first-after-reply, sync, async"
                    + " (default: id-first)")
    private String mode = "id-first";

    @Option(
            names = "--cluster-secret",
            paramLabel = "on|off",
            converter = BenchOptions.OnOffConverter.class,
            description = "Both nodes' clusterSecret: on (a fresh one per run; without TLS every replication frame"
                    + " after the handshake then carries a MAC) or off, to measure what that costs (default: on)")
    private String clusterSecret = "on";

    @Mixin
    private RunOptions run;

    @Override
    public Integer call() throws InterruptedException {
        return run.run(this::benchmark);
    }

    /** The benchmark the options describe, checked. */
    KeysUnderLoad benchmark() {
        LinkSettings link = link();
        return new KeysUnderLoad(settings(link), link, ProgressLine.stderrIsTerminal());
    }

    /** The link the options describe, checked. */
    LinkSettings link() {
        return linkOptions.settings();
    }

    /** The settings, checked; the link must have a rate, goodput being a share of it. */
    KeysUnderLoadReport.Settings settings(LinkSettings link) {
        if (link.bitsPerSecond() == 0) {
            throw new IllegalArgumentException("--bandwidth-mbit must be above 0: goodput is a share of it");
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
        checkSeconds("--idle-seconds", idleSeconds, 0.5);
        checkSeconds("--loaded-seconds", loadedSeconds, 0.5);
        checkSeconds("--ramp-seconds", rampSeconds, 0);
        return new KeysUnderLoadReport.Settings(
                link.delayMs(),
                link.bandwidthMbit(),
                link.bufferBytes(),
                link.queueing().name().toLowerCase(Locale.ROOT),
                mode,
                run.flowControl(),
                smallSize,
                intervalMs,
                idleSeconds,
                writers,
                valueSize,
                rampSeconds,
                loadedSeconds,
                clusterSecret);
    }

    private static void checkSeconds(String option, double value, double min) {
        if (!(value >= min && value <= 600)) {
            throw new IllegalArgumentException(option + " is not in " + Report.number(min) + "..600: " + value);
        }
    }
}
