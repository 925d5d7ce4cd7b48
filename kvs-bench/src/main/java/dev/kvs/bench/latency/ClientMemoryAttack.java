package dev.kvs.bench.latency;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Issue 32's fifth finding in {@code kvs bench abuse}: many unauthenticated connections, each holding
 * what Redis's pre-auth caps allow (an array of 10 bulk strings of 16 KiB, the last one byte short, so
 * that no command ever completes), against a primary of its own ({@code requirepass},
 * {@code authTimeoutSeconds: 0} so that only {@code maxClientMemory}, at its default, bounds them). Its
 * client-memory figure and used heap are sampled through {@code GET /status} while an authenticated
 * client keeps sending {@code PING} and {@code SET}, each timed.
 *
 * @param connections unauthenticated connections to open
 * @param nodeHeap the nodes' {@code -Xmx}
 * @param sampleMillis time between two samples of the primary's status
 * @param flowControl the primary's {@code --flow-control}
 * @param link the link between the DCs
 */
record ClientMemoryAttack(int connections, String nodeHeap, long sampleMillis, String flowControl, LinkSettings link) {
    /** Redis's pre-auth caps: a multibulk of at most 10, bulk strings of at most 16 KiB. */
    static final int PRE_AUTH_ARGS = 10;

    static final int PRE_AUTH_BULK = 16 * 1024;
    /** What each connection sends: 10 bulk strings of 16 KiB announced, the last one byte short. */
    static final byte[] PAYLOAD = payload();

    private static final Duration FILL_BUDGET = Duration.ofSeconds(180);
    private static final Duration HOLD = Duration.ofSeconds(5);
    private static final long PROBE_PACE_MICROS = 2_000;

    private static byte[] payload() {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        byte[] bulk = new byte[PRE_AUTH_BULK];
        Arrays.fill(bulk, (byte) 'x');
        b.writeBytes(("*" + PRE_AUTH_ARGS + "\r\n").getBytes(StandardCharsets.US_ASCII));
        for (int i = 0; i < PRE_AUTH_ARGS; i++) {
            b.writeBytes(("$" + PRE_AUTH_BULK + "\r\n").getBytes(StandardCharsets.US_ASCII));
            b.write(bulk, 0, i < PRE_AUTH_ARGS - 1 ? bulk.length : bulk.length - 1);
            if (i < PRE_AUTH_ARGS - 1) b.writeBytes("\r\n".getBytes(StandardCharsets.US_ASCII));
        }
        return b.toByteArray();
    }

