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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * The soak: a primary and a backup (separate JVMs, each with {@code -Xmx} {@code nodeHeap}) joined
 * by an emulated WAN link, under a mixed load ({@link SoakLoad}) for a long time, the link cut and
 * healed periodically; every {@code sampleSeconds} both nodes' heap, resident memory, open file
 * descriptors, threads and connections and the primary's replication backlog are sampled. At the end
 * the link is healed, the backup catches up, and every written key is read back from both nodes.
 *
 * @param settings what to run
 * @param link the link between the DCs
 * @param terminal whether stderr is a terminal
 */
record Soak(SoakReport.Settings settings, LinkSettings link, boolean terminal) implements Benchmark {
    static final Duration REPLY_TIMEOUT = Duration.ofSeconds(30);
    /** Keys per writer of small values. */
    static final int SMALL_KEYS = 2000;
    /** Keys per writer of large values. */
    static final int LARGE_KEYS = 8;

    @Override
    public String describe() {
        SoakReport.Settings s = settings;
        return String.format(
                Locale.ROOT,
                "soak for %s s: %d writers of %s and %d of %s (%s), reconnecting every %d commands; link %s; cut"
                        + " %s s every %s s; nodes -Xmx%s; a sample every %s s",
                Report.number(s.durationSeconds()),
                s.smallWriters(),
                Report.bytes(s.smallSize()),
                s.largeWriters(),
                Report.bytes(s.largeSize()),
                s.mode(),
                s.reconnectEvery(),
                Report.link(link),
                Report.number(s.cutSeconds()),
                Report.number(s.cutEverySeconds()),
                s.nodeHeap(),
                Report.number(s.sampleSeconds()));
    }

    @Override
    public SoakReport run(Path runDir, PrintWriter err) throws InterruptedException {
        JavaCommand java = JavaCommand.current().withFlags(List.of("-Xmx" + settings.nodeHeap()));
        String tag = Long.toHexString(System.nanoTime() & 0xffffff);
        try (BenchCluster cluster = BenchCluster.start(link, settings.mode(), settings.flowControl(), runDir, java)) {
            long start = System.nanoTime();
            SoakLoad load = new SoakLoad(
                    new SoakLoad.Settings(
                            BenchCluster.HOST,
                            cluster.primaryPort(),
                            settings.mode(),
                            settings.smallWriters(),
                            (int) settings.smallSize(),
                            SMALL_KEYS,
                            settings.largeWriters(),
                            (int) settings.largeSize(),
                            LARGE_KEYS,
                            settings.reconnectEvery(),
                            REPLY_TIMEOUT,
                            "soak-" + tag + "-"),
                    start);
            List<SoakReport.Sample> samples = new ArrayList<>();
            long cuts;
            load.start();
            try {
                cuts = soak(err, cluster, load, samples, start);
            } finally {
                load.stop();
                cluster.healLink();
            }
            cluster.checkAlive();
            cluster.awaitStreaming(Duration.ofSeconds(60));
            cluster.awaitDrained(Duration.ofSeconds(120));
            SoakLoad.Check primary;
            SoakLoad.Check backup;
            try (RespConnection p = RespConnection.open(
                            BenchCluster.HOST, cluster.primaryPort(), Duration.ofSeconds(5), REPLY_TIMEOUT);
                    RespConnection b = RespConnection.open(
                            BenchCluster.HOST, cluster.backupPort(), Duration.ofSeconds(5), REPLY_TIMEOUT)) {
                primary = load.verify(key -> peek(p, key));
                backup = load.verify(key -> peek(b, key));
            }
            List<SoakReport.Minute> minutes = new ArrayList<>();
            List<Latencies> perMinute = load.minutes();
            for (int i = 0; i < perMinute.size(); i++) minutes.add(SoakReport.Minute.of(i, perMinute.get(i)));
            SoakReport.Writes writes = new SoakReport.Writes(
                    load.smallAcked(),
                    load.largeAcked(),
                    load.failures(),
                    load.reads(),
                    load.readMismatches(),
                    load.reconnects(),
                    cuts);
            return new SoakReport(
                    "soak",
                    settings,
                    samples,
                    minutes,
                    writes,
                    primary,
                    backup,
                    SoakReport.verdict(samples, minutes, settings.durationSeconds(), writes, primary, backup),
                    Provenance.now(runDir));
        } catch (IOException e) {
            throw new UncheckedIOException("a client connection failed: " + e.getMessage(), e);
        }
    }

