package dev.kvs.bench.latency;

import dev.kvs.bench.resp.RespConnection;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.LongStream;

/**
 * Small SETs on a fixed schedule, one connection: what a latency-sensitive client sees. The schedule
 * is open-loop: a SET leaves every {@code interval} whether or not the ones before it were answered
 * (pipelined on the connection), and each latency runs from the moment the SET was due to its reply,
 * so a stall shows as the whole wait of every SET behind it, not as one slow SET (no coordinated
 * omission).
 */
final class SmallWrites {
    /**
     * What to send.
     *
     * @param host the primary's address
     * @param port its RESP port
     * @param mode the connection's replication mode ({@code KVS.MODE})
     * @param valueSize bytes per value
     * @param interval time between two SETs
     * @param replyTimeout how long the connection may stay silent while SETs wait for replies
     * @param keyPrefix prefix of every key; each SET writes a new key
     */
    record Settings(
            String host,
            int port,
            String mode,
            int valueSize,
            Duration interval,
            Duration replyTimeout,
            String keyPrefix) {
        Settings {
            if (valueSize < 1) throw new IllegalArgumentException("valueSize < 1: " + valueSize);
            if (interval.isNegative() || interval.isZero()) {
                throw new IllegalArgumentException("interval <= 0: " + interval);
            }
        }
    }

    private final Settings settings;
    private final byte[] value;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong lastMicros = new AtomicLong(-1);
    private long keys;

    SmallWrites(Settings settings) {
        this.settings = settings;
        this.value = new byte[settings.valueSize()];
        Arrays.fill(value, (byte) 'v');
    }

    /** SETs answered (successfully or not) in the phase running now. */
    long answered() {
        return answered.get();
    }

    /** The latest SET latency in milliseconds, or {@code null} before the first. */
    Double lastMs() {
        long m = lastMicros.get();
        return m < 0 ? null : m / 1000.0;
    }

    /**
     * Sends {@code count} SETs one after the other, each after the last one's reply, and forgets how
     * they went: the JVMs' and connections' warm-up, before anything is measured.
     *
     * @throws IllegalStateException if a SET is not answered {@code +OK}
     */
    void warmUp(int count) throws IOException {
        try (RespConnection c = connect()) {
            for (int i = 0; i < count; i++) {
                Object reply = c.call("SET", nextKey(), value);
                if (!"OK".equals(reply))
                    throw new IllegalStateException("warm-up SET answered " + RespConnection.describe(reply));
            }
        }
    }

    /**
     * Sends a SET every {@code interval} for {@code duration}, then waits for the replies still due (at
     * most {@code replyTimeout} of silence), and returns how the SETs went.
     */
    PhaseStats run(Duration duration) throws IOException, InterruptedException {
        return run(duration, () -> {});
    }

    /**
     * As {@link #run(Duration)}, calling {@code sendingDone} once the last SET has been sent, before
     * waiting for the replies still due: the end of the phase for anything measured beside it.
     */
    PhaseStats run(Duration duration, Runnable sendingDone) throws IOException, InterruptedException {
        answered.set(0);
        lastMicros.set(-1);
        BlockingQueue<Long> due = new LinkedBlockingQueue<>();
        Map<String, Long> failures = new ConcurrentHashMap<>();
        LongStream.Builder latencies = LongStream.builder();
        long sent = 0;
        Reader reader;
        try (RespConnection c = connect()) {
            reader = new Reader(c, due, failures, latencies);
            Thread thread = new Thread(reader, "kvs-bench-small-replies");
            thread.setDaemon(true);
            thread.start();
            long start = System.nanoTime();
            long interval = settings.interval().toNanos();
            for (long i = 0; interval * i < duration.toNanos() && !reader.broken; i++) {
                long at = start + interval * i;
                for (long wait = at - System.nanoTime(); wait > 0; wait = at - System.nanoTime()) {
                    LockSupport.parkNanos(wait);
                }
                due.add(at);
                sent++;
                try {
                    c.send("SET", nextKey(), value);
                } catch (IOException e) {
                    reader.lostAs = "connection";
                    c.close(); // the reader stops at once instead of waiting for replies that cannot come
                    break;
                }
            }
            reader.sendingDone = true;
            sendingDone.run();
            thread.join(settings.replyTimeout().toMillis() + 5_000);
            if (thread.isAlive()) {
                c.close(); // unblocks the reader
                thread.join(5_000);
            }
        }
        Latencies l;
        synchronized (latencies) {
            l = Latencies.of(latencies.build().toArray());
        }
        long failed = failures.values().stream().mapToLong(Long::longValue).sum();
        long unanswered = sent - l.count() - failed;
        if (unanswered > 0) failures.merge(reader.lostAs == null ? "timeout" : reader.lostAs, unanswered, Long::sum);
        return PhaseStats.of(sent, l, failures);
    }

    private RespConnection connect() throws IOException {
        RespConnection c =
                RespConnection.open(settings.host(), settings.port(), Duration.ofSeconds(5), settings.replyTimeout());
        Object reply = c.call("KVS.MODE", settings.mode());
        if (!"OK".equals(reply)) {
            c.close();
            throw new IllegalStateException(
                    "KVS.MODE " + settings.mode() + " answered " + RespConnection.describe(reply));
        }
        return c;
    }

    private String nextKey() {
        return settings.keyPrefix() + keys++;
    }

    /** Reads the replies in order and matches each with the time its SET was due. */
    private final class Reader implements Runnable {
        private final RespConnection connection;
        private final BlockingQueue<Long> due;
        private final Map<String, Long> failures;
        private final LongStream.Builder latencies;
        volatile boolean sendingDone;
        volatile boolean broken;
        /** Why the SETs left without a reply got none: {@code timeout} or {@code connection}. */
        volatile String lostAs;

        Reader(RespConnection connection, BlockingQueue<Long> due, Map<String, Long> failures, LongStream.Builder l) {
            this.connection = connection;
            this.due = due;
            this.failures = failures;
            this.latencies = l;
        }

        @Override
        public void run() {
            try {
                while (true) {
                    Long at = due.poll(20, TimeUnit.MILLISECONDS);
                    if (at == null) {
                        if (sendingDone && due.isEmpty()) return;
                        continue;
                    }
                    Object reply = connection.read();
                    long micros = Math.max(0, (System.nanoTime() - at) / 1000);
                    answered.incrementAndGet();
                    lastMicros.set(micros);
                    if (reply instanceof RespConnection.ErrorReply e) {
                        failures.merge(e.kind(), 1L, Long::sum);
                    } else if ("OK".equals(reply)) {
                        synchronized (latencies) {
                            latencies.add(micros);
                        }
                    } else {
                        failures.merge("unexpected reply", 1L, Long::sum);
                    }
                }
            } catch (SocketTimeoutException e) {
                lostAs = "timeout";
                broken = true;
            } catch (IOException e) {
                if (lostAs == null) lostAs = "connection";
                broken = true;
            } catch (InterruptedException e) {
                broken = true;
            }
        }
    }
}