    /**
     * What it measured.
     *
     * @param connections unauthenticated connections asked for
     * @param opened of those, opened (the rest could not connect)
     * @param closedByNode of those, closed by the node (reset while sending, or closed while held)
     * @param payloadBytes bytes each connection sends
     * @param boundBytes the primary's {@code maxClientMemory} ({@code /status clientMemory.maxBytes})
     * @param clientMemoryPeakBytes the highest client-memory figure sampled
     * @param unchosenPeakBytes the highest of that figure less its connections already chosen to be
     *     closed ({@code clientMemory.closingBytes}) that was sampled
     * @param evictedClients connections the primary closed for memory ({@code evictedClients})
     * @param heapBeforeBytes used heap before the attack, after a forced GC
     * @param heapPeakBytes the highest used heap sampled (garbage included)
     * @param liveHeapPeakBytes the highest heap left after a collection that was sampled ({@code
     *     memory.heapAfterGcBytes}): what the attack held, without its garbage
     * @param heapAfterBytes used heap after the attack's connections closed, after a forced GC
     * @param heapMaxBytes the primary's {@code -Xmx} as it reports it
     * @param samples status samples taken
     * @param probes PINGs and SETs the authenticated client sent
     * @param probeFailures of those, not answered as expected (an error, a timeout, a closed connection)
     * @param pingP99Ms p99 of the PINGs, ms
     * @param pingMaxMs slowest PING, ms
     * @param setP99Ms p99 of the SETs, ms
     * @param setMaxMs slowest SET, ms
     * @param fdLimit this process's limit of open files ({@code ulimit -n}); the nodes inherit it
     */
    record Result(
            int connections,
            int opened,
            int closedByNode,
            int payloadBytes,
            long boundBytes,
            long clientMemoryPeakBytes,
            long unchosenPeakBytes,
            long evictedClients,
            long heapBeforeBytes,
            long heapPeakBytes,
            long liveHeapPeakBytes,
            long heapAfterBytes,
            long heapMaxBytes,
            int samples,
            long probes,
            long probeFailures,
            Double pingP99Ms,
            Double pingMaxMs,
            Double setP99Ms,
            Double setMaxMs,
            long fdLimit) {

        /** The bounds: client memory within {@code maxClientMemory}, every probe answered, PING p99 under 50 ms. */
        List<Verdict.Check> checks() {
            return List.of(
                    Verdict.Check.atMost(
                            connections + " clients at the pre-auth caps: client memory peak <= maxClientMemory",
                            clientMemoryPeakBytes < 0 ? null : clientMemoryPeakBytes / 1e6,
                            boundBytes <= 0 ? null : boundBytes / 1e6,
                            "MB"),
                    Verdict.Check.atMost(
                            "authenticated client served: probes not answered", (double) probeFailures, 0.0, ""),
                    Verdict.Check.atMost("authenticated PING p99 during the attack", pingP99Ms, 50.0, "ms"));
        }

        String render() {
            return String.format(
                    Locale.ROOT,
                    "%d unauthenticated clients x %,d B (Redis's pre-auth caps), authTimeoutSeconds 0: %d opened, %d"
                            + " closed by the node (evicted_clients %d); client memory peak %.1f MB (less those chosen to"
                            + " close: %.1f MB) of maxClientMemory"
                            + " %.1f MB; heap before %.1f MB, peak %.1f MB (after a GC %.1f MB), after %.1f MB of %.1f MB (%d"
                            + " samples);"
                            + " authenticated client: %d probes, %d not answered, PING p99 %s ms (max %s), SET p99 %s"
                            + " ms (max %s); ulimit -n %d",
                    connections,
                    payloadBytes,
                    opened,
                    closedByNode,
                    evictedClients,
                    clientMemoryPeakBytes / 1e6,
                    unchosenPeakBytes / 1e6,
                    boundBytes / 1e6,
                    heapBeforeBytes / 1e6,
                    heapPeakBytes / 1e6,
                    liveHeapPeakBytes / 1e6,
                    heapAfterBytes / 1e6,
                    heapMaxBytes / 1e6,
                    samples,
                    probes,
                    probeFailures,
                    ms(pingP99Ms),
                    ms(pingMaxMs),
                    ms(setP99Ms),
                    ms(setMaxMs),
                    fdLimit);
        }

        private static String ms(Double d) {
            return d == null ? "-" : String.format(Locale.ROOT, "%.2f", d);
        }
    }

