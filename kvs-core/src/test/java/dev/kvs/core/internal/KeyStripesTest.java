package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.junit.jupiter.api.Test;

class KeyStripesTest {
    private final KeyStripes stripes = new KeyStripes();

    @Test
    void aKeyAlwaysMapsToTheSameStripeInRange() {
        byte[] key = "key".getBytes();
        assertThat(KeyStripes.stripe(key)).isEqualTo(KeyStripes.stripe("key".getBytes()));
        assertThat(KeyStripes.stripe(new byte[0])).isBetween(0, KeyStripes.STRIPES - 1);
        for (int i = 0; i < 1000; i++) {
            assertThat(KeyStripes.stripe(("k" + i).getBytes())).isBetween(0, KeyStripes.STRIPES - 1);
        }
    }

    @Test
    void batchesLockEachStripeOnceInAscendingOrder() {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 50; i++) keys.add(("k" + i % 20).getBytes());
        int[] locked = stripes.lock(keys);
        try {
            assertThat(locked).isSorted().doesNotHaveDuplicates();
            assertThat(locked.length).isLessThanOrEqualTo(20);
            ReentrantLock one = stripes.lock("k3".getBytes()); // reentrant for the same thread
            assertThat(one.getHoldCount()).isEqualTo(2);
            one.unlock();
        } finally {
            stripes.unlock(locked);
        }
        ReentrantLock one = stripes.lock("k3".getBytes());
        assertThat(one.getHoldCount()).isEqualTo(1);
        one.unlock();
    }

    /**
     * A stripe's count is odd from its first taking to its last letting go (re-entrant takings included),
     * and a count read before any taking no longer validates after it; a count read while nobody held the
     * stripe validates until someone takes it.
     */
    @Test
    void aStripesCountIsOddWhileHeldAndMovesOnWithEachHold() {
        byte[] key = "hot".getBytes();
        long before = stripes.version(key);
        assertThat(before % 2).isZero();
        assertThat(stripes.validate(key, before)).isTrue();

        ReentrantLock held = stripes.lock(key);
        long during = stripes.version(key);
        assertThat(during % 2).isOne();
        assertThat(stripes.validate(key, during)).as("odd: a writer at work").isFalse();
        ReentrantLock again = stripes.lock(key);
        again.unlock();
        assertThat(stripes.version(key)).as("re-entered and left: still held").isEqualTo(during);
        held.unlock();

        long after = stripes.version(key);
        assertThat(after % 2).isZero();
        assertThat(after).isGreaterThan(before);
        assertThat(stripes.validate(key, before)).isFalse();
        assertThat(stripes.validate(key, after)).isTrue();

        int[] batch = stripes.lock(List.of(key, "other".getBytes()));
        assertThat(stripes.version(key) % 2).as("taken by a batch").isOne();
        stripes.unlock(batch);
        assertThat(stripes.validate(key, after)).isFalse();
    }

    @Test
    void aWriterThatSpunInVainParksAndTakesTheStripeOnceItIsFreed() throws Exception {
        byte[] key = "hot".getBytes();
        ReentrantLock held = stripes.lock(key);
        CompletableFuture<Integer> waiter = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            ReentrantLock lock = stripes.lock(key);
            try {
                waiter.complete(lock.getHoldCount());
            } finally {
                lock.unlock();
            }
        });
        t.start();
        try {
            // past its spins it waits in the lock's queue (parked), not spinning on
            await().atMost(10, TimeUnit.SECONDS).until(() -> held.hasQueuedThread(t));
            assertThat(waiter).isNotDone();
        } finally {
            held.unlock();
        }
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        t.join(10_000);
        assertThat(held.isLocked()).isFalse();
    }

    @Test
    void overlappingBatchesInAnyOrderDoNotDeadlock() throws Exception {
        long seed = System.nanoTime();
        System.out.println("overlappingBatchesInAnyOrderDoNotDeadlock seed " + seed);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                Random r = new Random(seed + t);
                futures.add(pool.submit(() -> {
                    for (int n = 0; n < 2000; n++) {
                        List<byte[]> keys = new ArrayList<>();
                        for (int i = 0; i < 8; i++) keys.add(("k" + r.nextInt(64)).getBytes());
                        Collections.shuffle(keys, r);
                        int[] locked = n % 100 == 0 ? stripes.lockAll() : stripes.lock(keys);
                        stripes.unlock(locked);
                    }
                    return null;
                }));
            }
            for (Future<?> f : futures) f.get(60, TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
    }
}
