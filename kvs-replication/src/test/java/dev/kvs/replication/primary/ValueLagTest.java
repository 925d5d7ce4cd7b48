package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.core.TxId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Test;

/**
 * The bound on exposure in time ({@link ValueLag}), through the pending values that hold it, on a clock the
 * test moves. Replay {@link #theLagIsTheAgeOfTheOldestWriteNoAcknowledgementCovers} with {@code -Dkvs.seed=<seed
 * printed>}.
 */
class ValueLagTest {
    private static final Long FIXED_SEED = Long.getLong("kvs.seed");
    private static final long MS = 1_000_000;
    private static final long SECOND = 1_000 * MS;
    /** Values up to this long ship between the chunks of larger ones (and one longer fills the pipe). */
    private static final int SMALL = 500;

    private final AtomicLong clock = new AtomicLong(7 * SECOND);
    private long seq;

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private PendingValues pending(long boundMillis) {
        return new PendingValues(1_000_000, 1L << 40, new ValueLag(boundMillis * MS, SMALL, clock::get), clock::get);
    }

    private TxId write(PendingValues p, String k, int bytes) {
        TxId t = TxId.of(1, ++seq);
        p.add(key(k), t, bytes);
        return t;
    }

    /** Takes {@code k}'s value to ship, as the shipper does, and sends it: its TxId, the newest. */
    private static TxId ship(PendingValues p, String k) throws InterruptedException {
        assertThat(p.poll(0)).isEqualTo(key(k));
        TxId t = p.newest(key(k));
        p.shipped(key(k), t);
        return t;
    }

    private void advance(long nanos) {
        clock.addAndGet(nanos);
    }

    /** Takes the next key to ship, whichever it is, and sends it: its TxId. */
    private static TxId shipNext(PendingValues p) throws InterruptedException {
        byte[] k = p.poll(0);
        TxId t = p.newest(k);
        p.shipped(k, t);
        return t;
    }

    /** A drain rate of {@code bytesPerSecond}: values of that size acknowledged a second apart, then none pending. */
    private void measureRate(PendingValues p, int bytesPerSecond) throws InterruptedException {
        for (int i = 0; i < 3; i++) write(p, "rate-" + i, bytesPerSecond);
        TxId first = shipNext(p);
        TxId second = shipNext(p);
        advance(SECOND);
        p.acked(first);
        advance(SECOND);
        p.acked(second);
        TxId last = shipNext(p);
        advance(SECOND);
        p.acked(last);
        assertThat(p.count()).isZero();
        assertThat(p.lagStatus().drainBytesPerSecond()).isEqualTo(bytesPerSecond);
    }

    @Test
    void aWriteHasRoomUntilTheOldestUnacknowledgedValueIsAsOldAsTheBound() throws Exception {
        PendingValues p = pending(1_000);
        measureRate(p, 1_000_000);
        TxId a = write(p, "a", 10);
        advance(600 * MS);
        write(p, "b", 10);
        advance(399 * MS);
        assertThat(p.hasRoom()).isTrue();
        assertThat(p.oldestAgeMillis()).isEqualTo(999);

        advance(MS);
        assertThat(p.hasRoom()).isFalse(); // a is 1000 ms old
        assertThat(p.hasRoomIgnoringLag()).isTrue();

        ship(p, "a");
        p.acked(a);
        assertThat(p.oldestAgeMillis()).isEqualTo(400); // b's
        assertThat(p.hasRoom()).isTrue();
    }

    @Test
    void writesAreHeldOnceThePendingValuesWouldTakeTwoThirdsOfTheBoundToShip() throws Exception {
        PendingValues p = pending(5_000);
        measureRate(p, 1_000); // 2/3 of 5 s drain 3333 bytes
        TxId a = write(p, "a", 1_000);
        write(p, "b", 1_000);
        assertThat(p.lagStatus().projectedLagMillis()).isEqualTo(2_000);
        assertThat(p.hasRoom(1_332)).isTrue(); // 2000 + 1332 bytes
        assertThat(p.hasRoom(1_333)).isFalse(); // 3333 bytes: held, although the oldest value is not a millisecond old
        assertThat(p.oldestAgeMillis()).isZero();

        ship(p, "a");
        advance(SECOND);
        p.acked(a);
        assertThat(p.hasRoom(1_333)).isTrue();
    }

    @Test
    void aSmallValueHasOnlyTheSmallOnesAheadOfIt() throws Exception {
        PendingValues p = pending(5_000);
        measureRate(p, 1_000); // 3333 bytes
        for (int i = 0; i < 10; i++) write(p, "large-" + i, 1_000);
        write(p, "small", SMALL);

        assertThat(p.hasRoom(SMALL + 1)).isFalse(); // behind 10,500 bytes
        assertThat(p.hasRoom(SMALL)).isTrue(); // between their chunks, behind 500 bytes

        for (int i = 0; i < 7; i++) write(p, "small-" + i, SMALL); // 4000 bytes of small values in all
        assertThat(p.hasRoom(1)).isFalse();
        assertThat(p.hasRoom(0)).isFalse();
    }