    /** Starts its own pair of nodes in {@code dir}, attacks the primary, and stops them. */
    Result run(Path dir, PrintWriter err) throws InterruptedException {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        JavaCommand java = JavaCommand.current().withFlags(List.of("-Xmx" + nodeHeap));
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        String extra = "requirepass: \"" + password + "\"\nauthTimeoutSeconds: 0\n";
        try (BenchCluster cluster =
                BenchCluster.start(link, "id-first", flowControl, dir, java, extra, "store:\n  maxBytes: 256MiB\n")) {
            InetSocketAddress address = new InetSocketAddress(BenchCluster.HOST, cluster.primaryPort());
            boolean gcBefore = Abuse.forceGc(cluster.pid(true));
            JsonNode start = cluster.status(true);
            long heapBefore = start.path("memory").path("heapUsedBytes").asLong(-1);
            List<SocketChannel> channels = new ArrayList<>();
            int closed;
            Probe probe = new Probe(address, password);
            Sampler sampler = new Sampler(cluster, sampleMillis);
            try {
                err.println("abuse: " + connections + " clients at the pre-auth caps...");
                err.flush();
                closed = fill(address, channels);
                // held: the node's figures and the probe are sampled meanwhile (the attack's duration)
                TimeUnit.MILLISECONDS.sleep(HOLD.toMillis());
                List<SocketChannel> open = new ArrayList<>();
                for (SocketChannel c : channels) if (c.isOpen()) open.add(c);
                closed += Abuse.awaitClosed(open, Duration.ofMillis(500));
            } finally {
                closeAll(channels);
                sampler.stop();
                probe.stop();
            }
            boolean gcAfter = Abuse.forceGc(cluster.pid(true));
            JsonNode end = cluster.status(true);
            cluster.checkAlive();
            if (!gcBefore || !gcAfter) err.println("abuse: jcmd GC.run failed; heap figures are without a forced GC");
            return new Result(
                    connections,
                    channels.size(),
                    closed,
                    PAYLOAD.length,
                    end.path("clientMemory").path("maxBytes").asLong(-1),
                    sampler.clientMemoryPeak,
                    sampler.unchosenPeak,
                    end.path("clientMemory").path("evictedClients").asLong(-1),
                    heapBefore,
                    Math.max(heapBefore, sampler.heapPeak),
                    sampler.liveHeapPeak,
                    end.path("memory").path("heapUsedBytes").asLong(-1),
                    end.path("memory").path("heapMaxBytes").asLong(-1),
                    sampler.count,
                    probe.pings.count() + probe.sets.count() + probe.failures,
                    probe.failures,
                    probe.pings.latencies().percentileMs(99),
                    probe.pings.latencies().maxMs(),
                    probe.sets.latencies().percentileMs(99),
                    probe.sets.latencies().maxMs(),
                    fdLimit());
        } catch (IOException e) {
            throw new UncheckedIOException("an attacking connection failed: " + e.getMessage(), e);
        }
    }

