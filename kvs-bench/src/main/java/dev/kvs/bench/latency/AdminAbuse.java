package dev.kvs.bench.latency;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
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
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Issue 32's attack on the primary's admin port, whose node has an {@code admin.token}: {@code posts}
 * unauthenticated {@code POST /promote} requests each announcing a {@code bodyBytes} body and sending
 * all of it but its last byte, held so at once, then {@code halfOpen} connections that send half a request head and nothing more. Meanwhile the
 * primary's direct memory ({@code /metrics}, {@code jvm_buffer_memory_used_bytes{id="direct"}}) is
 * sampled, a RESP client {@code PING}s it, and a new value is written during each phase and must reach
 * the backup. Afterwards both nodes' logs are searched for {@code OutOfMemoryError}.
 */
final class AdminAbuse {
    /** Direct memory may grow by at most this much during the attack (64 MiB). */
    static final long DIRECT_GROWTH_LIMIT = 64L << 20;
    /** {@code PING} p99 during the attack must be at most this (ms). */
    static final double PING_P99_LIMIT_MILLIS = 50;

    private static final Pattern DIRECT =
            Pattern.compile("(?m)^jvm_buffer_memory_used_bytes\\{[^}]*id=\"direct\"[^}]*\\} ([0-9.eE+-]+)$");
    private static final int ATTACK_THREADS = 16;
    private static final Duration VALUE_TIMEOUT = Duration.ofSeconds(10);

    /**
     * What to run.
     *
     * @param posts unauthenticated POSTs with a body
     * @param bodyBytes each POST's body
     * @param halfOpen connections sending half a request head, then nothing
     * @param holdMillis how long the half-open connections are held after the last is opened
     */
    record Settings(int posts, int bodyBytes, int halfOpen, long holdMillis) {}

    /**
     * What the attack did to the primary.
     *
     * @param posts POSTs sent
     * @param postsRefused of those, answered 401 (each was held with its body one byte short)
     * @param halfOpen half-open connections attempted
     * @param halfOpenOpened of those, connected
     * @param halfOpenClosedByNode of those, closed by the node (cap or head timeout) before the bench did
     * @param directBeforeBytes the primary's direct buffer memory before the attack, -1 if unknown
     * @param directPeakBytes the highest sampled during the attack
     * @param directSamples samples taken
     * @param pings {@code PING}s answered during the attack
     * @param pingFailures {@code PING}s not answered (connection lost, timeout)
     * @param pingP99Millis their 99th percentile latency, null if none
     * @param valuesReplicated values written during the attack (one per phase) that reached the backup
     * @param valueMillis the longest a value took to reach the backup, null if one did not
     * @param outOfMemoryLines lines with {@code OutOfMemoryError} in both nodes' logs
     */
    record Result(
            int posts,
            int postsRefused,
            int halfOpen,
            int halfOpenOpened,
            int halfOpenClosedByNode,
            long directBeforeBytes,
            long directPeakBytes,
            int directSamples,
            int pings,
            int pingFailures,
            Double pingP99Millis,
            int valuesReplicated,
            Double valueMillis,
            long outOfMemoryLines) {
        long directGrowthBytes() {
            return directBeforeBytes < 0 || directPeakBytes < 0 ? -1 : directPeakBytes - directBeforeBytes;
        }

        /** Issue 32's bounds. */
        List<Verdict.Check> checks() {
            long growth = directGrowthBytes();
            return List.of(
                    Verdict.Check.atMost(
                            "admin attack: direct memory peak - before <= 64 MiB",
                            growth < 0 ? null : growth / 1048576.0,
                            DIRECT_GROWTH_LIMIT / 1048576.0,
                            "MiB"),
                    Verdict.Check.atMost(
                            "admin attack: OutOfMemoryError lines in the nodes' logs",
                            (double) outOfMemoryLines,
                            0.0,
                            ""),
                    Verdict.Check.atMost(
                            "admin attack: RESP PING p99 <= 50 ms", pingP99Millis, PING_P99_LIMIT_MILLIS, "ms"),
                    Verdict.Check.atLeast(
                            "admin attack: new values that reached the backup", (double) valuesReplicated, 2.0, ""));
        }

        /** One line for the report. */
        String render() {
            return String.format(
                    Locale.ROOT,
                    "admin port: %d unauthenticated POSTs held one byte short (%d answered 401), %d half-open (%d opened, %d closed by"
                            + " the node); direct memory %s -> peak %s MiB (%d samples); PING p99 %s ms (%d, %d"
                            + " failed); %d of 2 values replicated (slowest %s ms); %d OutOfMemoryError lines",
                    posts,
                    postsRefused,
                    halfOpen,
                    halfOpenOpened,
                    halfOpenClosedByNode,
                    mib(directBeforeBytes),
                    mib(directPeakBytes),
                    directSamples,
                    pingP99Millis == null ? "-" : String.format(Locale.ROOT, "%.1f", pingP99Millis),
                    pings,
                    pingFailures,
                    valuesReplicated,
                    valueMillis == null ? "-" : String.format(Locale.ROOT, "%.0f", valueMillis),
                    outOfMemoryLines);
        }

        private static String mib(long bytes) {
            return bytes < 0 ? "-" : String.format(Locale.ROOT, "%.1f", bytes / 1048576.0);
        }
    }

