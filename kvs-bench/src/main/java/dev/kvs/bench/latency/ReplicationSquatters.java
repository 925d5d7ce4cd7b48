package dev.kvs.bench.latency;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import picocli.CommandLine.Option;

/**
 * Issue 32's attack on the backup's replication port: {@code squatters} idle or slow connections from
 * {@code sources} loopback addresses (127.0.0.2 and up), each reopened every 10 s and at once when the
 * backup closes it, and a stranger reconnecting in a tight loop (127.0.0.99, {@code churnPerSecond}
 * connections a second, each sending a line of junk and reset); meanwhile the replication link is cut
 * {@code drops} times for {@code dropMillis}. Measured: the time from each heal until the primary
 * streams again, and the WARN lines both nodes wrote during the attack. The backup's {@code peer} is
 * not configured in the bench, so the primary (relayed from 127.0.0.1) competes as a stranger: the
 * harder case.
 */
final class ReplicationSquatters {
    /** The bound on the time to stream again after a link drop. */
    static final double RESTREAM_LIMIT_MILLIS = 3000;
    /** "A few per second": WARN lines per second of attack, both nodes together. */
    static final double WARN_LINES_PER_SECOND_LIMIT = 3;

    private static final long RENEW_NANOS = TimeUnit.SECONDS.toNanos(10);
    private static final long TICK_MILLIS = 50;
    private static final String CHURN_SOURCE = "127.0.0.99";
    /** A frame announcing 64 bytes; a slow squatter sends it one byte a second. */
    private static final byte[] SLOW_FRAME = ByteBuffer.allocate(68).putInt(64).array();

    /** The options of {@code kvs bench abuse} for this attack. */
    static final class Options {
        @Option(
                names = "--repl-squatters",
                paramLabel = "N",
                description =
                        "Idle or slow connections held on the backup's replication port (default: ${DEFAULT-VALUE})")
        int squatters = 16;

        @Option(
                names = "--repl-sources",
                paramLabel = "N",
                description = "Loopback source addresses they come from, 127.0.0.2 and up (default: ${DEFAULT-VALUE})")
        int sources = 16;

        @Option(
                names = "--repl-churn-per-second",
                paramLabel = "N",
                description =
                        "Connections a second of a stranger reconnecting in a tight loop (default: ${DEFAULT-VALUE})")
        int churnPerSecond = 500;

        @Option(
                names = "--repl-drops",
                paramLabel = "N",
                description = "Replication link drops during the attack (default: ${DEFAULT-VALUE})")
        int drops = 3;

        @Option(
                names = "--repl-drop-millis",
                paramLabel = "MS",
                description = "How long each drop cuts the link (default: ${DEFAULT-VALUE})")
        long dropMillis = 1000;

        /** The settings, checked. */
        Settings settings() {
            if (squatters < 0 || squatters > 1000) {
                throw new IllegalArgumentException("--repl-squatters is not in 0..1000: " + squatters);
            }
            if (sources < 1 || sources > 96)
                throw new IllegalArgumentException("--repl-sources is not in 1..96: " + sources);
            if (churnPerSecond < 0 || churnPerSecond > 20_000) {
                throw new IllegalArgumentException("--repl-churn-per-second is not in 0..20000: " + churnPerSecond);
            }
            if (drops < 1 || drops > 20) throw new IllegalArgumentException("--repl-drops is not in 1..20: " + drops);
            if (dropMillis < 0 || dropMillis > 60_000) {
                throw new IllegalArgumentException("--repl-drop-millis is not in 0..60000: " + dropMillis);
            }
            return new Settings(squatters, sources, churnPerSecond, drops, dropMillis);
        }
    }

    /** What ran; see {@link Options}. */
    record Settings(int squatters, int sources, int churnPerSecond, int drops, long dropMillis) {}

