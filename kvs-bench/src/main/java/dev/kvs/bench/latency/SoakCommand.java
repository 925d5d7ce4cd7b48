package dev.kvs.bench.latency;

import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.server.cli.KvsVersionProvider;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code kvs bench soak}: does anything grow without bound over a long run of load, reconnects and
 * link cuts? See {@link Soak} and {@link SoakReport#verdict}.
 */
@Command(
        name = "soak",
        sortOptions = false,
        mixinStandardHelpOptions = true,
        versionProvider = KvsVersionProvider.class,
        headerHeading = "%n",
        header = "A long run of mixed load, reconnects and link cuts: heap, fds and threads must stay flat.",
        descriptionHeading = "%n",
        description = {
            "Starts dc-backup and dc-main as separate JVMs (-Xmx --node-heap) on loopback, joined by a WAN"
                    + " link emulator in this process. For --duration, --small-writers write --small-size values"
                    + " (every tenth command a GET of a key they wrote, checked) and --large-writers write"
                    + " --large-size values, one command at a time on their own connections, each reconnecting"
                    + " every --reconnect-every commands; the link is cut for --cut-seconds every --cut-every."
                    + " Every --sample-seconds both nodes' heap (used, and after their last GC), resident"
                    + " memory, open fds, threads and client connections, and the primary's key log and pending"
                    + " values, are sampled. At the end the link is healed, the backup catches up, and every"
                    + " written key is read back from both nodes (KVS.PEEK).",
            "",
            "PASS when, on each node, the last third's heap-after-GC minimum <= the first third's + 25%% + 32"
                    + " MiB, the last third's median of open fds <= the first third's + 10%% + 16, of threads"
                    + " <= the first third's + 8, and no acknowledged write was lost on either node."
        },
        optionListHeading = "%nOptions:%n")
public final class SoakCommand implements Callable<Integer> {
    @Option(
            names = "--duration",
            paramLabel = "TIME",
            converter = BenchOptions.SecondsConverter.class,
            description = "How long the load runs: 90s, 10m, 1h (default: 10m)")
    private double duration = 600;

    @Option(
            names = "--sample-seconds",
            paramLabel = "S",
            description = "Time between two samples of the nodes (default: ${DEFAULT-VALUE})")
    private double sampleSeconds = 5;

    @Mixin
    private final LinkOptions linkOptions = LinkOptions.withRateOrUnlimited(5, 100);

    @Option(
            names = "--mode",
            paramLabel = "MODE",
            converter = BenchOptions.ModeConverter.class,
            description = "Replication mode of every client (default: id-first)")
    private String mode = "id-first";

    @Option(
            names = "--small-writers",
            paramLabel = "N",
            description = "Writers of small values (default: ${DEFAULT-VALUE})")
    private int smallWriters = 2;

    @Option(
            names = "--small-size",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "Bytes per small value (default: 100)")
    private long smallSize = 100;

    @Option(
            names = "--large-writers",
            paramLabel = "N",
            description = "Writers of large values (default: ${DEFAULT-VALUE})")
    private int largeWriters = 1;

    @Option(
            names = "--large-size",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "Bytes per large value (default: 1MiB)")
    private long largeSize = 1 << 20;

    @Option(
            names = "--reconnect-every",
            paramLabel = "N",
            description = "Commands a writer sends on one connection before it reconnects (default: ${DEFAULT-VALUE})")
    private int reconnectEvery = 500;

    @Option(
            names = "--cut-every",
            paramLabel = "TIME",
            converter = BenchOptions.SecondsConverter.class,
            description = "Time between two cuts of the replication link, 0 for none (default: 60s)")
    private double cutEvery = 60;

    @Option(names = "--cut-seconds", paramLabel = "S", description = "How long a cut lasts (default: ${DEFAULT-VALUE})")
    private double cutSeconds = 5;

    @Option(
            names = "--node-heap",
            paramLabel = "SIZE",
            description = "The nodes' -Xmx, e.g. 512m (default: ${DEFAULT-VALUE})")
    private String nodeHeap = "512m";

    @Mixin
    private RunOptions run;

    @Override
    public Integer call() throws InterruptedException {
        return run.run(this::benchmark);
    }

    /** The soak the options describe, checked. */
    Soak benchmark() {
        LinkSettings link = linkOptions.settings();
        return new Soak(settings(link), link, ProgressLine.stderrIsTerminal());
    }

    /** The settings, checked. */
    SoakReport.Settings settings(LinkSettings link) {
        if (!(duration >= 30 && duration <= 7 * 24 * 3600)) {
            throw new IllegalArgumentException("--duration is not in 30s..168h: " + duration + " s");
        }
        if (!(sampleSeconds >= 1 && sampleSeconds <= duration / 6)) {
            throw new IllegalArgumentException(
                    "--sample-seconds is not in 1..duration/6 (two samples per third): " + sampleSeconds);
        }
        if (smallWriters < 1 || smallWriters > 64) {
            throw new IllegalArgumentException("--small-writers is not in 1..64: " + smallWriters);
        }
        if (largeWriters < 0 || largeWriters > 16) {
            throw new IllegalArgumentException("--large-writers is not in 0..16: " + largeWriters);
        }
        if (smallSize < 1 || smallSize > 1 << 20) {
            throw new IllegalArgumentException("--small-size is not in 1B..1MiB: " + smallSize);
        }
        if (largeSize < 1 || largeSize > BenchOptions.MAX_VALUE_SIZE) {
            throw new IllegalArgumentException("--large-size is not in 1B..64MiB: " + largeSize);
        }
        if (reconnectEvery < 1) throw new IllegalArgumentException("--reconnect-every < 1: " + reconnectEvery);
        if (!(cutEvery == 0 || (cutEvery >= 1 && cutEvery <= duration))) {
            throw new IllegalArgumentException("--cut-every is not 0 or in 1 s..duration: " + cutEvery);
        }
        if (!(cutSeconds >= 0.1 && (cutEvery == 0 || cutSeconds < cutEvery))) {
            throw new IllegalArgumentException(
                    "--cut-seconds is not at least 0.1 and below --cut-every: " + cutSeconds);
        }
        if (!nodeHeap.matches("\\d+[kKmMgG]?")) {
            throw new IllegalArgumentException("--node-heap is not a -Xmx size like 512m: " + nodeHeap);
        }
        return new SoakReport.Settings(
                duration,
                sampleSeconds,
                link.delayMs(),
                link.bandwidthMbit(),
                mode,
                run.flowControl(),
                smallWriters,
                smallSize,
                largeWriters,
                largeSize,
                reconnectEvery,
                cutEvery,
                cutSeconds,
                nodeHeap);
    }
}
