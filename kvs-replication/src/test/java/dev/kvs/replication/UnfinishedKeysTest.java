package dev.kvs.replication;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.TxId;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class UnfinishedKeysTest {
    private final AtomicLong clock = new AtomicLong(1_000);
    private final UnfinishedKeys queue = new UnfinishedKeys(3, clock::get);

    @Test
    void aNewQueueIsEmpty() {
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.size()).isZero();
        assertThat(queue.contains(bytes("a"))).isFalse();
        assertThat(queue.newest(bytes("a"))).isNull();
        assertThat(queue.oldestAgeMillis()).isZero();
        assertThat(queue.snapshot()).isEmpty();
    }

    @Test
    void addPutsTheKeyInTheQueueWithWhatTheKeyPacketAnnounced() {
        assertThat(queue.add(bytes("a"), tx(5), 10, 0xabc)).isTrue();

        assertThat(queue.isEmpty()).isFalse();
        assertThat(queue.size()).isEqualTo(1);
        assertThat(queue.contains(bytes("a"))).isTrue();
        assertThat(queue.newest(bytes("a"))).isEqualTo(new UnfinishedKeys.Pending(bytes("a"), tx(5), 10, 0xabc, 1_000));
    }

    @Test
    void addingTheSameTxIdTwiceKeepsOneEntry() {
        queue.add(bytes("a"), tx(5), 10, 1);
        assertThat(queue.add(bytes("a"), tx(5), 10, 1)).isFalse();
        assertThat(queue.entries(bytes("a"))).hasSize(1);
        assertThat(queue.entryCount()).isEqualTo(1);
    }

    @Test
    void entriesOfAKeyAreOrderedByTxIdWhateverTheOrderTheyArrive() {
        queue.add(bytes("a"), tx(9), 1, 1);
        queue.add(bytes("a"), tx(5), 1, 1);
        queue.add(bytes("a"), TxId.of(2, 1), 1, 1);
        queue.add(bytes("a"), tx(7), 1, 1);

        assertThat(queue.entries(bytes("a")))
                .extracting(UnfinishedKeys.Pending::txId)
                .containsExactly(tx(5), tx(7), tx(9), TxId.of(2, 1));
        assertThat(queue.newest(bytes("a")).txId()).isEqualTo(TxId.of(2, 1));
        assertThat(queue.size()).isEqualTo(1);
    }

    @Test
    void resolveRemovesEveryEntryUpToTheTxIdAndTheKeyWhenNoneIsLeft() {
        queue.add(bytes("a"), tx(5), 1, 1);
        queue.add(bytes("a"), tx(9), 1, 1);

        assertThat(queue.resolve(bytes("a"), tx(4))).isZero();
        assertThat(queue.resolve(bytes("a"), tx(7))).isEqualTo(1);
        assertThat(queue.entries(bytes("a")))
                .extracting(UnfinishedKeys.Pending::txId)
                .containsExactly(tx(9));
        assertThat(queue.contains(bytes("a"))).isTrue();

        assertThat(queue.resolve(bytes("a"), tx(9))).isEqualTo(1);
        assertThat(queue.contains(bytes("a"))).isFalse();
        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.entryCount()).isZero();
    }

    @Test
    void resolveOfAnUnknownKeyDoesNothing() {
        queue.add(bytes("a"), tx(5), 1, 1);
        assertThat(queue.resolve(bytes("b"), tx(100))).isZero();
        assertThat(queue.size()).isEqualTo(1);
    }

    @Test
    void snapshotListsEveryEntryOldestArrivalFirst() {
        queue.add(bytes("b"), tx(2), 1, 1);
        clock.addAndGet(10);
        queue.add(bytes("a"), tx(1), 1, 1);
        clock.addAndGet(10);
        queue.add(bytes("b"), tx(3), 1, 1);

        assertThat(queue.snapshot())
                .extracting(p -> new String(p.key()) + "@" + p.txId() + "@" + p.sinceMillis())
                .containsExactly("b@1:2@1000", "a@1:1@1010", "b@1:3@1020");
    }

    @Test
    void oldestAgeIsTheAgeOfTheOldestEntryStillQueued() {
        queue.add(bytes("a"), tx(1), 1, 1);
        clock.addAndGet(100);
        queue.add(bytes("b"), tx(2), 1, 1);
        clock.addAndGet(50);

        assertThat(queue.oldestAgeMillis()).isEqualTo(150);
        queue.resolve(bytes("a"), tx(1));
        assertThat(queue.oldestAgeMillis()).isEqualTo(50);
        queue.resolve(bytes("b"), tx(2));
        assertThat(queue.oldestAgeMillis()).isZero();
    }

    @Test
    void whenResolvedCompletesWhenTheKeyLeavesTheQueueNotBefore() {
        queue.add(bytes("a"), tx(5), 1, 1);
        queue.add(bytes("a"), tx(9), 1, 1);
        CompletableFuture<Void> resolved = queue.whenResolved(bytes("a"));

        queue.resolve(bytes("a"), tx(5));
        assertThat(resolved).isNotDone();
        queue.add(bytes("a"), tx(12), 1, 1); // a newer write keeps it unfinished
        queue.resolve(bytes("a"), tx(9));
        assertThat(resolved).isNotDone();

        queue.resolve(bytes("a"), tx(12));
        assertThat(resolved).isCompleted();
    }

    @Test
    void whenResolvedOfAKeyNotInTheQueueIsAlreadyComplete() {
        assertThat(queue.whenResolved(bytes("a"))).isCompleted();
    }

    @Test
    void clearEmptiesTheQueueAndCompletesEveryWaiter() {
        queue.add(bytes("a"), tx(1), 1, 1);
        queue.add(bytes("b"), tx(2), 1, 1);
        CompletableFuture<Void> a = queue.whenResolved(bytes("a"));

        queue.clear();

        assertThat(queue.isEmpty()).isTrue();
        assertThat(queue.snapshot()).isEmpty();
        assertThat(queue.oldestAgeMillis()).isZero();
        assertThat(a).isCompleted();
    }

    @Test
    void theBoundSaysFullButNeverRefusesAndWhenNotFullCompletesOnceDrained() {
        queue.add(bytes("a"), tx(1), 1, 1);
        queue.add(bytes("b"), tx(2), 1, 1);
        assertThat(queue.isFull()).isFalse();
        assertThat(queue.whenNotFull()).isCompleted();

        queue.add(bytes("c"), tx(3), 1, 1);
        assertThat(queue.add(bytes("d"), tx(4), 1, 1)).isTrue();
        assertThat(queue.isFull()).isTrue();
        CompletableFuture<Void> notFull = queue.whenNotFull();
        assertThat(notFull).isNotDone();

        queue.resolve(bytes("a"), tx(1));
        assertThat(notFull).isNotDone(); // 3 keys: still at the bound
        queue.resolve(bytes("b"), tx(2));
        assertThat(notFull).isCompleted();
        assertThat(queue.isFull()).isFalse();
    }

    @Test
    void aBoundBelowOneIsRejected() {
        assertThatThrownBy(() -> new UnfinishedKeys(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxKeys <= 0: 0");
    }

    @Test
    void concurrentAddsAndResolvesLeaveTheQueueEmptyAndConsistent() throws Exception {
        long seed = Long.getLong("kvs.seed", System.nanoTime());
        System.out.println("UnfinishedKeysTest seed " + seed + " (replay with -Dkvs.seed=" + seed + ")");
        UnfinishedKeys q = new UnfinishedKeys(1_000_000);
        int threads = 4;
        int perThread = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch start = new CountDownLatch(1);
        try {
            List<Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                Random random = new Random(seed + t);
                done.add(pool.submit(() -> {
                    start.await();
                    for (int i = 1; i <= perThread; i++) {
                        byte[] key = bytes("k" + random.nextInt(50));
                        TxId id = TxId.of(1, i);
                        q.add(key, id, 1, 1);
                        if (random.nextBoolean()) q.resolve(key, id);
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> f : done) f.get(30, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(q.size())
                .isEqualTo(q.snapshot().stream()
                        .map(p -> new String(p.key()))
                        .distinct()
                        .count());
        for (int k = 0; k < 50; k++) q.resolve(bytes("k" + k), TxId.of(1, perThread));
        assertThat(q.isEmpty()).isTrue();
        assertThat(q.snapshot()).isEmpty();
    }

    private static byte[] bytes(String s) {
        return s.getBytes(UTF_8);
    }

    private static TxId tx(long seq) {
        return TxId.of(1, seq);
    }
}