    /**
     * What was measured.
     *
     * @param settings what ran
     * @param restreamMillis for each drop, the time from the heal until the primary streamed again;
     *     null if it did not within 30 s
     * @param attackSeconds how long the attack lasted
     * @param squatterConnections connections the squatters opened
     * @param churnConnections connections the tight loop opened
     * @param warnLines WARN lines both nodes wrote during the attack
     * @param refused the backup's {@code refusedConnections} over the attack
     * @param dropped the backup's {@code droppedConnections} over the attack
     */
    record Result(
            Settings settings,
            List<Double> restreamMillis,
            double attackSeconds,
            long squatterConnections,
            long churnConnections,
            long warnLines,
            long refused,
            long dropped) {
        /** The slowest return to streaming, null if one never came. */
        Double worstRestreamMillis() {
            double worst = 0;
            for (Double d : restreamMillis) {
                if (d == null) return null;
                worst = Math.max(worst, d);
            }
            return worst;
        }

        double warnLinesPerSecond() {
            return attackSeconds <= 0 ? warnLines : warnLines / attackSeconds;
        }

        /** The bounds: streaming again within 3 s of each heal, a few WARN lines a second. */
        List<Verdict.Check> checks() {
            return List.of(
                    Verdict.Check.atMost(
                            settings.squatters() + " replication squatters: streaming again after a link drop",
                            worstRestreamMillis(),
                            RESTREAM_LIMIT_MILLIS,
                            "ms"),
                    Verdict.Check.atMost(
                            "replication squatters: WARN lines per second, both nodes",
                            Math.round(warnLinesPerSecond() * 100) / 100.0,
                            WARN_LINES_PER_SECOND_LIMIT,
                            ""));
        }

        String render() {
            StringBuilder times = new StringBuilder();
            for (Double d : restreamMillis) {
                times.append(times.isEmpty() ? "" : ", ")
                        .append(d == null ? "never" : String.format(Locale.ROOT, "%.0f", d));
            }
            return String.format(
                    Locale.ROOT,
                    "backup's replication port: %d squatters from %d sources (renewed every 10 s), a stranger"
                            + " reconnecting %d/s; %d link drops of %d ms over %.1f s%n"
                            + "  streaming again after each heal (ms): %s%n"
                            + "  connections: %d by squatters, %d by the tight loop; backup refused %d, closed %d to"
                            + " make room%n"
                            + "  WARN lines, both nodes: %d (%.2f/s)",
                    settings.squatters(),
                    settings.sources(),
                    settings.churnPerSecond(),
                    settings.drops(),
                    settings.dropMillis(),
                    attackSeconds,
                    times,
                    squatterConnections,
                    churnConnections,
                    refused,
                    dropped,
                    warnLines,
                    warnLinesPerSecond());
        }
    }

    private ReplicationSquatters() {}

    /** Runs the attack against {@code cluster}'s backup; the cluster streams again when it returns. */
    static Result run(Settings s, BenchCluster cluster, PrintWriter err) throws InterruptedException {
        InetSocketAddress port = new InetSocketAddress(BenchCluster.HOST, cluster.backupReplicationPort());
        long warnBefore = warnLines(cluster.log(true)) + warnLines(cluster.log(false));
        long refusedBefore = backupCount(cluster, "refusedConnections");
        long droppedBefore = backupCount(cluster, "droppedConnections");
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong squatterConnections = new AtomicLong();
        AtomicLong churnConnections = new AtomicLong();
        Thread squat = daemon("kvs-abuse-repl-squatters", () -> squat(s, port, running, squatterConnections));
        Thread churn = daemon("kvs-abuse-repl-churn", () -> churn(s, port, running, churnConnections));
        long start = System.nanoTime();
        List<Double> restream = new ArrayList<>();
        try {
            squat.start();
            churn.start();
            // the squatters in place, renewed at least once before the first drop
            TimeUnit.SECONDS.sleep(3);
            for (int i = 0; i < s.drops(); i++) {
                cluster.cutLink();
                TimeUnit.MILLISECONDS.sleep(s.dropMillis());
                cluster.healLink();
                long healed = System.nanoTime();
                restream.add(awaitStreaming(cluster, healed));
                Double ms = restream.get(i);
                err.printf(
                        Locale.ROOT,
                        "abuse: replication drop %d: %s%n",
                        i + 1,
                        ms == null
                                ? "not streaming after 30 s"
                                : String.format(Locale.ROOT, "streaming again after %.0f ms", ms));
                err.flush();
                // the next drop in another phase of the squatters' 10 s renewal
                TimeUnit.MILLISECONDS.sleep(3700);
            }
        } finally {
            running.set(false);
            squat.join(10_000);
            churn.join(10_000);
            cluster.healLink();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        long warn = warnLines(cluster.log(true)) + warnLines(cluster.log(false)) - warnBefore;
        cluster.awaitStreaming(BenchCluster.START_TIMEOUT);
        return new Result(
                s,
                restream,
                seconds,
                squatterConnections.get(),
                churnConnections.get(),
                warn,
                backupCount(cluster, "refusedConnections") - refusedBefore,
                backupCount(cluster, "droppedConnections") - droppedBefore);
    }

    /** Milliseconds from {@code healedNanos} until the primary reports {@code streaming}; null after 30 s. */
    private static Double awaitStreaming(BenchCluster cluster, long healedNanos) throws InterruptedException {
        long deadline = healedNanos + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            if ("streaming".equals(cluster.primaryReplication().state())) {
                return (System.nanoTime() - healedNanos) / 1e6;
            }
            // the admin port is the only way to learn the link state from outside
            TimeUnit.MILLISECONDS.sleep(10);
        }
        return null;
    }