    @Test
    void aValueThatAloneTakesLongerThanTheBoundToShipIsWrittenWhenNothingElseIsPending() throws Exception {
        PendingValues p = pending(5_000);
        measureRate(p, 1_000);
        assertThat(p.hasRoom(1_000_000)).isTrue(); // nothing pending
        write(p, "huge", 1_000_000);
        assertThat(p.hasRoom(SMALL + 1)).isFalse();

        advance(5 * SECOND); // once it is that old, it holds every write
        assertThat(p.hasRoom(1)).isFalse();
    }

    @Test
    void untilAValueIsAcknowledgedAWriteHasRoomWhileLessThanTheInitialBytesWouldBePending() throws Exception {
        PendingValues p = pending(5_000);
        TxId a = write(p, "a", (int) ValueLag.INITIAL_BYTES / 2);
        assertThat(p.lagStatus().drainBytesPerSecond()).isEqualTo(-1);
        assertThat(p.lagStatus().projectedLagMillis()).isEqualTo(-1);
        assertThat(p.hasRoom(ValueLag.INITIAL_BYTES / 2 - 1)).isTrue();
        assertThat(p.hasRoom(ValueLag.INITIAL_BYTES / 2)).isFalse();
        assertThat(p.hasRoom(SMALL)).isTrue(); // a small value is not behind the large one

        ship(p, "a");
        advance(SECOND);
        p.acked(a);
        assertThat(p.lagStatus().drainBytesPerSecond()).isEqualTo(ValueLag.INITIAL_BYTES / 2);
    }

    @Test
    void aHotKeyIsAsOldAsItsOldestWriteNotCoveredByAnAcknowledgement() throws Exception {
        PendingValues p = pending(1_000);
        measureRate(p, 1_000_000);
        // key h is written every 100 ms for 10 s; each value takes 300 ms to be acknowledged
        write(p, "h", 100);
        TxId inFlight = null;
        long shippedAt = 0;
        for (int step = 1; step <= 100; step++) {
            advance(100 * MS);
            if (inFlight != null && clock.get() - shippedAt >= 300 * MS) {
                p.acked(inFlight);
                inFlight = null;
            }
            if (inFlight == null && p.hasQueued()) {
                inFlight = ship(p, "h");
                shippedAt = clock.get();
            }
            write(p, "h", 100);
            assertThat(p.count()).isEqualTo(1); // never acknowledged to the end: always pending
            assertThat(p.oldestAgeMillis()).as("step %d", step).isLessThanOrEqualTo(500);
            assertThat(p.hasRoom()).isTrue();
        }
    }

    @Test
    void anAcknowledgementOfAnOlderRoundKeepsTheAgeOfTheRoundsAfterIt() throws Exception {
        PendingValues p = pending(10_000);
        write(p, "h", 10); // round 1 at 0
        TxId first = ship(p, "h");
        advance(100 * MS);
        write(p, "h", 10); // round 2 at 100 ms
        TxId second = ship(p, "h");
        advance(100 * MS);
        write(p, "h", 10); // round 3 at 200 ms
        advance(100 * MS);
        assertThat(p.oldestAgeMillis()).isEqualTo(300);

        p.acked(first);
        assertThat(p.oldestAgeMillis()).isEqualTo(200);
        p.acked(second);
        assertThat(p.oldestAgeMillis()).isEqualTo(100);
    }

    @Test
    void valuesListedByAFullResyncHoldNoWriterUntilTheyAreAcknowledged() throws Exception {
        PendingValues p = pending(1_000);
        measureRate(p, 1_000_000);
        p.listed(key("old"), TxId.of(1, ++seq), 10);
        advance(10 * SECOND);
        write(p, "new", 10);
        assertThat(p.oldestAgeMillis()).isEqualTo(10_000); // shown...
        assertThat(p.hasRoom()).isTrue(); // ...but not held: the resync ships the whole store

        TxId old = ship(p, "old");
        advance(2 * SECOND);
        p.acked(old);
        assertThat(p.oldestAgeMillis()).isEqualTo(2_000); // the write's
        assertThat(p.hasRoom()).isFalse();
    }

    @Test
    void aWriterWaitingForRoomIsReleasedWhenTheOldestValueIsAcknowledged() throws Exception {
        PendingValues p = pending(1_000);
        measureRate(p, 1_000_000);
        write(p, "a", 10);
        TxId inFlight = ship(p, "a");
        advance(2 * SECOND);
        CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
            try {
                return p.awaitRoom(TimeUnit.SECONDS.toNanos(30));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> p.roomWaiters() == 1);
        assertThat(writer).isNotDone();

        p.acked(inFlight);
        assertThat(writer.get(10, TimeUnit.SECONDS)).isTrue();
    }

