package dev.kvs.bench.latency;

import dev.kvs.bench.cluster.LinkSettings;
import dev.kvs.bench.resp.RespConnection;
import dev.kvs.wan.WanLink;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.SocketTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

/**
 * The id-first-overhead benchmark: what an id-first write costs over an async one, in link round
 * trips, for values small and large. Starts two DCs joined by an emulated link, measures the link's
 * own round trip with {@code PING}s through a second link with the same settings, then for each
 * value size writes SETs one at a time, alternately on an {@code async} and an {@code id-first}
 * connection ({@code KVS.MODE}), the backup caught up before each size. Alternating puts both modes'
 * writes in the same state of the machine and of the value backlog: measured one mode after the
 * other, the local cost of a 10 MiB write moved between runs by more than the round trip.
 *
 * @param settings what to run
 * @param link the link between the DCs
 */
record IdFirstOverhead(IdFirstOverheadReport.Settings settings, LinkSettings link) implements Benchmark {
    /** How long the backup may take to catch up before a measurement. */
    static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(60);

    @Override
    public IdFirstOverheadReport run(Path runDir, PrintWriter err) throws InterruptedException {
        String tag = Long.toHexString(System.nanoTime() & 0xffffff);
        String tuning = "store:\n  maxBytes: 2GiB\nreplication:\n  writeTimeoutMs: 10000\n  maxValueLagMs: "
                + settings.maxValueLagMs() + "\n";
        try (BenchCluster cluster = BenchCluster.start(
                link,
                "id-first",
                settings.flowControl(),
                runDir,
                dev.kvs.bench.cluster.JavaCommand.current(),
                "",
                tuning,
                settings.clusterSecret().equals("on"))) {
            PhaseStats rtt = roundTrip(cluster.probeLink(), settings.warmUp(), settings.pings());
            err.printf(Locale.ROOT, "link round trip: p50 %s ms over %d PINGs%n", Report.ms(rtt.p50Ms()), rtt.ok());
            err.flush();
            List<IdFirstOverheadReport.SizeResult> results = new ArrayList<>();
            for (long size : settings.valueSizes()) {
                byte[] value = new byte[(int) size];
                new Random(size).nextBytes(value);
                int count = settings.countFor(size);
                PhaseStats[] pair =
                        measure(cluster, value, settings.warmUpFor(size), count, "ifo-" + tag + "-" + size + "-");
                PhaseStats async = pair[0];
                PhaseStats idFirst = pair[1];
                report(err, size, "async", async);
                report(err, size, "id-first", idFirst);
                results.add(IdFirstOverheadReport.SizeResult.of(size, async, idFirst, rtt.p50Ms()));
            }
            return new IdFirstOverheadReport(
                    "id-first-overhead",
                    settings,
                    rtt,
                    results,
                    IdFirstOverheadReport.verdict(results, rtt.p50Ms()),
                    Provenance.now(runDir));
        } catch (IOException e) {
            throw new UncheckedIOException("a client connection failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return IdFirstOverheadReport.describe(settings, link);
    }

    private static void report(PrintWriter err, long size, String mode, PhaseStats p) {
        err.printf(
                Locale.ROOT,
                "%-8s %-8s %3d SETs  p50 %s ms  p99 %s ms%s%n",
                Report.bytes(size),
                mode,
                p.sent(),
                Report.ms(p.p50Ms()),
                Report.ms(p.p99Ms()),
                p.failed() == 0 ? "" : "  failed " + p.failed() + KeysUnderLoadReport.failures(p.failures()));
        err.flush();
    }

    /** {@code PING}s one at a time through {@code probe}, after {@code warmUp} unmeasured ones. */
    static PhaseStats roundTrip(WanLink probe, int warmUp, int pings) throws IOException {
        long[] micros = new long[pings];
        try (RespConnection c = RespConnection.open(
                BenchCluster.HOST, probe.port(), Duration.ofSeconds(5), KeysUnderLoad.REPLY_TIMEOUT)) {
            for (int i = 0; i < warmUp; i++) expectPong(c.call("PING"));
            for (int i = 0; i < pings; i++) {
                long start = System.nanoTime();
                expectPong(c.call("PING"));
                micros[i] = (System.nanoTime() - start) / 1000;
            }
        }
        return PhaseStats.of(pings, Latencies.of(micros), Map.of());
    }

    private static void expectPong(Object reply) {
        if (!"PONG".equals(reply)) {
            throw new IllegalStateException("PING through the probe link answered " + RespConnection.describe(reply));
        }
    }

    /**
     * On two new connections, one {@code async} and one {@code id-first}: {@code warmUp} SETs on each,
     * then, once the backup has caught up, {@code count} SETs on each, one at a time and alternating,
     * each latency from sending to its reply. A SET that times out is counted and its connection
     * replaced.
     *
     * @return the async stats, then the id-first stats
     */
    static PhaseStats[] measure(BenchCluster cluster, byte[] value, int warmUp, int count, String keyPrefix)
            throws IOException, InterruptedException {
        String[] modes = {"async", "id-first"};
        Sampler[] samplers = {new Sampler(cluster, modes[0], count), new Sampler(cluster, modes[1], count)};
        try {
            for (int i = 0; i < warmUp; i++) {
                for (Sampler m : samplers) m.connection.call("SET", keyPrefix + m.mode + "-w" + i, value);
            }
            cluster.awaitDrained(DRAIN_TIMEOUT);
            for (int i = 0; i < count; i++) {
                for (Sampler m : samplers) m.set(keyPrefix + m.mode + "-" + i, value);
            }
        } finally {
            for (Sampler m : samplers) m.connection.close();
        }
        return new PhaseStats[] {samplers[0].stats(), samplers[1].stats()};
    }

    /** One mode's connection and the latencies of its SETs. */
    private static final class Sampler {
        final BenchCluster cluster;
        final String mode;
        final int count;
        final long[] micros;
        final Map<String, Long> failures = new TreeMap<>();
        RespConnection connection;
        int ok;

        Sampler(BenchCluster cluster, String mode, int count) throws IOException {
            this.cluster = cluster;
            this.mode = mode;
            this.count = count;
            this.micros = new long[count];
            this.connection = connect(cluster, mode);
        }

        void set(String key, byte[] value) throws IOException {
            long start = System.nanoTime();
            Object reply;
            try {
                reply = connection.call("SET", key, value);
            } catch (SocketTimeoutException e) {
                failures.merge("timeout", 1L, Long::sum);
                connection.close();
                connection = connect(cluster, mode);
                return;
            }
            long took = (System.nanoTime() - start) / 1000;
            if ("OK".equals(reply)) {
                micros[ok++] = took;
            } else {
                failures.merge(
                        reply instanceof RespConnection.ErrorReply e ? e.kind() : "unexpected reply", 1L, Long::sum);
            }
        }

        PhaseStats stats() {
            return PhaseStats.of(count, Latencies.of(Arrays.copyOf(micros, ok)), failures);
        }
    }

    private static RespConnection connect(BenchCluster cluster, String mode) throws IOException {
        RespConnection c = RespConnection.open(
                BenchCluster.HOST, cluster.primaryPort(), Duration.ofSeconds(5), KeysUnderLoad.REPLY_TIMEOUT);
        Object reply = c.call("KVS.MODE", mode);
        if (!"OK".equals(reply)) {
            c.close();
            throw new IllegalStateException("KVS.MODE " + mode + " answered " + RespConnection.describe(reply));
        }
        return c;
    }
}