    /** Holds {@code squatters} connections: reopened at once when closed, and every 10 s anyway. */
    private static void squat(Settings s, InetSocketAddress port, AtomicBoolean running, AtomicLong opened) {
        SocketChannel[] held = new SocketChannel[s.squatters()];
        long[] openedAt = new long[held.length];
        int[] sent = new int[held.length];
        ByteBuffer sink = ByteBuffer.allocate(4096);
        long tick = 0;
        try {
            while (running.get()) {
                long now = System.nanoTime();
                for (int i = 0; i < held.length; i++) {
                    if (held[i] != null && (closedByNode(held[i], sink) || now - openedAt[i] >= RENEW_NANOS)) {
                        close(held[i]);
                        held[i] = null;
                    }
                    if (held[i] == null) {
                        held[i] = open(port, "127.0.0." + (2 + i % s.sources()));
                        if (held[i] == null) continue;
                        openedAt[i] = now;
                        sent[i] = 0;
                        opened.incrementAndGet();
                    } else if (i % 2 == 1 && tick % (1000 / TICK_MILLIS) == 0 && sent[i] < SLOW_FRAME.length) {
                        // a slow squatter: one byte of a frame a second
                        write(held[i], ByteBuffer.wrap(SLOW_FRAME, sent[i]++, 1));
                    }
                }
                tick++;
                TimeUnit.MILLISECONDS.sleep(TICK_MILLIS); // the attack's pace
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            for (SocketChannel c : held) close(c);
        }
    }

    /** A stranger reconnecting in a tight loop: connects, sends junk, resets; {@code churnPerSecond} a second. */
    private static void churn(Settings s, InetSocketAddress port, AtomicBoolean running, AtomicLong opened) {
        if (s.churnPerSecond() == 0) return;
        byte[] junk = "GET / HTTP/1.1\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
        long gapNanos = TimeUnit.SECONDS.toNanos(1) / s.churnPerSecond();
        long next = System.nanoTime();
        while (running.get()) {
            SocketChannel c = open(port, CHURN_SOURCE);
            if (c != null) {
                opened.incrementAndGet();
                write(c, ByteBuffer.wrap(junk));
                try {
                    c.setOption(StandardSocketOptions.SO_LINGER, 0); // a reset: no TIME_WAIT left on either side
                } catch (IOException e) {
                    // closing anyway
                }
                close(c);
            }
            next += gapNanos;
            long wait = next - System.nanoTime();
            if (wait > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(wait); // the attack's pace
                } catch (InterruptedException e) {
                    return;
                }
            } else if (wait < -TimeUnit.SECONDS.toNanos(1)) {
                next = System.nanoTime(); // fell behind: no burst to catch up
            }
        }
    }

    private static SocketChannel open(InetSocketAddress port, String from) {
        SocketChannel c = null;
        try {
            c = SocketChannel.open();
            c.bind(new InetSocketAddress(from, 0));
            c.connect(port);
            c.configureBlocking(false);
            return c;
        } catch (IOException e) {
            close(c);
            return null;
        }
    }

    /** Whether the node closed {@code c} (end of stream or reset); what it sent is discarded. */
    private static boolean closedByNode(SocketChannel c, ByteBuffer sink) {
        try {
            sink.clear();
            return c.read(sink) < 0;
        } catch (IOException e) {
            return true;
        }
    }

    private static void write(SocketChannel c, ByteBuffer b) {
        try {
            c.write(b);
        } catch (IOException e) {
            // closed by the node: seen on the next read
        }
    }

    private static void close(SocketChannel c) {
        if (c == null) return;
        try {
            c.close();
        } catch (IOException e) {
            // closing anyway
        }
    }

    private static Thread daemon(String name, Runnable r) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    /** WARN lines in a node's log so far. */
    static long warnLines(Path log) {
        try (var lines = Files.lines(log, StandardCharsets.ISO_8859_1)) { // any byte is a character: never fails
            return lines.filter(ReplicationSquatters::isWarn).count();
        } catch (IOException | UncheckedIOException e) {
            return 0;
        }
    }

    /** A line of the node's log pattern ({@code TIME LEVEL [thread] logger - msg}) at WARN. */
    static boolean isWarn(String line) {
        int space = line.indexOf(' ');
        return space > 0 && line.startsWith("WARN ", space + 1);
    }

    private static long backupCount(BenchCluster cluster, String field) {
        return cluster.status(false).path("backup").path(field).asLong();
    }
}
