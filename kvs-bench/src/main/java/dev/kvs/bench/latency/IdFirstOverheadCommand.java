package dev.kvs.bench.latency;

import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.server.cli.KvsVersionProvider;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code kvs bench id-first-overhead}: what an id-first write costs over an async one, in link round
 * trips, per value size. See {@link IdFirstOverhead}.
 */
@Command(
        name = "id-first-overhead",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "What an id-first write costs over an async one, in WAN round trips, per value size.",
        descriptionHeading = "%n",
        description = {
            "Starts dc-backup and dc-main as separate JVMs on loopback, joined by a WAN link emulator in"
                    + " this process (--delay-ms each way, --bandwidth-mbit, --buffer, --queueing), dc-main with"
                    + " --flow-control. First the link's own round trip: --pings PINGs to dc-backup through a"
                    + " second link with the same settings (p50). Then, for each of --sizes, one client writes"
                    + " SETs one at a time, --count per mode (--large-count for values over 1 MiB), alternately"
                    + " on an async and an id-first connection (KVS.MODE), after --warm-up unmeasured SETs on each"
                    + " and with the backup caught up.",
            "",
            "Prints per size the async and id-first p50 and (id-first p50 - async p50) / link RTT, and PASS"
                    + " or FAIL against: at most 1.2 round trips for every size, no SET failed. Node configs and"
                    + " logs go to a run directory (printed); Ctrl-C stops every process the benchmark started."
        },
        optionListHeading = "%nOptions:%n")
public final class IdFirstOverheadCommand implements Callable<Integer> {
    @Mixin
    private final LinkOptions linkOptions = LinkOptions.withRateOrUnlimited(5, 1000);

    @Option(
            names = "--sizes",
            paramLabel = "SIZE[,SIZE...]",
            converter = BenchOptions.SizesConverter.class,
            description = "Value sizes, each up to 64MiB (default: 100B,100kB,1MiB,10MiB)")
    private BenchOptions.SizeList sizes = new BenchOptions.SizeList(List.of(100L, 100_000L, 1L << 20, 10L << 20));

    @Option(
            names = "--count",
            paramLabel = "N",
            description = "SETs measured per size and mode (default: ${DEFAULT-VALUE})")
    private int count = 100;

    @Option(
            names = "--large-count",
            paramLabel = "N",
            description = "SETs measured per mode for values over 1 MiB (default: ${DEFAULT-VALUE})")
    private int largeCount = 30;

    @Option(
            names = "--warm-up",
            paramLabel = "N",
            description = "Unmeasured SETs (and PINGs) before each measurement, at most 5 for values over 1 MiB"
                    + " (default: ${DEFAULT-VALUE})")
    private int warmUp = 50;

    @Option(
            names = "--pings",
            paramLabel = "N",
            description = "PINGs measuring the link's round trip (default: ${DEFAULT-VALUE})")
    private int pings = 30;

    @Option(
            names = "--max-value-lag-ms",
            paramLabel = "MS",
            description = "dc-main's replication.maxValueLagMs (default: ${DEFAULT-VALUE}, off: this bench's async"
                    + " writes queue values faster than the link on purpose; kvs bench value-lag measures the bound)")
    private long maxValueLagMs = 0;

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
    IdFirstOverhead benchmark() {
        LinkSettings link = link();
        return new IdFirstOverhead(settings(link), link);
    }

    /** The link the options describe, checked. */
    LinkSettings link() {
        return linkOptions.settings();
    }

    /** The settings, checked. */
    IdFirstOverheadReport.Settings settings(LinkSettings link) {
        if (count < 1 || count > 10_000) throw new IllegalArgumentException("--count is not in 1..10000: " + count);
        if (largeCount < 1 || largeCount > 10_000) {
            throw new IllegalArgumentException("--large-count is not in 1..10000: " + largeCount);
        }
        if (warmUp < 0 || warmUp > 1000) throw new IllegalArgumentException("--warm-up is not in 0..1000: " + warmUp);
        if (pings < 1 || pings > 10_000) throw new IllegalArgumentException("--pings is not in 1..10000: " + pings);
        if (maxValueLagMs < 0 || maxValueLagMs > 3_600_000) {
            throw new IllegalArgumentException("--max-value-lag-ms is not in 0..3600000: " + maxValueLagMs);
        }
        return new IdFirstOverheadReport.Settings(
                link.delayMs(),
                link.bandwidthMbit(),
                link.bufferBytes(),
                link.queueing().name().toLowerCase(Locale.ROOT),
                run.flowControl(),
                sizes.sizes(),
                count,
                largeCount,
                warmUp,
                pings,
                maxValueLagMs,
                clusterSecret);
    }
}
