package dev.kvs.bench.shards;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;

/**
 * A steady SET-then-GET load through a cluster client on one key of every one of the 16,384 slots, each
 * result counted against the shard that owns the key's slot in the map as created. A failed or wrong
 * answer is an error, stamped on this JVM's monotonic clock, so a test can say which shards saw errors
 * and for how long after a disaster.
 */
final class SlotLoad implements AutoCloseable {

    /** One SET then GET of {@code key} through the client under test; throws on any failure. */
    interface Op {
        void setThenGet(String key, String value) throws Exception;
    }

    /** One shard's counts so far; the nanos are {@link System#nanoTime()}, 0 if none. */
    record Tally(
            long ok,
            long errors,
            long firstErrorNanos,
            long lastErrorNanos,
            long lastOkNanos,
            String firstError,
            String lastError) {}

    private static final class Counts {
        final AtomicLong ok = new AtomicLong();
        final AtomicLong errors = new AtomicLong();
        final AtomicLong firstError = new AtomicLong();
        final AtomicLong lastError = new AtomicLong();
        final AtomicLong lastOk = new AtomicLong();
        volatile String firstMessage;
        volatile String lastMessage;

        Tally tally() {
            return new Tally(
                    ok.get(), errors.get(), firstError.get(), lastError.get(), lastOk.get(), firstMessage, lastMessage);
        }
    }

    private final List<String> keys;
    private final List<String> shardOfKey;
    private final Map<String, Counts> counts = new LinkedHashMap<>();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopping;

    /** A load on one key per slot of {@code map}; {@link #start} runs it. */
    SlotLoad(ClusterMap map) {
        keys = keyPerSlot();
        shardOfKey = new ArrayList<>(keys.size());
        map.shards().forEach(s -> counts.put(s.id(), new Counts()));
        for (String k : keys) {
            shardOfKey.add(map.shardOf(HashSlots.slot(k.getBytes(StandardCharsets.UTF_8)))
                    .id());
        }
    }

    /** Keys {@code k:0, k:1, ...}, the first seen of each slot: one per slot, in slot order. */
    static List<String> keyPerSlot() {
        String[] bySlot = new String[HashSlots.SLOTS];
        int found = 0;
        for (int n = 0; found < HashSlots.SLOTS; n++) {
            String k = "k:" + n;
            int slot = HashSlots.slot(k.getBytes(StandardCharsets.UTF_8));
            if (bySlot[slot] == null) {
                bySlot[slot] = k;
                found++;
            }
        }
        return List.of(bySlot);
    }

    /**
     * Starts {@code threadCount} threads, each doing SET then GET on random keys of its own share of the
     * keys (so no other thread's SET comes between its SET and its GET) through {@code op}.
     */
    SlotLoad start(int threadCount, Op op) {
        for (int t = 0; t < threadCount; t++) {
            int stripe = t;
            Thread thread = new Thread(() -> loop(op, stripe, threadCount), "slot-load-" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }
        return this;
    }

    /** Thread {@code stripe} of {@code stripes} uses keys {@code i} with {@code i % stripes == stripe} only. */
    private void loop(Op op, int stripe, int stripes) {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        int own = (keys.size() - stripe + stripes - 1) / stripes;
        while (!stopping) {
            int i = stripe + stripes * random.nextInt(own);
            String key = keys.get(i);
            Counts c = counts.get(shardOfKey.get(i));
            String value = Long.toString(random.nextLong());
            try {
                op.setThenGet(key, value);
                c.ok.incrementAndGet();
                c.lastOk.accumulateAndGet(System.nanoTime(), Math::max);
            } catch (Exception | AssertionError e) {
                long now = System.nanoTime();
                c.errors.incrementAndGet();
                if (c.firstError.compareAndSet(0, now)) c.firstMessage = e.toString();
                c.lastError.accumulateAndGet(now, Math::max);
                c.lastMessage = e.toString();
            }
        }
    }

    /** Each shard's counts now, by shard id in map order. */
    Map<String, Tally> tallies() {
        Map<String, Tally> t = new LinkedHashMap<>();
        counts.forEach((id, c) -> t.put(id, c.tally()));
        return t;
    }

    /**
     * Waits until {@code done} holds for the tallies, checking every 20 ms (the load's own progress is
     * the only signal), or {@code max} has passed.
     *
     * @return whether {@code done} held
     */
    boolean awaitTallies(Predicate<Map<String, Tally>> done, Duration max) throws InterruptedException {
        long deadline = System.nanoTime() + max.toNanos();
        while (System.nanoTime() < deadline) {
            if (done.test(tallies())) return true;
            TimeUnit.MILLISECONDS.sleep(20);
        }
        return done.test(tallies());
    }

    /** Stops the threads and waits for them. */
    @Override
    public void close() throws InterruptedException {
        stopping = true;
        for (Thread t : threads) t.join(TimeUnit.SECONDS.toMillis(30));
    }
}
