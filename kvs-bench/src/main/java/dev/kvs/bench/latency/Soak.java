package dev.kvs.bench.latency;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cli.ProgressLine;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.bench.resp.RespConnection;
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
 * by an emulated WAN link, under a mixed load ({@link SoakLoad}) and delete and expiry churn ({@link
 * SoakChurn}) for a long time, the link cut and healed periodically; every {@code sampleSeconds} both
 * nodes' store entries and tombstones, off-heap bytes, heap, resident memory, open file descriptors,
 * threads and connections and the primary's replication backlog are sampled, right after a forced
 * full GC every {@code fullGcEverySeconds}. At the end the link is healed, the backup catches up, and
 * every written key, and a sample of the deleted and expired ones, is read back from both nodes.
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
    /**
     * The primary's key log ({@code replication.maxUnackedKeys}): its ring makes an entry per slot on
     * first use, so it grows the heap until as many keys were written (64 MB at the default million, a
     * quarter of an hour of the soak's writes), then stays; at this size it is full within the warm-up
     * and still holds a 5 s cut's writes many times over.
     */
    static final int KEY_LOG = 100_000;

    @Override
    public String describe() {
        SoakReport.Settings s = settings;
        return String.format(
                Locale.ROOT,
                "soak for %s s: %d writers of %s and %d of %s (%s), reconnecting every %d commands; %d SET+DEL"
                        + " and %d SET EX 1..10 writers of %d fresh keys/s each; maxEntries %,d (tombstone reserve"
                        + " %,d), maxBytes %s; link %s; cut %s s every %s s; nodes -Xmx%s; a sample every %s s, a full GC every"
                        + " %s s; trends after %s s",
                Report.number(s.durationSeconds()),
                s.smallWriters(),
                Report.bytes(s.smallSize()),
                s.largeWriters(),
                Report.bytes(s.largeSize()),
                s.mode(),
                s.reconnectEvery(),
                s.deleteWriters(),
                s.expireWriters(),
                s.churnRate(),
                s.maxEntries(),
                s.tombstoneReserve(),
                Report.bytes(s.maxBytes()),
                Report.link(link),
                Report.number(s.cutSeconds()),
                Report.number(s.cutEverySeconds()),
                s.nodeHeap(),
                Report.number(s.sampleSeconds()),
                Report.number(s.fullGcEverySeconds()),
                Report.number(s.warmUpSeconds()));
    }

    @Override
    public SoakReport run(Path runDir, PrintWriter err) throws InterruptedException {
        // the heap committed and touched at start, so that RSS follows what grows besides the heap
        JavaCommand java = JavaCommand.current()
                .withFlags(List.of("-Xmx" + settings.nodeHeap(), "-Xms" + settings.nodeHeap(), "-XX:+AlwaysPreTouch"));
        String tag = Long.toHexString(System.nanoTime() & 0xffffff);
        try (BenchCluster cluster =
                BenchCluster.start(link, settings.mode(), settings.flowControl(), runDir, java, "", tuning(settings))) {
            try (RespConnection c = RespConnection.open(
                    BenchCluster.HOST, cluster.primaryPort(), Duration.ofSeconds(5), REPLY_TIMEOUT)) {
                err.println("filling and emptying both stores once, so that they have touched their memory ...");
                err.flush();
                SoakPretouch.run(
                        c,
                        settings,
                        "fill-" + tag + "-",
                        () -> cluster.awaitDrained(SoakPretouch.drainTimeout(settings)));
            }
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
            SoakChurn churn = new SoakChurn(new SoakChurn.Settings(
                    BenchCluster.HOST,
                    cluster.primaryPort(),
                    settings.mode(),
                    settings.deleteWriters(),
                    settings.expireWriters(),
                    settings.churnRate(),
                    (int) settings.smallSize(),
                    REPLY_TIMEOUT,
                    "churn-" + tag + "-"));
            List<SoakReport.Sample> samples = new ArrayList<>();
            long cuts;
            load.start();
            churn.start();
            try {
                cuts = soak(err, cluster, load, churn, samples, start);
            } finally {
                load.stop();
                churn.stop();
                cluster.healLink();
            }
            cluster.checkAlive();
            cluster.awaitStreaming(Duration.ofSeconds(60));
            cluster.awaitDrained(Duration.ofSeconds(120));
            SoakLoad.Check primary;
            SoakLoad.Check backup;
            SoakChurn.Check primaryChurn;
            SoakChurn.Check backupChurn;
            try (RespConnection p = RespConnection.open(
                            BenchCluster.HOST, cluster.primaryPort(), Duration.ofSeconds(5), REPLY_TIMEOUT);
                    RespConnection b = RespConnection.open(
                            BenchCluster.HOST, cluster.backupPort(), Duration.ofSeconds(5), REPLY_TIMEOUT)) {
                primary = load.verify(key -> value(peek(p, key)));
                backup = load.verify(key -> value(peek(b, key)));
                long now = System.currentTimeMillis();
                primaryChurn = churn.verify(key -> peek(p, key), now);
                backupChurn = churn.verify(key -> peek(b, key), now);
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
                    cuts,
                    churn.deleted(),
                    churn.expiring(),
                    churn.failures());
            SoakReport.Checks checks = new SoakReport.Checks(primary, backup, primaryChurn, backupChurn);
            List<SoakTrends.Trend> trends = SoakTrends.of(settings, samples);
            return new SoakReport(
                    "soak",
                    settings,
                    samples,
                    minutes,
                    writes,
                    checks,
                    trends,
                    SoakReport.verdict(settings, samples, trends, minutes, writes, checks),
                    Provenance.now(runDir));
        } catch (IOException e) {
            throw new UncheckedIOException("a client connection failed: " + e.getMessage(), e);
        }
    }

    /**
     * The nodes' store and replication YAML: the store's {@code maxEntries} and {@code maxBytes} (whose
     * pages the store touches as it cycles through them: a small store is touched through within the
     * warm-up, so that what RSS does later is no store filling its reservation), {@link #KEY_LOG}, and
     * a write timeout long enough that writes wait through a cut rather than fail.
     */
    static String tuning(SoakReport.Settings s) {
        return "store:\n  maxEntries: " + s.maxEntries() + "\n  maxBytes: " + s.maxBytes() + "\nreplication:\n"
                + "  maxUnackedKeys: " + KEY_LOG + "\n  writeTimeoutMs: 10000\n";
    }

    /** The load's run: samples and link cuts on schedule until the duration is over; returns the cuts. */
    private long soak(
            PrintWriter err,
            BenchCluster cluster,
            SoakLoad load,
            SoakChurn churn,
            List<SoakReport.Sample> samples,
            long start)
            throws InterruptedException {
        long end = start + seconds(settings.durationSeconds());
        long sampleEvery = seconds(settings.sampleSeconds());
        long gcEvery = settings.fullGcEverySeconds() > 0 ? seconds(settings.fullGcEverySeconds()) : Long.MAX_VALUE;
        // half a period in: a full GC's sample falls between two cuts, not on one
        long nextGc = settings.fullGcEverySeconds() > 0 ? start + gcEvery / 2 : Long.MAX_VALUE;
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
                    "soak %s %5.0f/%.0f s  acked %,d small %,d large  deleted %,d expiring %,d  failed %,d  %s",
                    ProgressLine.bar(t, total),
                    t,
                    total,
                    load.smallAcked(),
                    load.largeAcked(),
                    churn.deleted(),
                    churn.expiring(),
                    load.failed(),
                    last == null
                            ? ""
                            : String.format(
                                    Locale.ROOT,
                                    "backup entries %,d tombstones %,d",
                                    last.backup().entries(),
                                    last.backup().tombstones()));
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
                    // a forced full GC is sampled at once: the heap it leaves is what the node holds
                    boolean fullGc = now >= nextGc;
                    if (fullGc) {
                        fullGc = Abuse.forceGc(cluster.pid(true)) & Abuse.forceGc(cluster.pid(false));
                        while (nextGc <= now) nextGc += gcEvery;
                    }
                    synchronized (samples) {
                        samples.add(sample(cluster, (now - start) / 1e9, healAt != Long.MAX_VALUE, fullGc));
                    }
                    while (nextSample <= System.nanoTime()) nextSample += sampleEvery;
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
    static SoakReport.Sample sample(BenchCluster cluster, double seconds, boolean cut, boolean afterFullGc) {
        JsonNode ps = status(cluster, true);
        JsonNode bs = status(cluster, false);
        JsonNode r = ps == null ? null : ps.path("replication");
        return new SoakReport.Sample(
                seconds,
                cut,
                afterFullGc,
                node(ps, ProcStats.of(cluster.pid(true))),
                node(bs, ProcStats.of(cluster.pid(false))),
                r == null ? -1 : r.path("unackedKeys").asLong(-1),
                r == null ? -1 : r.path("pendingValues").asLong(-1),
                r == null ? -1 : r.path("pendingValueBytes").asLong(-1),
                r == null ? -1 : r.path("oldestPendingValueMillis").asLong(-1));
    }

    private static JsonNode status(BenchCluster cluster, boolean primary) {
        try {
            return cluster.status(primary);
        } catch (UncheckedIOException | IllegalStateException e) {
            return null; // a slow admin answer is a gap in the samples, not a failure
        }
    }

    private static SoakReport.Node node(JsonNode status, ProcStats proc) {
        if (status == null) {
            return new SoakReport.Node(-1, -1, proc.rssBytes(), proc.fds(), proc.threads(), -1, -1, -1, -1, -1);
        }
        JsonNode m = status.path("memory");
        long entries = m.path("entries").asLong(-1);
        long keys = status.path("keys").asLong(-1);
        // a node from before tombstones were counted apart: every record that is no key is one
        long tombstones = m.path("tombstones").asLong(entries < 0 || keys < 0 ? -1 : entries - keys);
        return new SoakReport.Node(
                m.path("heapUsedBytes").asLong(-1),
                m.path("heapAfterGcBytes").asLong(-1),
                proc.rssBytes(),
                proc.fds(),
                proc.threads(),
                status.path("connections").asLong(-1),
                entries,
                tombstones,
                keys,
                m.path("offHeapBytes").asLong(-1));
    }

    /** What {@code KVS.PEEK key} says the node holds: null for no record. */
    private static SoakChurn.Held peek(RespConnection c, String key) throws IOException {
        Object reply = c.call("KVS.PEEK", key);
        if (reply == null) return null;
        if (reply instanceof List<?> l && l.size() >= 5) { // 6 since the expiry was added
            long expireAt = l.size() >= 6 && l.get(5) instanceof Long e ? e : 0;
            return new SoakChurn.Held(l.get(4) instanceof byte[] v ? v : null, expireAt);
        }
        throw new IOException("KVS.PEEK " + key + " answered " + reply);
    }

    private static byte[] value(SoakChurn.Held held) {
        return held == null ? null : held.value();
    }

    private static long seconds(double s) {
        return Math.round(s * 1e9);
    }
}
