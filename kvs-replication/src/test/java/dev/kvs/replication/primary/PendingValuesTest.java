package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.TxId;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class PendingValuesTest {
    private final PendingValues pending = new PendingValues(3, 1000);

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aUnitsValueIsTrackedButNotShippedUntilItsUnitIsReleased() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10); // queued before the unit wrote the key again
        pending.addHeld(key("a"), TxId.of(1, 2), 10);
        pending.addHeld(key("b"), TxId.of(1, 3), 10);
        CompletableFuture<Void> applied = pending.whenApplied(key("b"), TxId.of(1, 3));

        assertThat(pending.count()).isEqualTo(2);
        assertThat(pending.heldCount()).isEqualTo(2);
        assertThat(pending.poll(0)).isNull();
        assertThat(pending.pollSmall(100)).isNull();
        pending.requeue(key("a")); // a put-back does not ship it either
        assertThat(pending.poll(0)).isNull();

        pending.release(key("a"));
        pending.release(key("b"));
        assertThat(pending.heldCount()).isZero();
        assertThat(pending.poll(0)).isEqualTo(key("a"));
        assertThat(pending.poll(0)).isEqualTo(key("b"));
        assertThat(pending.newest(key("a"))).isEqualTo(TxId.of(1, 2));
        pending.shipped(key("b"), TxId.of(1, 3));
        pending.acked(TxId.of(1, 3));
        assertThat(applied).isDone();
    }

    @Test
    void aKeyWrittenTwiceBeforeShippingIsQueuedOnceAndCountsAsConflated() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10);
        pending.add(key("a"), TxId.of(1, 5), 20);
        assertThat(pending.conflated()).isEqualTo(1);
        assertThat(pending.count()).isEqualTo(1);
        assertThat(pending.bytes()).isEqualTo(20);
        assertThat(pending.poll(0)).isEqualTo(key("a"));
        assertThat(pending.poll(0)).isNull();
        assertThat(pending.newest(key("a"))).isEqualTo(TxId.of(1, 5));
    }

    @Test
    void theAckOfTheNewestValueResolvesTheKeyAndItsOlderWaiters() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10);
        CompletableFuture<Void> older = pending.whenApplied(key("a"), TxId.of(1, 1));
        pending.add(key("a"), TxId.of(1, 2), 10);
        CompletableFuture<Void> newer = pending.whenApplied(key("a"), TxId.of(1, 2));
        pending.poll(0);
        pending.shipped(key("a"), TxId.of(1, 2));
        pending.acked(TxId.of(1, 2));
        assertThat(older).isDone();
        assertThat(newer).isDone();
        assertThat(pending.count()).isZero();
        assertThat(pending.bytes()).isZero();
    }

    @Test
    void aValueThatNeverLeftIsNoLongerInFlightAndStaysPendingUntilItsKeyIsPutBack() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10);
        pending.poll(0);
        pending.shipped(key("a"), TxId.of(1, 1));

        pending.unsent(TxId.of(1, 1));

        assertThat(pending.inFlight()).isZero();
        assertThat(pending.count()).isEqualTo(1);
        pending.requeueInFlight(); // a stream's drop does not ship it: the shipper puts it back, after a back-off
        assertThat(pending.hasQueued()).isFalse();
        pending.requeue(key("a"));
        assertThat(pending.poll(0)).isEqualTo(key("a"));
    }

    @Test
    void anAckOfAnOlderValueKeepsTheNewerOnePending() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10);
        pending.poll(0);
        pending.shipped(key("a"), TxId.of(1, 1));
        pending.add(key("a"), TxId.of(1, 2), 10); // written again after shipping: queued again
        CompletableFuture<Void> newer = pending.whenApplied(key("a"), TxId.of(1, 2));
        pending.acked(TxId.of(1, 1));
        assertThat(newer).isNotDone();
        assertThat(pending.count()).isEqualTo(1);
        assertThat(pending.poll(0)).isEqualTo(key("a"));
    }

    @Test
    void nacksAndDroppedStreamsShipAgain() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10);
        pending.add(key("b"), TxId.of(1, 2), 10);
        pending.poll(0);
        pending.poll(0);
        pending.shipped(key("a"), TxId.of(1, 1));
        pending.shipped(key("b"), TxId.of(1, 2));
        pending.nacked(TxId.of(1, 1));
        assertThat(pending.poll(0)).isEqualTo(key("a"));
        pending.requeueInFlight();
        assertThat(pending.poll(0)).isEqualTo(key("b"));
    }

    @Test
    void theBoundsMakeWritersWaitUntilAcksFreeRoom() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10);
        pending.add(key("b"), TxId.of(1, 2), 10);
        pending.add(key("c"), TxId.of(1, 3), 10);
        assertThat(pending.awaitRoom(1_000_000)).isFalse();
        pending.poll(0);
        pending.shipped(key("a"), TxId.of(1, 1));
        pending.acked(TxId.of(1, 1));
        assertThat(pending.awaitRoom(0)).isTrue();
        PendingValues small = new PendingValues(100, 15);
        small.add(key("x"), TxId.of(1, 1), 16);
        assertThat(small.awaitRoom(0)).isFalse();
    }

    @Test
    void aWriterWaitingForRoomIsWokenByTheAckThatFreesIt() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10);
        pending.add(key("b"), TxId.of(1, 2), 10);
        pending.add(key("c"), TxId.of(1, 3), 10);
        pending.poll(0);
        pending.shipped(key("a"), TxId.of(1, 1));
        // a minute's wait: only the ack's wake-up ends it within the test's time
        CompletableFuture<Boolean> room = CompletableFuture.supplyAsync(() -> {
            try {
                return pending.awaitRoom(TimeUnit.MINUTES.toNanos(1));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        // acked only once the writer waits (else its first look would find room, and no wake-up be needed)
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(pending::roomWaiters, n -> n == 1);
        pending.acked(TxId.of(1, 1));

        assertThat(room.get(10, TimeUnit.SECONDS)).isTrue();
        assertThat(pending.roomWaiters()).isZero();
    }

    @Test
    void writesWaitingForTheirValueFailAtOnceWhenReplicationStops() {
        pending.add(key("a"), TxId.of(1, 1), 10);
        CompletableFuture<Void> waiting = pending.whenApplied(key("a"), TxId.of(1, 1));

        pending.failAll(new IllegalStateException("demoted"));

        assertThat(waiting).isCompletedExceptionally();
    }

    @Test
    void pollSmallTakesTheHeadOnlyIfItsValueIsSmallAndLeavesItQueuedOtherwise() {
        pending.addQuietly(key("big"), TxId.of(1, 1), 500);
        pending.addQuietly(key("small"), TxId.of(1, 2), 10);
        assertThat(pending.pollSmall(100)).isNull(); // the head is large: not skipped, not taken
        assertThat(pending.hasQueued()).isTrue();
        assertThat(pending.pollSmall(500)).isEqualTo(key("big"));
        assertThat(pending.pollSmall(100)).isEqualTo(key("small"));
        assertThat(pending.pollSmall(100)).isNull();
        assertThat(pending.hasQueued()).isFalse();
        // taken off the queue, still pending: written again, it is queued again
        pending.addQuietly(key("small"), TxId.of(1, 3), 10);
        assertThat(pending.pollSmall(100)).isEqualTo(key("small"));
    }

    @Test
    void awaitWorkReturnsForAQueuedKeyOrASignalEvenOneSentBeforeItWaits() throws Exception {
        long minute = TimeUnit.MINUTES.toNanos(1);
        pending.signal(); // before the wait: not lost
        long t0 = System.nanoTime();
        pending.awaitWork(minute);
        pending.addQuietly(key("a"), TxId.of(1, 1), 10); // quietly: no notify, but the queue is not empty
        pending.awaitWork(minute);
        assertThat(System.nanoTime() - t0).isLessThan(TimeUnit.SECONDS.toNanos(30));
        pending.poll(0);
        // nothing queued and the signal consumed: it waits out its timeout
        long t1 = System.nanoTime();
        pending.awaitWork(TimeUnit.MILLISECONDS.toNanos(50));
        assertThat(System.nanoTime() - t1).isGreaterThanOrEqualTo(TimeUnit.MILLISECONDS.toNanos(50));
        // a signal from another thread wakes a waiter
        CompletableFuture<Void> waiting = CompletableFuture.runAsync(() -> {
            try {
                pending.awaitWork(minute);
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> {
            pending.signal();
            return waiting.isDone();
        });
        assertThat(waiting).isCompleted();
    }

    @Test
    void aKeyIsAwaitedWhileAWriteWaitsForItsValue() throws Exception {
        pending.add(key("a"), TxId.of(1, 1), 10);
        assertThat(pending.awaited(key("a"))).isFalse(); // id-first and async writes do not wait for values
        CompletableFuture<Void> sync = pending.whenApplied(key("a"), TxId.of(1, 1));
        assertThat(pending.awaited(key("a"))).isTrue();
        assertThat(pending.awaited(key("b"))).isFalse();
        pending.shipped(key("a"), TxId.of(1, 1));
        pending.acked(TxId.of(1, 1));
        assertThat(sync).isDone();
        assertThat(pending.awaited(key("a"))).isFalse();
        // a sync write's value is queued and awaited at once: the shipper never sees one without the other
        CompletableFuture<Void> atOnce = pending.addAwaited(key("c"), TxId.of(1, 3), 10);
        assertThat(pending.awaited(key("c"))).isTrue();
        pending.shipped(key("c"), TxId.of(1, 3));
        pending.acked(TxId.of(1, 3));
        assertThat(atOnce).isDone();
    }

    @Test
    void valuesArrivingLessThanALingerApartAreToldFromSparseOnes() {
        AtomicLong clock = new AtomicLong(-5_000_000_000L);
        PendingValues timed = new PendingValues(100, 1 << 20, clock::get);
        long ms = 1_000_000;
        assertThat(timed.arrivingWithin(ms)).isFalse(); // nothing arrived

        timed.add(key("a"), TxId.of(1, 1), 10);
        assertThat(timed.arrivingWithin(ms)).isFalse(); // one value: no gap known

        clock.addAndGet(100_000);
        timed.add(key("b"), TxId.of(1, 2), 10);
        assertThat(timed.arrivingWithin(ms)).isTrue(); // 100 us apart, the last just now
        assertThat(timed.arrivingWithin(50_000)).isFalse();

        clock.addAndGet(2 * ms);
        assertThat(timed.arrivingWithin(ms)).isFalse(); // none for 2 ms: no more are coming

        timed.add(key("a"), TxId.of(1, 3), 10); // a rewrite is an arrival too
        assertThat(timed.arrivingWithin(ms)).isFalse(); // 2 ms after the one before
        assertThat(timed.arrivingWithin(3 * ms)).isTrue();
    }
}