    @Test
    void aWriterFindingNoRoomForTheWholeTimeoutIsRefused() throws Exception {
        PendingValues p = pending(1_000);
        measureRate(p, 1_000_000);
        write(p, "a", 10);
        advance(2 * SECOND);
        assertThat(p.awaitRoom(50 * MS)).isFalse();
    }

    @Test
    void onlyWritesTheBoundHeldAreCountedAsItsWaits() throws Exception {
        PendingValues p = pending(1_000);
        measureRate(p, 1_000_000);
        TxId a = write(p, "a", 10);
        p.lag().held(5 * MS); // held by another bound: this one refused nothing
        assertThat(p.lagStatus().waits()).isZero();

        advance(2 * SECOND);
        assertThat(p.hasRoom()).isFalse();
        advance(250 * MS);
        p.lag().held(250 * MS);
        assertThat(p.lagStatus().waits()).isEqualTo(1);
        assertThat(p.lagStatus().waitMillis()).isEqualTo(250);

        ship(p, "a");
        p.acked(a);
        advance(10 * SECOND);
        p.lag().held(5 * MS); // the refusal was long before this wait
        assertThat(p.lagStatus().waits()).isEqualTo(1);
    }

    @Test
    void withoutABoundNoWriteIsHeldAndTheLagIsStillMeasured() throws Exception {
        PendingValues p = pending(0);
        write(p, "a", 64 << 20);
        write(p, "b", 64 << 20);
        advance(60 * SECOND);
        assertThat(p.hasRoom()).isTrue();
        assertThat(p.oldestAgeMillis()).isEqualTo(60_000);
        assertThat(p.lagStatus().maxValueLagMillis()).isZero();
    }

    /**
     * Random writes of a few keys, shipped (the newest value of a key when the shipper takes it), acknowledged
     * in any order, nacked, dropped with their stream: after every step the lag is exactly the age of the
     * oldest write whose key has no acknowledgement of it or of a newer write.
     */
    @RepeatedTest(20)
    void theLagIsTheAgeOfTheOldestWriteNoAcknowledgementCovers() throws Exception {
        long seed = FIXED_SEED != null ? FIXED_SEED : new Random().nextLong();
        System.out.println("ValueLagTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        Random random = new Random(seed);
        PendingValues p = pending(1_000);
        String[] keys = {"k0", "k1", "k2", "k3"};
        Map<String, List<long[]>> writes = new HashMap<>(); // key -> [seq, arrival] in order
        Map<String, Long> covered = new HashMap<>(); // key -> highest seq acknowledged
        List<TxId> inFlight = new ArrayList<>();
        Map<TxId, String> keyOf = new HashMap<>();
        for (int step = 0; step < 400; step++) {
            advance(random.nextInt(50) * MS);
            int op = random.nextInt(100);
            if (op < 40) {
                String k = keys[random.nextInt(keys.length)];
                TxId t = write(p, k, 1 + random.nextInt(100));
                writes.computeIfAbsent(k, x -> new ArrayList<>()).add(new long[] {t.seq(), clock.get()});
            } else if (op < 65 && p.hasQueued()) {
                byte[] k = p.poll(0);
                TxId t = p.newest(k); // null: acknowledged since it was queued again, nothing to ship
                if (t != null) {
                    p.shipped(k, t);
                    // shipped again while in flight (the key was requeued): one copy is tracked, as on the primary
                    if (!inFlight.contains(t)) inFlight.add(t);
                    keyOf.put(t, new String(k, StandardCharsets.UTF_8));
                }
            } else if (op < 90 && !inFlight.isEmpty()) {
                TxId t = inFlight.remove(random.nextInt(inFlight.size()));
                p.acked(t);
                covered.merge(keyOf.get(t), t.seq(), Math::max);
            } else if (op < 96 && !inFlight.isEmpty()) {
                p.nacked(inFlight.remove(random.nextInt(inFlight.size())));
            } else {
                p.requeueInFlight();
                inFlight.clear();
            }
            long oldest = Long.MAX_VALUE;
            for (Map.Entry<String, List<long[]>> e : writes.entrySet()) {
                long upTo = covered.getOrDefault(e.getKey(), 0L);
                for (long[] w : e.getValue()) {
                    if (w[0] > upTo) {
                        oldest = Math.min(oldest, w[1]);
                        break;
                    }
                }
            }
            long expected = oldest == Long.MAX_VALUE ? 0 : TimeUnit.NANOSECONDS.toMillis(clock.get() - oldest);
            assertThat(p.oldestAgeMillis()).as("seed %d step %d", seed, step).isEqualTo(expected);
        }
    }
}
