package dev.kvs.bench.latency;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * The value-lag benchmark: does {@code replication.maxValueLagMs} bound a primary's exposure in time under a
 * load above the link's rate? Starts two DCs joined by an emulated link, measures small SETs alone (idle),
 * then starts writers of large values back to back and, after a ramp, small SETs again while the primary's
 * value lag is sampled; then kills the primary ({@code SIGKILL}) with the writers still writing, and reads
 * what the backup fences.
 *
 * @param settings what to run
 * @param link the link between the DCs
 * @param terminal whether stderr is a terminal (progress lines redrawn in place)
 */
record ValueLagBound(ValueLagBoundReport.Settings settings, LinkSettings link, boolean terminal) implements Benchmark {
    /** Time between two samples of the primary's value lag. */
    static final Duration SAMPLE_PERIOD = Duration.ofMillis(100);

    private static final Duration PLAIN_PROGRESS = Duration.ofSeconds(2);

    /** keys-under-load's tuning, and the bound if one is set: otherwise the node's default applies. */
    String tuning() {
        return "store:\n  maxBytes: 2GiB\nreplication:\n  writeTimeoutMs: 10000\n"
                + (settings.maxValueLagMs() == null ? "" : "  maxValueLagMs: " + settings.maxValueLagMs() + "\n");
    }

    @Override
    public String describe() {
        return ValueLagBoundReport.describe(settings, link);
    }

    /** Where the loaded measurement ended: the link's and the primary's counters at that moment. */
    private record WindowEnd(long relayedToBackup, long nanos, BenchCluster.Replication primary) {}

    @Override
    public ValueLagBoundReport run(Path runDir, PrintWriter err) throws InterruptedException {
        String tag = Long.toHexString(System.nanoTime() & 0xffffff);
        try (BenchCluster cluster = BenchCluster.start(
                link, settings.mode(), settings.flowControl(), runDir, JavaCommand.current(), "", tuning())) {
            long bound = cluster.primaryReplication().valueLag().maxValueLagMillis();
            SmallWrites small = new SmallWrites(new SmallWrites.Settings(
                    BenchCluster.HOST,
                    cluster.primaryPort(),
                    settings.mode(),
                    (int) settings.smallSize(),
                    Duration.ofNanos(Math.round(settings.intervalMs() * 1e6)),
                    KeysUnderLoad.REPLY_TIMEOUT,
                    "vlag-" + tag + "-small-"));
            small.warmUp(KeysUnderLoad.WARM_UP_SETS);
            PhaseStats idle;
            try (ProgressLine p = progress(err, "idle", settings.idleSeconds(), () -> "")) {
                idle = small.run(KeysUnderLoad.seconds(settings.idleSeconds()));
            }
            cluster.checkAlive();

            BulkWriters writers = new BulkWriters(new BulkWriters.Settings(
                    BenchCluster.HOST,
                    cluster.primaryPort(),
                    settings.mode(),
                    settings.writers(),
                    (int) settings.valueSize(),
                    KeysUnderLoad.REPLY_TIMEOUT,
                    "vlag-" + tag + "-w"));
            LagSampler sampler = new LagSampler(cluster, SAMPLE_PERIOD);
            sampler.start();
            writers.start();
            try {
                return loaded(runDir, err, cluster, bound, small, idle, writers, sampler);
            } finally {
                writers.stop();
                sampler.stop();
            }
        } catch (IOException e) {
            throw new UncheckedIOException("a client connection to dc-main failed: " + e.getMessage(), e);
        }
    }

    private ValueLagBoundReport loaded(
            Path runDir,
            PrintWriter err,
            BenchCluster cluster,
            long bound,
            SmallWrites small,
            PhaseStats idle,
            BulkWriters writers,
            LagSampler sampler)
            throws IOException, InterruptedException {
        Supplier<String> numbers = () -> String.format(
                Locale.ROOT,
                "writers acked %,d  max lag %,d ms (bound %,d)",
                writers.acked(),
                sampler.maxLagMillis(),
                bound);
        if (settings.rampSeconds() > 0) {
            try (ProgressLine p = progress(err, "ramp", settings.rampSeconds(), numbers)) {
                // the benchmark's own schedule, not a synchronisation
                TimeUnit.NANOSECONDS.sleep(
                        KeysUnderLoad.seconds(settings.rampSeconds()).toNanos());
            }
        }
        cluster.checkAlive();
        long relayed0 = cluster.relayedToBackup();
        long shipped0 = cluster.primaryReplication().valueBytesShipped();
        long start = System.nanoTime();
        AtomicReference<WindowEnd> end = new AtomicReference<>();
        PhaseStats loaded;
        try (ProgressLine p = progress(err, "loaded", settings.seconds(), numbers)) {
            loaded = small.run(
                    KeysUnderLoad.seconds(settings.seconds()),
                    () -> end.set(
                            new WindowEnd(cluster.relayedToBackup(), System.nanoTime(), cluster.primaryReplication())));
        }
        WindowEnd e = end.get();
        LagSampler.Result lag = sampler.stop();
        BulkWriters.Result written = writers.snapshot();

        long killedAt = System.currentTimeMillis();
        cluster.killPrimary(); // the writers are still writing
        err.println("value-lag: dc-main killed; reading what dc-backup fences");
        err.flush();
        ValueLagBoundReport.Fenced fenced = fenced(cluster, killedAt);

        KeysUnderLoadReport.Goodput goodput = KeysUnderLoadReport.Goodput.of(
                e.relayedToBackup() - relayed0,
                (e.nanos() - start) / 1e9,
                link.bytesPerSecond(),
                e.primary().valueBytesShipped() - shipped0);
        return new ValueLagBoundReport(
                "value-lag",
                settings,
                bound,
                idle,
                loaded,
                written,
                goodput,
                lag,
                e.primary().valueLag(),
                fenced,
                ValueLagBoundReport.verdict(bound, lag, goodput, idle, loaded, fenced),
                Provenance.now(runDir));
    }

    /**
     * The backup's unfinished keys right after the kill ({@code GET /lost}: each key packet with when it
     * arrived), then its promotion, which fences them ({@code lostCount}).
     */
    static ValueLagBoundReport.Fenced fenced(BenchCluster cluster, long killedAtMillis) {
        JsonNode unfinished = cluster.backupUnfinished().path("unfinished");
        Map<String, Long> oldest = new HashMap<>();
        for (JsonNode u : unfinished) {
            oldest.merge(u.path("keyBase64").asText(), u.path("sinceMillis").asLong(), Math::min);
        }
        long oldestAge = oldest.values().stream()
                .mapToLong(since -> Math.max(0, killedAtMillis - since))
                .max()
                .orElse(0);
        JsonNode manifest = cluster.promoteBackup().path("manifest");
        long bytes = 0;
        for (JsonNode l : manifest.path("lost")) bytes += l.path("valueLength").asLong();
        return new ValueLagBoundReport.Fenced(manifest.path("lostCount").asLong(), bytes, oldestAge);
    }

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
}