    /** The load's run: samples and link cuts on schedule until the duration is over; returns the cuts. */
    private long soak(PrintWriter err, BenchCluster cluster, SoakLoad load, List<SoakReport.Sample> samples, long start)
            throws InterruptedException {
        long end = start + seconds(settings.durationSeconds());
        long sampleEvery = seconds(settings.sampleSeconds());
        long cutEvery = settings.cutEverySeconds() > 0 ? seconds(settings.cutEverySeconds()) : Long.MAX_VALUE;
        long nextSample = start + sampleEvery;
        long nextCut = settings.cutEverySeconds() > 0 ? start + cutEvery : Long.MAX_VALUE;
        long healAt = Long.MAX_VALUE;
        long cuts = 0;
        double total = settings.durationSeconds();
        try (ProgressLine p = new ProgressLine(err, terminal, Duration.ofSeconds(10), () -> {
            double t = Math.min((System.nanoTime() - start) / 1e9, total);
            SoakReport.Sample last = lastOf(samples);
            return String.format(
                    Locale.ROOT,
                    "soak %s %5.0f/%.0f s  acked %,d small %,d large  failed %,d  %s",
                    ProgressLine.bar(t, total),
                    t,
                    total,
                    load.smallAcked(),
                    load.largeAcked(),
                    load.failed(),
                    last == null
                            ? ""
                            : String.format(
                                    Locale.ROOT,
                                    "primary heap %d MiB fds %d threads %d",
                                    last.primary().heapUsedBytes() >> 20,
                                    last.primary().fds(),
                                    last.primary().threads()));
        })) {
            while (true) {
                long now = System.nanoTime();
                if (now >= end) break;
                if (now >= healAt) {
                    cluster.healLink();
                    healAt = Long.MAX_VALUE;
                }
                if (now >= nextCut) {
                    cluster.cutLink();
                    cuts++;
                    healAt = now + seconds(settings.cutSeconds());
                    nextCut += cutEvery;
                }
                if (now >= nextSample) {
                    synchronized (samples) {
                        samples.add(sample(cluster, (now - start) / 1e9, healAt != Long.MAX_VALUE));
                    }
                    nextSample += sampleEvery;
                    cluster.checkAlive();
                }
                long next = Math.min(Math.min(end, nextSample), Math.min(nextCut, healAt));
                // the soak's own schedule of samples and cuts, not a synchronisation
                TimeUnit.NANOSECONDS.sleep(Math.max(0, next - System.nanoTime()));
            }
        }
        return cuts;
    }

    private static SoakReport.Sample lastOf(List<SoakReport.Sample> samples) {
        synchronized (samples) {
            return samples.isEmpty() ? null : samples.get(samples.size() - 1);
        }
    }

    /** Both nodes' figures now; a figure that cannot be read is -1. */
    static SoakReport.Sample sample(BenchCluster cluster, double seconds, boolean cut) {
        JsonNode ps = status(cluster, true);
        JsonNode bs = status(cluster, false);
        JsonNode r = ps == null ? null : ps.path("replication");
        return new SoakReport.Sample(
                seconds,
                cut,
                node(ps, ProcStats.of(cluster.pid(true))),
                node(bs, ProcStats.of(cluster.pid(false))),
                r == null ? -1 : r.path("unackedKeys").asLong(-1),
                r == null ? -1 : r.path("pendingValues").asLong(-1),
                r == null ? -1 : r.path("pendingValueBytes").asLong(-1));
    }

    private static JsonNode status(BenchCluster cluster, boolean primary) {
        try {
            return cluster.status(primary);
        } catch (UncheckedIOException | IllegalStateException e) {
            return null; // a slow admin answer is a gap in the samples, not a failure
        }
    }

    private static SoakReport.Node node(JsonNode status, ProcStats proc) {
        JsonNode m = status == null ? null : status.path("memory");
        return new SoakReport.Node(
                m == null ? -1 : m.path("heapUsedBytes").asLong(-1),
                m == null ? -1 : m.path("heapAfterGcBytes").asLong(-1),
                proc.rssBytes(),
                proc.fds(),
                proc.threads(),
                status == null ? -1 : status.path("connections").asLong(-1));
    }

    private static byte[] peek(RespConnection c, String key) throws IOException {
        Object reply = c.call("KVS.PEEK", key);
        if (reply == null) return null;
        if (reply instanceof List<?> l && l.size() >= 5) { // 6 since the expiry was added
            return l.get(4) instanceof byte[] v ? v : null;
        }
        throw new IOException("KVS.PEEK " + key + " answered " + reply);
    }

    private static long seconds(double s) {
        return Math.round(s * 1e9);
    }
}