    /**
     * Opens the connections, each sending {@link #PAYLOAD} as fast as the node reads it; returns how many
     * the node closed (reset) while they sent.
     */
    private int fill(InetSocketAddress address, List<SocketChannel> channels) throws IOException {
        int closed = 0;
        int done = 0;
        long deadline = System.nanoTime() + FILL_BUDGET.toNanos();
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < connections && System.nanoTime() < deadline; i++) {
                SocketChannel c = SocketChannel.open(address);
                channels.add(c);
                c.configureBlocking(false);
                ByteBuffer rest = ByteBuffer.wrap(PAYLOAD);
                if (write(c, rest)) {
                    if (rest.hasRemaining()) c.register(selector, SelectionKey.OP_WRITE, rest);
                    else done++;
                } else {
                    closed++;
                }
                if (i % 256 == 0) selector.selectNow();
                for (SelectionKey k : selector.selectedKeys()) {
                    int r = drain(k);
                    if (r < 0) closed++;
                    if (r > 0) done++;
                }
                selector.selectedKeys().clear();
            }
            while (done + closed < channels.size() && System.nanoTime() < deadline) {
                selector.select(1000);
                for (SelectionKey k : selector.selectedKeys()) {
                    int r = drain(k);
                    if (r < 0) closed++;
                    if (r > 0) done++;
                }
                selector.selectedKeys().clear();
            }
        }
        return closed;
    }

    /** Writes what the key's channel takes: 1 if it is all written, -1 if the node closed it, else 0. */
    private static int drain(SelectionKey k) {
        if (!k.isValid()) return 0;
        SocketChannel c = (SocketChannel) k.channel();
        ByteBuffer rest = (ByteBuffer) k.attachment();
        if (!write(c, rest)) {
            k.cancel();
            return -1;
        }
        if (rest.hasRemaining()) return 0;
        k.cancel();
        return 1;
    }

    /** Writes what fits; false if the node closed the connection. */
    private static boolean write(SocketChannel c, ByteBuffer rest) {
        try {
            c.write(rest);
            return true;
        } catch (IOException e) {
            closeQuietly(c);
            return false;
        }
    }

    private static void closeAll(List<SocketChannel> channels) {
        for (SocketChannel c : channels) closeQuietly(c);
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static long fdLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return -1;
    }

    /** Samples the primary's {@code /status} (client memory, used heap) on its own thread until stopped. */
    private static final class Sampler {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        volatile long clientMemoryPeak = -1;
        volatile long unchosenPeak = -1;
        volatile long heapPeak = -1;
        volatile long liveHeapPeak = -1;
        volatile int count;

        Sampler(BenchCluster cluster, long sampleMillis) {
            thread = new Thread(
                    () -> {
                        while (running.get()) {
                            try {
                                JsonNode s = cluster.status(true);
                                JsonNode m = s.path("clientMemory");
                                long used = m.path("usedBytes").asLong(-1);
                                clientMemoryPeak = Math.max(clientMemoryPeak, used);
                                unchosenPeak = Math.max(
                                        unchosenPeak,
                                        used - m.path("closingBytes").asLong(0));
                                heapPeak = Math.max(
                                        heapPeak,
                                        s.path("memory").path("heapUsedBytes").asLong(-1));
                                liveHeapPeak = Math.max(
                                        liveHeapPeak,
                                        s.path("memory")
                                                .path("heapAfterGcBytes")
                                                .asLong(-1));
                                count++;
                            } catch (UncheckedIOException | IllegalStateException e) {
                                // a slow admin answer is a gap in the samples
                            }
                            try {
                                TimeUnit.MILLISECONDS.sleep(sampleMillis); // the sampling schedule
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "kvs-abuse-client-memory-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.interrupt();
            thread.join(15_000);
        }
    }

    /** Latencies in microseconds, appended by one thread. */
    private static final class Samples {
        private long[] micros = new long[1024];
        private int n;

        void add(long m) {
            if (n == micros.length) micros = Arrays.copyOf(micros, n * 2);
            micros[n++] = m;
        }

        int count() {
            return n;
        }

        Latencies latencies() {
            return Latencies.of(Arrays.copyOf(micros, n));
        }
    }

    /** An authenticated client sending PING and SET in turn, every 2 ms, each timed, until stopped. */
    private static final class Probe {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        final Samples pings = new Samples();
        final Samples sets = new Samples();
        volatile long failures;

        Probe(InetSocketAddress address, String password) {
            thread = new Thread(() -> probe(address, password), "kvs-abuse-client-memory-probe");
            thread.setDaemon(true);
            thread.start();
        }

        private void probe(InetSocketAddress address, String password) {
            byte[] ping = Abuse.command("PING");
            byte[] set = Abuse.command("SET", "abuse:probe", "0123456789abcdef");
            while (running.get()) {
                try (Socket s = new Socket()) {
                    s.connect(address, 10_000);
                    s.setSoTimeout(10_000);
                    s.getOutputStream().write(Abuse.command("AUTH", password));
                    expect(s.getInputStream(), "+OK");
                    while (running.get()) {
                        pings.add(timed(s, ping, "+PONG"));
                        sets.add(timed(s, set, "+OK"));
                        TimeUnit.MICROSECONDS.sleep(PROBE_PACE_MICROS); // the probe's pace
                    }
                } catch (IOException e) {
                    failures++; // and a new connection
                } catch (InterruptedException e) {
                    return;
                }
            }
        }

        private static long timed(Socket s, byte[] request, String expected) throws IOException {
            long start = System.nanoTime();
            s.getOutputStream().write(request);
            expect(s.getInputStream(), expected);
            return (System.nanoTime() - start) / 1000;
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.interrupt();
            thread.join(15_000);
        }
    }

    /** Reads one line; fails unless it is {@code expected}. */
    private static void expect(InputStream in, String expected) throws IOException {
        StringBuilder line = new StringBuilder();
        while (true) {
            int c = in.read();
            if (c < 0) throw new IOException("connection closed; expected " + expected + " after '" + line + "'");
            if (c == '\n') break;
            if (c != '\r') line.append((char) c);
        }
        if (!line.toString().equals(expected)) throw new IOException("expected " + expected + ", got " + line);
    }
}