    private final Settings settings;

    AdminAbuse(Settings settings) {
        this.settings = settings;
    }

    /** Runs the attack on {@code cluster}'s primary; {@code password} is the nodes' {@code requirepass}. */
    Result run(BenchCluster cluster, String password, PrintWriter err) throws IOException, InterruptedException {
        InetSocketAddress admin = new InetSocketAddress(BenchCluster.HOST, cluster.primaryAdminPort());
        String token = cluster.adminToken();
        long before = direct(admin, token);
        AtomicBoolean attacking = new AtomicBoolean(true);
        long[] peak = {before};
        AtomicInteger samples = new AtomicInteger();
        Thread sampler = daemon("kvs-abuse-admin-direct", () -> {
            while (attacking.get()) {
                long d = direct(admin, token);
                if (d >= 0) {
                    synchronized (peak) {
                        peak[0] = Math.max(peak[0], d);
                    }
                    samples.incrementAndGet();
                }
                pause(100); // the sampling schedule, not a synchronisation
            }
        });
        RespProbe.Pinger pinger =
                new RespProbe.Pinger(new InetSocketAddress(BenchCluster.HOST, cluster.primaryPort()), password);
        Thread pings = daemon("kvs-abuse-admin-ping", pinger);
        List<Double> valueMillis = new ArrayList<>();
        int refused;
        int[] halfOpen;
        try {
            err.println("abuse: admin port: " + settings.posts() + " unauthenticated POSTs with bodies...");
            err.flush();
            refused = posts(admin, cluster, password, valueMillis);
            err.println("abuse: admin port: " + settings.halfOpen() + " half-open connections...");
            err.flush();
            halfOpen = halfOpen(admin, cluster, password, valueMillis);
        } finally {
            attacking.set(false);
            pinger.stop();
            sampler.join(15_000);
            pings.join(15_000);
        }
        long oom = outOfMemoryLines(cluster.log(true)) + outOfMemoryLines(cluster.log(false));
        List<Double> reached = valueMillis.stream().filter(m -> m != null).toList();
        return new Result(
                settings.posts(),
                refused,
                settings.halfOpen(),
                halfOpen[0],
                halfOpen[1],
                before,
                peak[0],
                samples.get(),
                pinger.latencies().length,
                pinger.failures(),
                pinger.p99(),
                reached.size(),
                reached.size() == valueMillis.size() && !reached.isEmpty()
                        ? reached.stream()
                                .mapToDouble(Double::doubleValue)
                                .max()
                                .orElseThrow()
                        : null,
                oom);
    }

