package dev.kvs.bench.latency;

import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The keys-under-load benchmark: how long a small id-first write waits while large values fill the
 * WAN link. Starts two DCs joined by an emulated link, measures small SETs on a fixed schedule with
 * nothing else on the link (idle), then again while writers write large values back to back
 * (loaded), and reads the primary's flow control state at the end.
 *
 * @param settings what to run
 * @param link the link between the DCs
 * @param terminal whether stderr is a terminal (progress lines redrawn in place)
 */
record KeysUnderLoad(KeysUnderLoadReport.Settings settings, LinkSettings link, boolean terminal) implements Benchmark {
    /** How long a connection may stay silent while its SETs wait for replies. */
    static final Duration REPLY_TIMEOUT = Duration.ofSeconds(30);
    /** Small SETs sent and answered one by one before the idle phase, not measured. */
    static final int WARM_UP_SETS = 20;
    /** How often a phase's progress is printed where stderr is not a terminal. */
    private static final Duration PLAIN_PROGRESS = Duration.ofSeconds(2);

    @Override
    public KeysUnderLoadReport run(Path runDir, PrintWriter err) throws InterruptedException {
        String tag = Long.toHexString(System.nanoTime() & 0xffffff);
        try (BenchCluster cluster = BenchCluster.start(
                link,
                settings.mode(),
                settings.flowControl(),
                runDir,
                JavaCommand.current(),
                "",
                BenchCluster.TUNING,
                settings.clusterSecret().equals("on"))) {
            SmallWrites small = new SmallWrites(new SmallWrites.Settings(
                    BenchCluster.HOST,
                    cluster.primaryPort(),
                    settings.mode(),
                    (int) settings.smallSize(),
                    Duration.ofNanos(Math.round(settings.intervalMs() * 1e6)),
                    REPLY_TIMEOUT,
                    "kul-" + tag + "-small-"));
            small.warmUp(WARM_UP_SETS);

            PhaseStats idle;
            try (ProgressLine p = progress(err, "idle", settings.idleSeconds(), () -> smallNumbers(small))) {
                idle = small.run(seconds(settings.idleSeconds()));
            }
            cluster.checkAlive();

            BulkWriters writers = new BulkWriters(new BulkWriters.Settings(
                    BenchCluster.HOST,
                    cluster.primaryPort(),
                    settings.mode(),
                    settings.writers(),
                    (int) settings.valueSize(),
                    REPLY_TIMEOUT,
                    "kul-" + tag + "-w"));
            writers.start();
            try {
                return loaded(runDir, err, cluster, small, idle, writers);
            } finally {
                writers.stop();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a client connection to dc-main failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return KeysUnderLoadReport.describe(settings, link);
    }

    /** Where the loaded measurement ended: the link's and the primary's counters at that moment. */
    private record WindowEnd(long relayedToBackup, long nanos, BenchCluster.Replication primary) {}

    /** The ramp and the loaded measurement, the writers running; then the report. */
    private KeysUnderLoadReport loaded(
            Path runDir, PrintWriter err, BenchCluster cluster, SmallWrites small, PhaseStats idle, BulkWriters writers)
            throws IOException, InterruptedException {
        if (settings.rampSeconds() > 0) {
            try (ProgressLine p = progress(err, "ramp", settings.rampSeconds(), () -> writerNumbers(writers))) {
                // the benchmark's own schedule, not a synchronisation
                TimeUnit.NANOSECONDS.sleep(seconds(settings.rampSeconds()).toNanos());
            }
        }
        cluster.checkAlive();
        long relayed0 = cluster.relayedToBackup();
        long shipped0 = cluster.primaryReplication().valueBytesShipped();
        long start = System.nanoTime();
        AtomicReference<WindowEnd> end = new AtomicReference<>();
        PhaseStats loaded;
        try (ProgressLine p = progress(
                err,
                "loaded",
                settings.loadedSeconds(),
                () -> smallNumbers(small) + "  " + writerNumbers(writers) + "  "
                        + linkNumbers(cluster, relayed0, start))) {
            loaded = small.run(
                    seconds(settings.loadedSeconds()),
                    () -> end.set(
                            new WindowEnd(cluster.relayedToBackup(), System.nanoTime(), cluster.primaryReplication())));
        }
        WindowEnd e = end.get();
        KeysUnderLoadReport.Goodput goodput = KeysUnderLoadReport.Goodput.of(
                e.relayedToBackup() - relayed0,
                (e.nanos() - start) / 1e9,
                link.bytesPerSecond(),
                e.primary().valueBytesShipped() - shipped0);
        BulkWriters.Result written = writers.stop();
        return new KeysUnderLoadReport(
                "keys-under-load",
                settings,
                idle,
                loaded,
                written,
                goodput,
                e.primary(),
                KeysUnderLoadReport.verdict(idle, loaded, goodput),
                Provenance.now(runDir));
    }

    /** The progress of a phase {@code seconds} long: {@code loaded  [####......]   2.5/20.0 s  NUMBERS}. */
    private ProgressLine progress(PrintWriter err, String label, double seconds, Supplier<String> numbers) {
        long start = System.nanoTime();
        return new ProgressLine(err, terminal, PLAIN_PROGRESS, () -> {
            double t = Math.min((System.nanoTime() - start) / 1e9, seconds);
            return String.format(
                    Locale.ROOT,
                    "%-7s %s %5.1f/%.1f s  %s",
                    label,
                    ProgressLine.bar(t, seconds),
                    t,
                    seconds,
                    numbers.get());
        });
    }

    static Duration seconds(double s) {
        return Duration.ofNanos(Math.round(s * 1e9));
    }

    private static String smallNumbers(SmallWrites small) {
        return String.format(
                Locale.ROOT, "small SETs answered %,d  last %s ms", small.answered(), Report.ms(small.lastMs()));
    }

    private static String writerNumbers(BulkWriters w) {
        return String.format(Locale.ROOT, "writers acked %,d failed %,d", w.acked(), w.failed());
    }

    private static String linkNumbers(BenchCluster cluster, long relayed0, long start) {
        double secs = (System.nanoTime() - start) / 1e9;
        return "to backup " + Report.rate(secs > 0 ? (cluster.relayedToBackup() - relayed0) / secs : 0);
    }
}
