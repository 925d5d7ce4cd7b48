package dev.kvs.bench.latency;

import dev.kvs.bench.drill.ValueSource;
import dev.kvs.bench.resp.RespConnection;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The soak's load on the primary: writers of small and of large values, each its own thread and
 * connection, one command at a time, each cycling over its own keys (so the store stays small). Every
 * tenth command of a small writer is a {@code GET} of a key it wrote, checked against what it wrote;
 * every {@code reconnectEvery} commands a writer closes its connection and opens a new one. Errors
 * and timeouts are counted, never fatal (a link cut makes writes wait or fail). Each writer remembers,
 * per key, the newest write acknowledged and the newest attempted, so {@link #verify} can tell whether
 * a node lost an acknowledged write: the value it holds must be the one of an attempt at or after the
 * newest acknowledged one. Small SETs' latencies are kept per minute of the run.
 */
final class SoakLoad {
    /** How long a writer pauses after an error, so a refusing primary is not hammered. */
    private static final long ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * What to run.
     *
     * @param host the primary's address
     * @param port its RESP port
     * @param mode each connection's replication mode
     * @param smallWriters writers of small values
     * @param smallSize bytes per small value
     * @param smallKeys keys per small writer
     * @param largeWriters writers of large values
     * @param largeSize bytes per large value
     * @param largeKeys keys per large writer
     * @param reconnectEvery commands on one connection before a writer reconnects
     * @param replyTimeout how long a command may wait for its reply
     * @param keyPrefix prefix of every key
     */
    record Settings(
            String host,
            int port,
            String mode,
            int smallWriters,
            int smallSize,
            int smallKeys,
            int largeWriters,
            int largeSize,
            int largeKeys,
            int reconnectEvery,
            Duration replyTimeout,
            String keyPrefix) {}

    /** A key's value held by a node, as {@link #verify} reads it: null if the node has none. */
    @FunctionalInterface
    interface Peek {
        byte[] value(String key) throws IOException;
    }

    /**
     * What reading every written key back from a node found.
     *
     * @param keys keys with at least one acknowledged write
     * @param lost of those, keys whose value is missing, incomplete, or older than (or other than) the
     *     newest acknowledged write
     * @param examples up to 5 lost keys with what was found
     */
    record Check(long keys, long lost, List<String> examples) {}

    private final Settings settings;
    private final long startNanos;
    private final List<Writer> writers = new ArrayList<>();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final LongAdder smallAcked = new LongAdder();
    private final LongAdder largeAcked = new LongAdder();
    private final LongAdder reads = new LongAdder();
    private final LongAdder readMismatches = new LongAdder();
    private final LongAdder reconnects = new LongAdder();
    private final Object minutesLock = new Object();
    private final List<long[]> minuteMicros = new ArrayList<>();
    private final List<Integer> minuteCounts = new ArrayList<>();
    private volatile boolean stopping;

    SoakLoad(Settings settings, long startNanos) {
        this.settings = settings;
        this.startNanos = startNanos;
        for (int i = 0; i < settings.smallWriters(); i++) {
            writers.add(new Writer("s" + i, settings.smallSize(), settings.smallKeys(), true));
        }
        for (int i = 0; i < settings.largeWriters(); i++) {
            writers.add(new Writer("l" + i, settings.largeSize(), settings.largeKeys(), false));
        }
    }

    void start() {
        for (Writer w : writers) w.thread.start();
    }

    /** Stops every writer and waits for them. */
    void stop() throws InterruptedException {
        stopping = true;
        for (Writer w : writers) w.closeConnection();
        for (Writer w : writers) w.thread.join(TimeUnit.SECONDS.toMillis(40));
    }

    long smallAcked() {
        return smallAcked.sum();
    }

    long largeAcked() {
        return largeAcked.sum();
    }

    long failed() {
        return failures.values().stream().mapToLong(LongAdder::sum).sum();
    }

    long reconnects() {
        return reconnects.sum();
    }

    long reads() {
        return reads.sum();
    }

    long readMismatches() {
        return readMismatches.sum();
    }

    Map<String, Long> failures() {
        Map<String, Long> m = new TreeMap<>();
        failures.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    /** The small SETs' latencies of each minute of the run, in order. */
    List<Latencies> minutes() {
        synchronized (minutesLock) {
            List<Latencies> out = new ArrayList<>();
            for (int i = 0; i < minuteMicros.size(); i++) {
                out.add(Latencies.of(Arrays.copyOf(minuteMicros.get(i), minuteCounts.get(i))));
            }
            return out;
        }
    }

    private void record(long sentNanos, long micros) {
        int minute = (int) Math.max(0, TimeUnit.NANOSECONDS.toMinutes(sentNanos - startNanos));
        synchronized (minutesLock) {
            while (minuteMicros.size() <= minute) {
                minuteMicros.add(new long[1024]);
                minuteCounts.add(0);
            }
            long[] a = minuteMicros.get(minute);
            int n = minuteCounts.get(minute);
            if (n == a.length) {
                a = Arrays.copyOf(a, a.length * 2);
                minuteMicros.set(minute, a);
            }
            a[n] = micros;
            minuteCounts.set(minute, n + 1);
        }
    }

    /** Reads every key a writer wrote back through {@code peek} and counts the acknowledged writes lost. */
    Check verify(Peek peek) throws IOException {
        long keys = 0;
        long lost = 0;
        List<String> examples = new ArrayList<>();
        for (Writer w : writers) {
            for (int k = 0; k < w.keys; k++) {
                long acked = w.acked[k];
                if (acked < 0) continue;
                keys++;
                String key = w.key(k);
                byte[] v = peek.value(key);
                String problem = problem(key, v, acked, w.attempted[k], w.size);
                if (problem != null) {
                    lost++;
                    if (examples.size() < 5) examples.add(key + ": " + problem);
                }
            }
        }
        return new Check(keys, lost, examples);
    }

    /**
     * Why {@code value} is not the value of an attempt of {@code key} from {@code acked} to {@code
     * attempted}, or null if it is.
     */
    static String problem(String key, byte[] value, long acked, long attempted, int size) {
        if (value == null) return "no complete value (newest acknowledged write #" + acked + ")";
        long seq = seq(key, value);
        if (seq < 0) return "a value that is no write of this key";
        if (seq < acked) return "write #" + seq + ", older than the newest acknowledged #" + acked;
        if (seq > attempted) return "write #" + seq + ", never attempted (newest #" + attempted + ")";
        if (!Arrays.equals(value, ValueSource.value(key, (int) seq, size))) return "write #" + seq + " corrupted";
        return null;
    }

    /** The attempt number stamped at the start of a value ({@code KEY#N|...}), or -1. */
    static long seq(String key, byte[] value) {
        byte[] prefix = (key + "#").getBytes(StandardCharsets.UTF_8);
        if (value.length < prefix.length + 2) return -1;
        for (int i = 0; i < prefix.length; i++) {
            if (value[i] != prefix[i]) return -1;
        }
        long n = 0;
        for (int i = prefix.length; i < value.length && i < prefix.length + 12; i++) {
            byte b = value[i];
            if (b == '|') return i == prefix.length ? -1 : n;
            if (b < '0' || b > '9') return -1;
            n = n * 10 + (b - '0');
        }
        return -1;
    }

    /** One writer: its keys, its connection, what it attempted and what was acknowledged. */
    private final class Writer implements Runnable {
        final String name;
        final int size;
        final int keys;
        final boolean small;
        final long[] acked;
        final long[] attempted;
        final Thread thread;
        private volatile RespConnection connection;

        Writer(String name, int size, int keys, boolean small) {
            this.name = name;
            this.size = size;
            this.keys = keys;
            this.small = small;
            this.acked = new long[keys];
            this.attempted = new long[keys];
            Arrays.fill(acked, -1);
            Arrays.fill(attempted, -1);
            this.thread = new Thread(this, "soak-writer-" + name);
            thread.setDaemon(true);
        }

        String key(int k) {
            return settings.keyPrefix() + name + "-" + k;
        }

        void closeConnection() {
            RespConnection c = connection;
            if (c != null) c.close();
        }

        @Override
        public void run() {
            int seq = 0;
            long onConnection = 0;
            while (!stopping) {
                try {
                    if (connection == null || onConnection >= settings.reconnectEvery()) {
                        if (connection != null) {
                            connection.close();
                            reconnects.increment();
                        }
                        connection = connect();
                        onConnection = 0;
                    }
                    int k = seq % keys;
                    onConnection++;
                    if (small && seq % 10 == 9 && acked[k] >= 0) {
                        read(k);
                        seq++;
                        continue;
                    }
                    String key = key(k);
                    byte[] value = ValueSource.value(key, seq, size);
                    attempted[k] = seq;
                    long sent = System.nanoTime();
                    Object reply = connection.call("SET", key, value);
                    long micros = TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - sent);
                    if ("OK".equals(reply)) {
                        acked[k] = seq;
                        if (small) {
                            smallAcked.increment();
                            record(sent, micros);
                        } else {
                            largeAcked.increment();
                        }
                    } else {
                        fail(reply instanceof RespConnection.ErrorReply e ? e.kind() : "unexpected reply");
                    }
                    seq++;
                } catch (SocketTimeoutException e) {
                    if (!stopping) failAndReconnect("timeout");
                    seq++;
                } catch (IOException e) {
                    if (!stopping) failAndReconnect("connection");
                    seq++;
                }
            }
            closeConnection();
        }

        private void read(int k) throws IOException {
            String key = key(k);
            Object reply = connection.call("GET", key);
            reads.increment();
            if (!(reply instanceof byte[] v) || problem(key, v, acked[k], attempted[k], size) != null) {
                readMismatches.increment();
            }
        }

        private RespConnection connect() throws IOException {
            return RespConnection.openInMode(
                    settings.host(), settings.port(), settings.replyTimeout(), settings.mode());
        }

        private void fail(String kind) {
            failures.computeIfAbsent(kind, x -> new LongAdder()).increment();
            LockSupport.parkNanos(ERROR_PAUSE_NANOS);
        }

        private void failAndReconnect(String kind) {
            closeConnection();
            connection = null;
            fail(kind);
        }
    }
}
