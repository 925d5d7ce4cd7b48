package dev.kvs.bench.latency;

import dev.kvs.bench.resp.RespConnection;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * Writers of large values, back to back: each its own connection and thread, one SET at a time, the
 * next as soon as the last is answered. Error replies ({@code -BUSY}, {@code -NOREPLICA}, ...) and
 * timeouts are counted, never fatal: a writer that timed out reconnects. Each writer cycles over a
 * few keys, so the stores stay small however long the run; values still replicate (a key rewritten
 * before its value shipped sends only the newer one, which is conflation, and is what a real
 * workload of hot keys does).
 */
final class BulkWriters {
    /** Bytes of values each writer's keys hold at most: 64 MiB (at least two keys). */
    static final long BYTES_PER_WRITER = 64L << 20;

    /** How long a writer pauses after an error before its next SET, so a refusing primary is not hammered. */
    private static final long ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * What to write.
     *
     * @param host the primary's address
     * @param port its RESP port
     * @param mode each connection's replication mode ({@code KVS.MODE})
     * @param writers writers, one connection each
     * @param valueSize bytes per value
     * @param replyTimeout how long a SET may wait for its reply
     * @param keyPrefix prefix of every key
     */
    record Settings(
            String host, int port, String mode, int writers, int valueSize, Duration replyTimeout, String keyPrefix) {
        Settings {
            if (writers < 1) throw new IllegalArgumentException("writers < 1: " + writers);
            if (valueSize < 1) throw new IllegalArgumentException("valueSize < 1: " + valueSize);
        }

        /** Keys each writer cycles over. */
        int keysPerWriter() {
            return (int) Math.max(2, Math.min(64, BYTES_PER_WRITER / valueSize));
        }
    }

    /**
     * What the writers did.
     *
     * @param writers writers
     * @param valueSize bytes per value
     * @param acked SETs answered {@code +OK}
     * @param ackedBytes their value bytes
     * @param failures SETs that failed, by kind ({@code BUSY}, {@code NOREPLICA}, {@code timeout},
     *     {@code connection}, ...)
     */
    record Result(int writers, long valueSize, long acked, long ackedBytes, Map<String, Long> failures) {
        Result {
            failures = Collections.unmodifiableMap(new TreeMap<>(failures));
        }
    }

    private final Settings settings;
    private final LongAdder acked = new LongAdder();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final List<Writer> writers = new ArrayList<>();
    private volatile boolean stopping;

    BulkWriters(Settings settings) {
        this.settings = settings;
    }

    /** Starts every writer. */
    void start() {
        for (int i = 0; i < settings.writers(); i++) {
            Writer w = new Writer(i);
            writers.add(w);
            w.thread.start();
        }
    }

    /** SETs acknowledged so far. */
    long acked() {
        return acked.sum();
    }

    /** SETs failed so far. */
    long failed() {
        return failures.values().stream().mapToLong(LongAdder::sum).sum();
    }

    /** What the writers did so far; they go on. */
    Result snapshot() {
        Map<String, Long> byKind = new TreeMap<>();
        failures.forEach((k, v) -> byKind.put(k, v.sum()));
        long n = acked.sum();
        return new Result(settings.writers(), settings.valueSize(), n, n * settings.valueSize(), byKind);
    }

    /**
     * Stops the writers: closes their connections (a SET still waiting is abandoned, not counted) and
     * waits for their threads. Idempotent: a second call returns the same counts.
     */
    Result stop() throws InterruptedException {
        stopping = true;
        for (Writer w : writers) w.close();
        for (Writer w : writers) w.thread.join(5_000);
        return snapshot();
    }

    private void failed(String kind) {
        failures.computeIfAbsent(kind, k -> new LongAdder()).increment();
    }

    /** One writer: a connection and the thread that writes through it. */
    private final class Writer {
        final Thread thread;
        final byte[] value;
        volatile RespConnection connection;

        Writer(int index) {
            value = new byte[settings.valueSize()];
            new Random(index).nextBytes(value);
            thread = new Thread(() -> run(index), "kvs-bench-writer-" + index);
            thread.setDaemon(true);
        }

        private void run(int index) {
            int keys = settings.keysPerWriter();
            for (long n = 0; !stopping; n++) {
                String key = settings.keyPrefix() + index + "-" + (n % keys);
                try {
                    RespConnection c = connection();
                    Object reply = c.call("SET", key, value);
                    if ("OK".equals(reply)) {
                        acked.increment();
                        continue;
                    }
                    failed(reply instanceof RespConnection.ErrorReply e ? e.kind() : "unexpected reply");
                } catch (SocketTimeoutException e) {
                    if (stopping) return;
                    failed("timeout");
                    close(); // the reply may still come: a new connection keeps replies and SETs in step
                } catch (IOException e) {
                    if (stopping) return;
                    failed("connection");
                    close();
                }
                LockSupport.parkNanos(ERROR_PAUSE_NANOS);
            }
        }

        private RespConnection connection() throws IOException {
            RespConnection c = connection;
            if (c != null) return c;
            c = RespConnection.openInMode(settings.host(), settings.port(), settings.replyTimeout(), settings.mode());
            connection = c;
            if (stopping) c.close(); // stop() may have run between the check and the assignment
            return c;
        }

        void close() {
            RespConnection c = connection;
            connection = null;
            if (c != null) c.close();
        }
    }
}
