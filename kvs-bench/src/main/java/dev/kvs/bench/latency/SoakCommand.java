package dev.kvs.bench.latency;

import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.core.StoreConfig;
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
        header = "A long run of mixed load, delete and expiry churn, reconnects and link cuts: the store, memory,"
                + " fds and threads must stay flat.",
        descriptionHeading = "%n",
        description = {
            "Starts dc-backup and dc-main as separate JVMs (-Xmx --node-heap) on loopback, joined by a WAN"
                    + " link emulator in this process. For --duration, --small-writers write --small-size values"
                    + " (every tenth command a GET of a key they wrote, checked) and --large-writers write"
                    + " --large-size values, one command at a time on their own connections, each reconnecting"
                    + " every --reconnect-every commands; beside them --delete-writers write SET+DEL pairs and"
                    + " --expire-writers SET k v EX 1..10, each on fresh keys at --churn-rate keys a second, both"
                    + " nodes' store holding --max-entries and --max-bytes (filled once and emptied before the"
                    + " load, so that it has touched its memory). The link is cut for --cut-seconds every"
                    + " --cut-every."
                    + " Every --sample-seconds both nodes' store entries, tombstones and off-heap bytes, heap"
                    + " (used, and after their last GC; a full GC is forced every --full-gc-every), resident"
                    + " memory, open fds, threads and client connections, and the primary's key log, pending"
                    + " values and the oldest one's age, are sampled. At the end the link is healed, the backup catches up, every"
                    + " written key is read back from both nodes (KVS.PEEK), and a sample of the deleted and"
                    + " expired keys too.",
            "",
            "PASS when, on each node, every figure is flat after --warm-up (with the link up and not just"
                    + " after a cut: its least-squares slope times 24 h, less 2 standard errors, within its"
                    + " budget: entries maxEntries/10, tombstones the"
                    + " tombstone reserve, off-heap a tenth of its mean, heap after the forced full GCs -Xmx/4,"
                    + " RSS half its mean, fds and threads a quarter of their mean + 16 and + 8), entries - keys"
                    + " <= the tombstone reserve in every sample, no acknowledged write was lost and no deleted"
                    + " or expired key is live again on either node, the churn wrote 2 x --max-entries keys, and"
                    + " every minute acknowledged more than one small SET."
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
            description = "The nodes' -Xmx and -Xms, e.g. 512m (default: ${DEFAULT-VALUE})")
    private String nodeHeap = "512m";

    @Option(
            names = "--delete-writers",
            paramLabel = "N",
            description = "Writers of SET+DEL pairs on fresh keys (default: ${DEFAULT-VALUE})")
    private int deleteWriters = 1;

    @Option(
            names = "--expire-writers",
            paramLabel = "N",
            description = "Writers of SET key v EX n on fresh keys, n random in 1..10 s (default: ${DEFAULT-VALUE})")
    private int expireWriters = 1;

    @Option(
            names = "--churn-rate",
            paramLabel = "N",
            description = "Fresh keys a second per delete or expire writer (default: ${DEFAULT-VALUE})")
    private int churnRate = 200;

    @Option(
            names = "--max-entries",
            paramLabel = "N",
            description = "Both nodes' store.maxEntries, small so that the churn cycles the store many times"
                    + " (default: ${DEFAULT-VALUE})")
    private long maxEntries = 100_000;

    @Option(
            names = "--max-bytes",
            paramLabel = "SIZE",
            converter = BenchOptions.SizeConverter.class,
            description = "Both nodes' store.maxBytes, small so that the store has touched all its pages within"
                    + " the warm-up (default: 128MiB)")
    private long maxBytes = 128L << 20;

    @Option(
            names = "--warm-up",
            paramLabel = "TIME",
            converter = BenchOptions.SecondsConverter.class,
            description = "Samples before this are not judged for trends: the JIT, the C heap and the key log settle"
                    + " (default: a fifth of --duration, at least 2m)")
    private Double warmUp;

    @Option(
            names = "--full-gc-every",
            paramLabel = "TIME",
            converter = BenchOptions.SecondsConverter.class,
            description = "Time between two full GCs forced on both nodes (jcmd GC.run), whose heap is the"
                    + " one judged; 0 for none (default: 60s)")
    private double fullGcEvery = 60;

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
        if (deleteWriters < 0 || deleteWriters > 16) {
            throw new IllegalArgumentException("--delete-writers is not in 0..16: " + deleteWriters);
        }
        if (expireWriters < 0 || expireWriters > 16) {
            throw new IllegalArgumentException("--expire-writers is not in 0..16: " + expireWriters);
        }
        if (churnRate < 1 || churnRate > 10_000) {
            throw new IllegalArgumentException("--churn-rate is not in 1..10000: " + churnRate);
        }
        long liveKeys = (long) smallWriters * Soak.SMALL_KEYS
                + (long) largeWriters * Soak.LARGE_KEYS
                + (long) expireWriters * churnRate * SoakChurn.MAX_EXPIRY;
        if (maxEntries < liveKeys + liveKeys / 2 || maxEntries > 1_000_000_000) {
            throw new IllegalArgumentException("--max-entries is not in 1.5 x the load's live keys (" + liveKeys
                    + ": the writers' keys and up to 10 s of expiring keys)..1000000000: " + maxEntries);
        }
        long liveBytes = (long) smallWriters * Soak.SMALL_KEYS * smallSize
                + (long) largeWriters * Soak.LARGE_KEYS * largeSize
                + (long) expireWriters * churnRate * SoakChurn.MAX_EXPIRY * smallSize;
        if (maxBytes < Math.max(16L << 20, 4 * liveBytes)) {
            throw new IllegalArgumentException(
                    "--max-bytes is below 4 x the load's live bytes (" + liveBytes + ") or 16MiB: " + maxBytes);
        }
        double warm = warmUp != null ? warmUp : Math.max(120, duration / 5);
        if (!(warm >= 0 && (duration - warm) / sampleSeconds >= SoakTrends.MIN_SAMPLES)) {
            throw new IllegalArgumentException("--warm-up leaves fewer than " + SoakTrends.MIN_SAMPLES
                    + " samples of --sample-seconds before the end of --duration: " + warm + " s");
        }
        if (!(fullGcEvery == 0 || (fullGcEvery >= sampleSeconds && fullGcEvery <= duration))) {
            throw new IllegalArgumentException(
                    "--full-gc-every is not 0 or in --sample-seconds..--duration: " + fullGcEvery + " s");
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
                nodeHeap,
                deleteWriters,
                expireWriters,
                churnRate,
                maxEntries,
                StoreConfig.builder().maxEntries(maxEntries).build().tombstoneReserve(),
                maxBytes,
                warm,
                fullGcEvery);
    }
}
