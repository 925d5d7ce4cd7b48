package dev.kvs.bench.latency;

import com.fasterxml.jackson.databind.JsonNode;
import dev.kvs.bench.cluster.JavaCommand;
import dev.kvs.bench.cluster.LinkSettings;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Issue 12's resource attacks on a primary (a separate JVM with {@code -Xmx} {@code nodeHeap}, {@code
 * requirepass} and a short {@code authTimeoutSeconds}, replicating to a backup over an emulated link):
 * unauthenticated 64 MiB bulk headers, a client that pipelines GETs of a large value behind a SET
 * waiting for its key acknowledgement without reading replies, and silent sockets that must not lock an
 * authenticated client out. The primary's used heap is sampled through {@code GET /status} during each.
 *
 * @param settings what to run
 * @param squatters the attack on the backup's replication port ({@link ReplicationSquatters})
 * @param admin the attack on the admin port ({@link AdminAbuse})
 * @param link the link between the DCs
 */
record Abuse(
        AbuseReport.Settings settings,
        ReplicationSquatters.Settings squatters,
        AdminAbuse.Settings admin,
        LinkSettings link)
        implements Benchmark {
    /** {@code *2\r\n$67108864\r\n}: an array of 2 whose first bulk string announces 64 MiB, then nothing. */
    static final byte[] BULK_HEADER = "*2\r\n$67108864\r\n".getBytes(StandardCharsets.US_ASCII);

    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);
    /** Most time opening the idle sockets may take. */
    private static final Duration OPEN_BUDGET = Duration.ofSeconds(60);

    @Override
    public String describe() {
        AbuseReport.Settings s = settings;
        return String.format(
                Locale.ROOT,
                "abuse: %d unauthenticated 64 MiB bulk headers; SET + %d unread GETs of %s held %s s; %d idle"
                        + " sockets then an authenticated client; nodes -Xmx%s, authTimeoutSeconds %d; admin port: %d"
                        + " unauthenticated POSTs of %s, %d half-open connections",
                s.connections(),
                s.gets(),
                Report.bytes(s.valueSize()),
                Report.number(s.holdSeconds()),
                s.idleSockets(),
                s.nodeHeap(),
                s.authTimeoutSeconds(),
                admin.posts(),
                Report.bytes(admin.bodyBytes()),
                admin.halfOpen());
    }

    @Override
    public AbuseReport run(Path runDir, PrintWriter err) throws InterruptedException {
        ClientMemoryAttack.Result memory = settings.memoryClients() == 0
                ? null
                : new ClientMemoryAttack(
                                settings.memoryClients(),
                                settings.nodeHeap(),
                                settings.sampleMillis(),
                                settings.flowControl(),
                                link)
                        .run(runDir.resolve("client-memory"), err);
        JavaCommand java = JavaCommand.current().withFlags(List.of("-Xmx" + settings.nodeHeap()));
        String password = HexFormat.of().formatHex(new SecureRandom().generateSeed(16));
        String extra =
                "requirepass: \"" + password + "\"\n" + "authTimeoutSeconds: " + settings.authTimeoutSeconds() + "\n";
        // a long write timeout: the output-buffer client's SET keeps waiting for its key ack while held
        String tuning = "store:\n  maxBytes: 1GiB\nreplication:\n  writeTimeoutMs: 60000\n";
        try (BenchCluster cluster =
                BenchCluster.start(link, "id-first", settings.flowControl(), runDir, java, extra, tuning)) {
            Node node = new Node(cluster, settings.sampleMillis());
            err.println("abuse: bulk headers...");
            err.flush();
            AbuseReport.Scenario bulk = bulkHeaders(node);
            err.println("abuse: idle sockets...");
            err.flush();
            AbuseReport.Scenario idle = idleSockets(node, password);
            err.println("abuse: output buffer...");
            err.flush();
            AbuseReport.Scenario output = outputBuffer(node, cluster, password);
            err.println("abuse: replication squatters...");
            err.flush();
            ReplicationSquatters.Result squat = ReplicationSquatters.run(squatters, cluster, err);
            AdminAbuse.Result adminPort = new AdminAbuse(admin).run(cluster, password, err);
            cluster.checkAlive();
            List<Verdict.Check> checks = new ArrayList<>(
                    AbuseReport.verdict(settings, bulk, output, idle, memory).checks());
            checks.addAll(squat.checks());
            checks.addAll(adminPort.checks());
            return new AbuseReport(
                    "abuse",
                    settings,
                    bulk,
                    output,
                    idle,
                    squat,
                    adminPort,
                    memory,
                    Verdict.of(checks),
                    Provenance.now(runDir));
        } catch (IOException e) {
            throw new UncheckedIOException("a client connection failed: " + e.getMessage(), e);
        }
    }

    /** Every connection announces a 64 MiB bulk string and sends nothing more; held past the auth timeout. */
    private AbuseReport.Scenario bulkHeaders(Node node) throws IOException, InterruptedException {
        long before = node.gcAndHeap();
        boolean gc = node.lastGcForced;
        List<SocketChannel> channels = new ArrayList<>();
        int closed;
        try (Sampler sampler = node.sample()) {
            try {
                for (int i = 0; i < settings.connections(); i++) {
                    SocketChannel c = SocketChannel.open(node.address());
                    channels.add(c);
                    c.write(ByteBuffer.wrap(BULK_HEADER));
                }
                long hold = settings.authTimeoutSeconds() * 1000L + 1000;
                long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(hold);
                closed = awaitClosed(channels, Duration.ofMillis(hold));
                // the attack's duration, sampled, even if the node closed every connection at once
                TimeUnit.NANOSECONDS.sleep(Math.max(0, end - System.nanoTime()));
            } finally {
                closeAll(channels);
            }
            sampler.stop();
            long after = node.gcAndHeap();
            return new AbuseReport.Scenario(
                    channels.size(),
                    closed,
                    before,
                    Math.max(before, sampler.peak()),
                    after,
                    sampler.count(),
                    gc && node.lastGcForced,
                    null,
                    closed + " of " + channels.size() + " closed by the node");
        }
    }

    /** Silent unauthenticated sockets, then an authenticated client: AUTH + PING. */
    private AbuseReport.Scenario idleSockets(Node node, String password) throws IOException, InterruptedException {
        long before = node.gcAndHeap();
        boolean gc = node.lastGcForced;
        List<SocketChannel> channels = new ArrayList<>();
        Double authMillis;
        int closed;
        String opened;
        try (Sampler sampler = node.sample()) {
            try {
                long deadline = System.nanoTime() + OPEN_BUDGET.toNanos();
                while (channels.size() < settings.idleSockets() && System.nanoTime() < deadline) {
                    channels.add(SocketChannel.open(node.address()));
                }
                opened = channels.size() == settings.idleSockets() ? "" : " (only these opened in 60 s)";
                authMillis = authenticatedPing(node, password);
                closed = awaitClosed(channels, Duration.ofMillis(settings.authTimeoutSeconds() * 1000L + 2000));
            } finally {
                closeAll(channels);
            }
            sampler.stop();
            long after = node.gcAndHeap();
            return new AbuseReport.Scenario(
                    channels.size(),
                    closed,
                    before,
                    Math.max(before, sampler.peak()),
                    after,
                    sampler.count(),
                    gc && node.lastGcForced,
                    authMillis,
                    (authMillis == null
                                    ? "locked out"
                                    : String.format(Locale.ROOT, "not locked out: PONG in %.1f ms", authMillis))
                            + opened);
        }
    }

    /**
     * The recipe: with the replication link cut, a SET (waiting for its key ack) followed by the
     * GETs of a large value, none of whose replies are read, held for {@code holdSeconds}.
     */
    private AbuseReport.Scenario outputBuffer(Node node, BenchCluster cluster, String password)
            throws IOException, InterruptedException {
        String key = "abuse:big";
        try (Socket s = connect(node)) {
            byte[] value = new byte[(int) settings.valueSize()];
            new SecureRandom().nextBytes(value);
            ByteArrayOutputStream set = new ByteArrayOutputStream();
            set.write(command("AUTH", password));
            set.write(("*3\r\n$3\r\nSET\r\n$" + key.length() + "\r\n" + key + "\r\n$" + value.length + "\r\n")
                    .getBytes(StandardCharsets.US_ASCII));
            set.write(value);
            set.write("\r\n".getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().write(set.toByteArray());
            expect(s.getInputStream(), "+OK");
            expect(s.getInputStream(), "+OK");
        }
        long before = node.gcAndHeap();
        boolean gc = node.lastGcForced;
        cluster.cutLink();
        boolean closedByNode;
        try (Sampler sampler = node.sample()) {
            try (Socket s = connect(node)) {
                s.getOutputStream().write(command("AUTH", password));
                expect(s.getInputStream(), "+OK");
                ByteArrayOutputStream attack = new ByteArrayOutputStream();
                attack.write(command("SET", "abuse:waits", "for its key ack"));
                byte[] get = command("GET", key);
                for (int i = 0; i < settings.gets(); i++) attack.write(get);
                s.getOutputStream().write(attack.toByteArray());
                s.getOutputStream().flush();
                // the attack's duration: the heap is sampled meanwhile
                TimeUnit.MILLISECONDS.sleep(Math.round(settings.holdSeconds() * 1000));
                closedByNode = node.connections() == 0;
            } finally {
                cluster.healLink();
            }
            sampler.stop();
            long after = node.gcAndHeap();
            return new AbuseReport.Scenario(
                    1,
                    closedByNode ? 1 : 0,
                    before,
                    Math.max(before, sampler.peak()),
                    after,
                    sampler.count(),
                    gc && node.lastGcForced,
                    null,
                    closedByNode
                            ? "closed by the node (clientOutputBufferLimit)"
                            : "still open after " + Report.number(settings.holdSeconds()) + " s: throttled");
        }
    }

    /** Connects, sends {@code AUTH} and {@code PING}; the ms to {@code +PONG}, null if not within 10 s. */
    private static Double authenticatedPing(Node node, String password) {
        long start = System.nanoTime();
        try (Socket s = new Socket()) {
            s.connect(node.address(), (int) CONNECT_TIMEOUT.toMillis());
            s.setSoTimeout(10_000);
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            b.write(command("AUTH", password));
            b.write(command("PING"));
            s.getOutputStream().write(b.toByteArray());
            expect(s.getInputStream(), "+OK");
            expect(s.getInputStream(), "+PONG");
            return (System.nanoTime() - start) / 1e6;
        } catch (IOException e) {
            return null;
        }
    }

    private static Socket connect(Node node) throws IOException {
        Socket s = new Socket();
        s.connect(node.address(), (int) CONNECT_TIMEOUT.toMillis());
        s.setSoTimeout(30_000);
        return s;
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
        if (!line.toString().equals(expected)) {
            throw new IOException("expected " + expected + ", got " + line);
        }
    }

    /** A RESP array of bulk strings. */
    static byte[] command(String... args) {
        StringBuilder b = new StringBuilder("*").append(args.length).append("\r\n");
        for (String a : args) {
            byte[] bytes = a.getBytes(StandardCharsets.UTF_8);
            b.append('$').append(bytes.length).append("\r\n").append(a).append("\r\n");
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    /**
     * Waits until the node closed every channel (end of stream or reset; whatever it sent first is
     * discarded) or {@code within} is over; returns how many it closed.
     */
    static int awaitClosed(List<SocketChannel> channels, Duration within) throws IOException {
        int closed = 0;
        long deadline = System.nanoTime() + within.toNanos();
        ByteBuffer buf = ByteBuffer.allocate(64 << 10);
        try (Selector selector = Selector.open()) {
            for (SocketChannel c : channels) {
                c.configureBlocking(false);
                c.register(selector, SelectionKey.OP_READ);
            }
            while (closed < channels.size()) {
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) break;
                selector.select(left);
                for (SelectionKey k : selector.selectedKeys()) {
                    SocketChannel c = (SocketChannel) k.channel();
                    boolean eof;
                    try {
                        buf.clear();
                        eof = c.read(buf) < 0;
                    } catch (IOException e) {
                        eof = true; // reset by the node
                    }
                    if (eof) {
                        closed++;
                        k.cancel();
                    }
                }
                selector.selectedKeys().clear();
            }
        }
        return closed;
    }

    private static void closeAll(List<SocketChannel> channels) {
        for (SocketChannel c : channels) {
            try {
                c.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }

    /** The primary as the attacks see it: its RESP address, its heap, a forced GC. */
    private static final class Node {
        private final BenchCluster cluster;
        private final long sampleMillis;
        boolean lastGcForced;

        Node(BenchCluster cluster, long sampleMillis) {
            this.cluster = cluster;
            this.sampleMillis = sampleMillis;
        }

        InetSocketAddress address() {
            return new InetSocketAddress(BenchCluster.HOST, cluster.primaryPort());
        }

        /** Forces a full GC with {@code jcmd PID GC.run} (if it can), then reads the used heap. */
        long gcAndHeap() throws InterruptedException {
            lastGcForced = forceGc(cluster.pid(true));
            return heapUsed();
        }

        long heapUsed() {
            JsonNode s = status();
            return s == null ? -1 : s.path("memory").path("heapUsedBytes").asLong(-1);
        }

        long connections() {
            JsonNode s = status();
            return s == null ? -1 : s.path("connections").asLong(-1);
        }

        private JsonNode status() {
            try {
                return cluster.status(true);
            } catch (UncheckedIOException | IllegalStateException e) {
                return null; // a slow admin answer is a gap in the samples
            }
        }

        Sampler sample() {
            return new Sampler(this, sampleMillis);
        }
    }

    /** {@code jcmd PID GC.run} with the running JDK's jcmd; whether it ran and succeeded in 30 s. */
    static boolean forceGc(long pid) throws InterruptedException {
        Path java =
                Path.of(ProcessHandle.current().info().command().orElse(System.getProperty("java.home") + "/bin/java"));
        Path jcmd = java.resolveSibling("jcmd");
        try {
            Process p = new ProcessBuilder(jcmd.toString(), Long.toString(pid), "GC.run")
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        }
    }

    /** Samples the primary's used heap every {@code sampleMillis} on its own thread until stopped. */
    private static final class Sampler implements AutoCloseable {
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final Thread thread;
        private volatile long peak = -1;
        private volatile int count;

        Sampler(Node node, long sampleMillis) {
            thread = new Thread(
                    () -> {
                        while (running.get()) {
                            long h = node.heapUsed();
                            if (h >= 0) {
                                peak = Math.max(peak, h);
                                count++;
                            }
                            try {
                                // the sampling schedule, not a synchronisation
                                TimeUnit.MILLISECONDS.sleep(sampleMillis);
                            } catch (InterruptedException e) {
                                return;
                            }
                        }
                    },
                    "kvs-abuse-heap-sampler");
            thread.setDaemon(true);
            thread.start();
        }

        long peak() {
            return peak;
        }

        int count() {
            return count;
        }

        void stop() throws InterruptedException {
            running.set(false);
            thread.interrupt();
            thread.join(15_000);
        }

        @Override
        public void close() throws InterruptedException {
            stop();
        }
    }
}