    /**
     * The POSTs, from a few threads at once: each sends its head and all of its body but the last byte,
     * and is held so, as a node that buffers bodies before deciding would have to keep every one; a
     * value is written once all are sent. Returns how many were answered 401.
     */
    private int posts(InetSocketAddress admin, BenchCluster cluster, String password, List<Double> valueMillis)
            throws IOException, InterruptedException {
        byte[] head = ("POST /promote HTTP/1.1\r\nHost: " + BenchCluster.HOST + "\r\nContent-Length: "
                        + settings.bodyBytes() + "\r\nContent-Type: application/octet-stream\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        ByteBuffer body = ByteBuffer.allocate(settings.bodyBytes() - 1).asReadOnlyBuffer();
        AtomicInteger next = new AtomicInteger();
        List<SocketChannel> held = java.util.Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(ATTACK_THREADS);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < ATTACK_THREADS; t++) {
                workers.add(pool.submit(() -> {
                    while (next.getAndIncrement() < settings.posts()) {
                        SocketChannel c = almostPost(admin, head, body.duplicate());
                        if (c != null) held.add(c);
                    }
                }));
            }
            for (Future<?> f : workers) f.get();
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("an attacking thread failed: " + e.getCause(), e.getCause());
        } finally {
            pool.shutdownNow();
            pool.awaitTermination(10, TimeUnit.SECONDS);
        }
        try (Selector selector = Selector.open()) {
            for (SocketChannel c : held) {
                c.configureBlocking(false);
                c.register(selector, SelectionKey.OP_READ);
            }
            valueMillis.add(replicate(cluster, password)); // while every body is held incomplete
            return answered(selector, Duration.ofSeconds(2));
        } finally {
            for (SocketChannel c : held) c.close();
        }
    }

    /** Connects and sends {@code head} and {@code body} (as far as the node lets it); null if it cannot connect. */
    private static SocketChannel almostPost(InetSocketAddress admin, byte[] head, ByteBuffer body) {
        SocketChannel c;
        try {
            c = SocketChannel.open(admin);
        } catch (IOException e) {
            return null;
        }
        try {
            c.write(ByteBuffer.wrap(head));
            while (body.hasRemaining()) c.write(body);
        } catch (IOException closedByTheNode) {
            // it answered and closed before the body was written: its answer is read later
        }
        return c;
    }

    /** How many of the selector's connections have been answered 401 within {@code within}. */
    private static int answered(Selector selector, Duration within) throws IOException {
        int answered = 0;
        int seen = 0;
        ByteBuffer buf = ByteBuffer.allocate(4096);
        byte[] unauthorized = "HTTP/1.1 401".getBytes(StandardCharsets.US_ASCII);
        long deadline = System.nanoTime() + within.toNanos();
        int total = selector.keys().size();
        while (seen < total) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) break;
            selector.select(left);
            Iterator<SelectionKey> it = selector.selectedKeys().iterator();
            while (it.hasNext()) {
                SelectionKey k = it.next();
                it.remove();
                buf.clear();
                int n;
                try {
                    n = ((SocketChannel) k.channel()).read(buf);
                } catch (IOException reset) {
                    n = -1;
                }
                if (n >= unauthorized.length
                        && Arrays.equals(Arrays.copyOf(buf.array(), unauthorized.length), unauthorized)) {
                    answered++;
                }
                seen++;
                k.cancel();
            }
        }
        return answered;
    }

    /**
     * Opens the half-open connections, closing on this side those the node closed (so this process's
     * descriptors suffice), writes a value once all are open, holds them {@code holdMillis}. Returns
     * {opened, closed by the node}.
     */
    private int[] halfOpen(InetSocketAddress admin, BenchCluster cluster, String password, List<Double> valueMillis)
            throws IOException, InterruptedException {
        byte[] half = ("POST /promote HTTP/1.1\r\nHost: " + BenchCluster.HOST + "\r\nContent-Le")
                .getBytes(StandardCharsets.US_ASCII);
        int opened = 0;
        int[] closed = {0};
        ByteBuffer buf = ByteBuffer.allocate(4096);
        try (Selector selector = Selector.open()) {
            for (int i = 0; i < settings.halfOpen(); i++) {
                try {
                    SocketChannel c = SocketChannel.open(admin);
                    c.write(ByteBuffer.wrap(half));
                    c.configureBlocking(false);
                    c.register(selector, SelectionKey.OP_READ);
                    opened++;
                } catch (IOException e) {
                    // refused or out of descriptors: counted as not opened
                }
                if (i % 200 == 199) reap(selector, buf, closed, 0);
            }
            valueMillis.add(replicate(cluster, password));
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(settings.holdMillis());
            while (System.nanoTime() < end) reap(selector, buf, closed, 100);
            for (SelectionKey k : selector.keys()) k.channel().close();
        }
        return new int[] {opened, closed[0]};
    }

    /** Closes the connections the node closed, counting them. */
    private static void reap(Selector selector, ByteBuffer buf, int[] closed, long waitMillis) throws IOException {
        if (waitMillis > 0) selector.select(waitMillis);
        else selector.selectNow();
        Iterator<SelectionKey> it = selector.selectedKeys().iterator();
        while (it.hasNext()) {
            SelectionKey k = it.next();
            it.remove();
            SocketChannel c = (SocketChannel) k.channel();
            boolean eof;
            try {
                buf.clear();
                eof = c.read(buf) < 0;
            } catch (IOException reset) {
                eof = true;
            }
            if (eof) {
                closed[0]++;
                k.cancel();
                c.close();
            }
        }
    }

    /**
     * Writes a new 1 MiB value on the primary and reads the backup until it has it; the ms that took,
     * null if not within {@link #VALUE_TIMEOUT}.
     */
    private static Double replicate(BenchCluster cluster, String password) {
        byte[] value = new byte[1 << 20];
        new SecureRandom().nextBytes(value);
        String key = "abuse:admin:" + System.nanoTime();
        long start = System.nanoTime();
        try (RespProbe primary =
                        new RespProbe(new InetSocketAddress(BenchCluster.HOST, cluster.primaryPort()), password);
                RespProbe backup =
                        new RespProbe(new InetSocketAddress(BenchCluster.HOST, cluster.backupPort()), password)) {
            primary.set(key, value);
            backup.readOnly();
            long deadline = start + VALUE_TIMEOUT.toNanos();
            while (System.nanoTime() < deadline) {
                if (Arrays.equals(backup.get(key), value)) return (System.nanoTime() - start) / 1e6;
                pause(20); // polling the backup: there is no notification to wait on
            }
            return null;
        } catch (IOException e) {
            return null;
        }
    }

    /** {@code jvm_buffer_memory_used_bytes{id="direct"}} of the node's {@code /metrics}; -1 if not read. */
    static long direct(InetSocketAddress admin, String token) {
        try (Socket s = new Socket()) {
            s.connect(admin, 2000);
            s.setSoTimeout(5000);
            s.getOutputStream()
                    .write(("GET /metrics HTTP/1.1\r\nHost: " + BenchCluster.HOST + "\r\nAuthorization: Bearer " + token
                                    + "\r\nConnection: close\r\n\r\n")
                            .getBytes(StandardCharsets.US_ASCII));
            String text = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            return parseDirect(text);
        } catch (IOException e) {
            return -1;
        }
    }

    static long parseDirect(String metrics) {
        Matcher m = DIRECT.matcher(metrics);
        return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }

    private static long outOfMemoryLines(Path log) throws IOException {
        if (!Files.exists(log)) return 0;
        try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
            return lines.filter(l -> l.contains("OutOfMemoryError")).count();
        } catch (java.io.UncheckedIOException e) {
            return 0; // a partly written line that is not UTF-8: no OutOfMemoryError is that
        }
    }

    static String statusLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        for (int c = in.read(); c >= 0 && c != '\n'; c = in.read()) {
            if (c != '\r') line.append((char) c);
        }
        return line.toString();
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        t.start();
        return t;
    }

    static void pause(long millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
