package dev.kvs.bench.latency;

import dev.kvs.bench.drill.ValueSource;
import dev.kvs.bench.resp.RespConnection;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The soak's delete and expiry churn beside {@link SoakLoad}: writers that never write a key twice,
 * each at {@code rate} fresh keys a second on its own connection, a few commands in flight. A delete
 * writer sends {@code SET k v} then {@code DEL k}; an expiry writer sends {@code SET k v EX n}, n in
 * 1..10 s. Every such key ends deleted or expired, so whatever the store holds of them beyond the
 * keys still to expire is what it failed to collect: over a long run they add up to many times the
 * store's {@code maxEntries}, so a node that keeps a record per deleted key fills up. A sample of the
 * keys acknowledged deleted, and of those acknowledged with an expiry, is kept so that {@link
 * #verify} can check that none came back.
 */
final class SoakChurn {
    /** Keys a writer sends before it reads their replies. */
    static final int BATCH = 8;
    /** Keys acknowledged deleted (or expiring) that each writer keeps for {@link #verify}. */
    static final int SAMPLE = 4096;
    /** Shortest expiry of an expiry writer's keys, seconds. */
    static final int MIN_EXPIRY = 1;
    /** Longest expiry of an expiry writer's keys, seconds. */
    static final int MAX_EXPIRY = 10;
    /** How long after its expiry a key is checked at all: the nodes' clocks and expiry cycles. */
    private static final long EXPIRY_GRACE_MILLIS = 2000;

    private static final long ERROR_PAUSE_NANOS = TimeUnit.MILLISECONDS.toNanos(20);

    /**
     * What to run.
     *
     * @param host the primary's address
     * @param port its RESP port
     * @param mode each connection's replication mode
     * @param deleteWriters writers of {@code SET}+{@code DEL} pairs
     * @param expireWriters writers of {@code SET .. EX n}
     * @param rate fresh keys a second per writer
     * @param valueSize bytes per value
     * @param replyTimeout how long a reply may take
     * @param keyPrefix prefix of every key
     */
    record Settings(
            String host,
            int port,
            String mode,
            int deleteWriters,
            int expireWriters,
            int rate,
            int valueSize,
            Duration replyTimeout,
            String keyPrefix) {}

    /** What a node holds of a key, as {@link #verify} reads it: null if it holds no record. */
    record Held(byte[] value, long expireAtMillis) {}

    /** Reads what a node holds of a key. */
    @FunctionalInterface
    interface Peek {
        Held held(String key) throws IOException;
    }

    /**
     * What reading the churn's sampled keys back from a node found.
     *
     * @param deleted keys acknowledged deleted that were read back
     * @param expired keys whose expiry had passed that were read back
     * @param cameBack of those, keys holding a value that is not expired
     * @param examples up to 5 of them
     */
    record Check(long deleted, long expired, long cameBack, List<String> examples) {}

    private final Settings settings;
    private final List<Writer> writers = new ArrayList<>();
    private final Map<String, LongAdder> failures = new ConcurrentHashMap<>();
    private final LongAdder deleted = new LongAdder();
    private final LongAdder expiring = new LongAdder();
    private volatile boolean stopping;

    SoakChurn(Settings settings) {
        this.settings = settings;
        for (int i = 0; i < settings.deleteWriters(); i++) writers.add(new Writer("d" + i, true, i));
        for (int i = 0; i < settings.expireWriters(); i++) writers.add(new Writer("e" + i, false, 1000 + i));
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

    /** Keys written and deleted, both acknowledged. */
    long deleted() {
        return deleted.sum();
    }

    /** Keys written with an expiry, acknowledged. */
    long expiring() {
        return expiring.sum();
    }

    /** Commands that failed, by kind. */
    Map<String, Long> failures() {
        Map<String, Long> m = new TreeMap<>();
        failures.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    /**
     * Reads the sampled keys back through {@code peek}: a deleted key, or a key whose expiry passed
     * (by {@code nowMillis}, with a grace for the nodes' expiry cycles), must hold no value that is
     * still live.
     */
    Check verify(Peek peek, long nowMillis) throws IOException {
        long readDeleted = 0;
        long readExpired = 0;
        long cameBack = 0;
        List<String> examples = new ArrayList<>();
        for (Writer w : writers) {
            for (int i = 0; i < w.sampled(); i++) {
                String key = w.sampleKeys[i];
                long expireAt = w.sampleExpiry[i];
                if (!w.deletes && expireAt + EXPIRY_GRACE_MILLIS > nowMillis) continue;
                if (w.deletes) readDeleted++;
                else readExpired++;
                Held h = peek.held(key);
                String problem = cameBack(h, w.deletes, nowMillis);
                if (problem != null) {
                    cameBack++;
                    if (examples.size() < 5) examples.add(key + ": " + problem);
                }
            }
        }
        return new Check(readDeleted, readExpired, cameBack, examples);
    }

    /** Why {@code held} is a deleted or expired key come back, or null if it is not. */
    static String cameBack(Held held, boolean deleted, long nowMillis) {
        if (held == null || held.value() == null) return null;
        if (deleted) return "deleted, holds a value again";
        if (held.expireAtMillis() <= 0) return "expired, holds a value without expiry";
        if (held.expireAtMillis() > nowMillis) return "expired, holds a value expiring at " + held.expireAtMillis();
        return null; // expired, not yet removed: counted in the node's entries, not a value served
    }

    /** One churn writer: fresh keys at the rate, {@link #BATCH} keys' commands in flight. */
    private final class Writer implements Runnable {
        final String name;
        final boolean deletes;
        final Thread thread;
        final SplittableRandom random;
        final String[] sampleKeys = new String[SAMPLE];
        final long[] sampleExpiry = new long[SAMPLE];
        private long acked;
        /** Keys in the sample; read by {@link #verify} after the writer's thread ended. */
        private int sampled;

        private volatile RespConnection connection;

        Writer(String name, boolean deletes, long seed) {
            this.name = name;
            this.deletes = deletes;
            this.random = new SplittableRandom(seed);
            this.thread = new Thread(this, "soak-churn-" + name);
            thread.setDaemon(true);
        }

        int sampled() {
            return sampled;
        }

        void closeConnection() {
            RespConnection c = connection;
            if (c != null) c.close();
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            long sent = 0;
            long seq = 0;
            String[] keys = new String[BATCH];
            long[] expireAt = new long[BATCH];
            while (!stopping) {
                long due = (long) ((System.nanoTime() - start) / 1e9 * settings.rate()) - sent;
                if (due > settings.rate()) { // behind by more than a second (a link cut): skip, no burst
                    sent += due - BATCH;
                    due = BATCH;
                }
                if (due <= 0) {
                    // the writer's own pacing, not a synchronisation
                    LockSupport.parkNanos(Math.max(100_000, TimeUnit.SECONDS.toNanos(1) / settings.rate()));
                    continue;
                }
                int n = (int) Math.min(due, BATCH);
                try {
                    if (connection == null) connection = connect();
                    for (int i = 0; i < n; i++) {
                        keys[i] = settings.keyPrefix() + name + "-" + seq++;
                        byte[] value = ValueSource.value(keys[i], 0, settings.valueSize());
                        if (deletes) {
                            connection.send("SET", keys[i], value);
                            connection.send("DEL", keys[i]);
                        } else {
                            int seconds = random.nextInt(MIN_EXPIRY, MAX_EXPIRY + 1);
                            expireAt[i] = System.currentTimeMillis() + seconds * 1000L;
                            connection.send("SET", keys[i], value, "EX", Integer.toString(seconds));
                        }
                    }
                    for (int i = 0; i < n; i++) {
                        Object set = connection.read();
                        Object del = deletes ? connection.read() : 1L;
                        if ("OK".equals(set) && Long.valueOf(1).equals(del)) acknowledged(keys[i], expireAt[i]);
                        else fail(kind(set, del));
                    }
                } catch (SocketTimeoutException e) {
                    if (!stopping) failAndReconnect("timeout");
                } catch (IOException e) {
                    if (!stopping) failAndReconnect("connection");
                }
                sent += n;
            }
            closeConnection();
        }

        /** Counts the key and keeps it in the sample (a reservoir: every key equally likely). */
        private void acknowledged(String key, long expireAt) {
            (deletes ? deleted : expiring).increment();
            long slot = acked < SAMPLE ? acked : random.nextLong(acked + 1);
            acked++;
            if (slot < SAMPLE) {
                int s = (int) slot;
                sampleKeys[s] = key;
                sampleExpiry[s] = expireAt;
                if (s == sampled) sampled = s + 1;
            }
        }

        private String kind(Object set, Object del) {
            Object bad = "OK".equals(set) ? del : set;
            return bad instanceof RespConnection.ErrorReply e ? e.kind() : "unexpected reply";
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
