package dev.kvs.server.cli;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.KvsNode;
import dev.kvs.server.config.NodeConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --warm-up}: a fresh JVM runs the request path interpreted, then compiled by C1, for its first few
 * hundred thousand requests (a node served about 20k small SETs in its first second against 440k warm).
 * Before the node opens its client port, this drives a scratch node in the same JVM, so that the same
 * classes on the same transport compile first: an in-memory primary alone on loopback ephemeral ports,
 * fed pipelined {@code SET}s and then {@code GET}s of 100-byte values over {@link #CONNECTIONS}
 * connections, then closed. The node itself, its store and its peer see none of it. (Session 32 tried
 * the same through an {@code EmbeddedChannel}, and it did not pay: the sockets, buffers and event loops
 * are part of the path.)
 *
 * <p>Bounded: at most the requests asked for, at most {@link #MAX_SECONDS} of wall time, a scratch store
 * of {@link #STORE_BYTES}.
 */
final class WarmUp {
    private static final Logger LOG = LoggerFactory.getLogger(WarmUp.class);

    static final int CONNECTIONS = 8;
    static final int PIPELINE = 16;
    /** Pipelines per connection, cycled: 1,024 keys per connection. */
    static final int BATCHES = 64;

    static final int VALUE_BYTES = 100;
    static final int MAX_SECONDS = 15;
    static final long STORE_BYTES = 16L << 20;

    /** What a warm-up did: requests answered, and how long it took, start and close of the scratch node included. */
    record Result(long requests, long millis, int port) {}

    private WarmUp() {}

    /**
     * {@link #run}, for a node about to start: a warm-up that fails (the scratch node cannot start, a
     * connection breaks) is logged and the node starts without it. It is an optimisation, not a condition.
     */
    static void runOrSkip(long requests) throws InterruptedException {
        try {
            run(requests);
        } catch (RuntimeException e) {
            LOG.warn("warm-up failed, starting without it: {}", e.toString());
        }
    }

    /**
     * Runs {@code requests} requests (half {@code SET}, then half {@code GET}) through a scratch node.
     *
     * @throws IllegalArgumentException if {@code requests} is negative
     */
    static Result run(long requests) throws InterruptedException {
        if (requests < 0) throw new IllegalArgumentException("warm-up requests < 0: " + requests);
        long start = System.nanoTime();
        long deadline = start + MAX_SECONDS * 1_000_000_000L;
        NodeConfig scratch = NodeConfig.builder()
                .name("warm-up")
                .bind("127.0.0.1")
                .port(0)
                .replBind("127.0.0.1")
                .replPort(0)
                .adminBind("127.0.0.1")
                .adminPort(0)
                .store(StoreConfig.builder()
                        .maxEntries(4L * BATCHES * PIPELINE * CONNECTIONS)
                        .maxBytes(STORE_BYTES)
                        .build())
                .build();
        AtomicLong done = new AtomicLong();
        int port;
        try (KvsNode node = KvsNode.start(scratch)) {
            port = node.port();
            for (String command : List.of("SET", "GET")) {
                long share = (requests / 2 + CONNECTIONS * PIPELINE - 1) / (CONNECTIONS * PIPELINE);
                List<Thread> clients = new ArrayList<>();
                List<RuntimeException> failures = new ArrayList<>();
                for (int c = 0; c < CONNECTIONS; c++) {
                    int connection = c;
                    Thread t = new Thread(
                            () -> {
                                try {
                                    drive(port, command, share, connection, deadline, done);
                                } catch (RuntimeException e) {
                                    synchronized (failures) {
                                        failures.add(e);
                                    }
                                }
                            },
                            "kvs-warm-up-" + c);
                    t.setDaemon(true);
                    t.start();
                    clients.add(t);
                }
                for (Thread t : clients) t.join();
                if (!failures.isEmpty()) throw failures.get(0);
            }
        }
        long millis = (System.nanoTime() - start) / 1_000_000;
        LOG.info("warm-up: {} requests through a scratch node on 127.0.0.1:{} in {} ms", done.get(), port, millis);
        return new Result(done.get(), millis, port);
    }

    /**
     * One connection's part: {@code batches} pipelines of {@link #PIPELINE} commands, or until the deadline.
     * The pipelines are made once ({@link #BATCHES} of them, cycled) and the replies counted by their line
     * ends, so that the client's own work stays small beside the node's.
     */
    private static void drive(int port, String command, long batches, int connection, long deadline, AtomicLong done) {
        boolean set = command.equals("SET");
        byte[][] pipelines = pipelines(set, connection);
        int linesPerBatch = set ? PIPELINE : 2 * PIPELINE; // +OK, or $100 and the value (every key was set)
        byte[] buf = new byte[64 * 1024];
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(10_000);
            OutputStream out = s.getOutputStream();
            InputStream in = s.getInputStream();
            boolean lineStart = true;
            for (long b = 0; b < batches && System.nanoTime() < deadline; b++) {
                out.write(pipelines[(int) (b % BATCHES)]);
                for (int lines = 0; lines < linesPerBatch; ) {
                    int n = in.read(buf);
                    if (n < 0) throw new IOException("the scratch node closed the connection");
                    for (int i = 0; i < n; i++) {
                        if (lineStart && buf[i] == '-') throw new IOException("the scratch node answered an error");
                        lineStart = buf[i] == '\n';
                        if (lineStart) lines++;
                    }
                }
                done.addAndGet(PIPELINE);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("warm-up connection to 127.0.0.1:" + port + ": " + e.getMessage(), e);
        }
    }

    /**
     * {@link #BATCHES} pipelines of {@code SET key value} or {@code GET key}, the same keys for both (so
     * every {@code GET} finds its key): connection {@code c}'s keys are {@code key:<i * CONNECTIONS + c>}.
     */
    private static byte[][] pipelines(boolean set, int connection) {
        String value = "v".repeat(VALUE_BYTES);
        byte[][] pipelines = new byte[BATCHES][];
        for (int b = 0; b < BATCHES; b++) {
            StringBuilder p = new StringBuilder();
            for (int i = 0; i < PIPELINE; i++) {
                String key = "key:" + ((b * PIPELINE + i) * CONNECTIONS + connection);
                p.append(set ? "*3\r\n$3\r\nSET\r\n$" : "*2\r\n$3\r\nGET\r\n$")
                        .append(key.length())
                        .append("\r\n")
                        .append(key)
                        .append("\r\n");
                if (set)
                    p.append('$')
                            .append(VALUE_BYTES)
                            .append("\r\n")
                            .append(value)
                            .append("\r\n");
            }
            pipelines[b] = p.toString().getBytes(StandardCharsets.US_ASCII);
        }
        return pipelines;
    }
}
