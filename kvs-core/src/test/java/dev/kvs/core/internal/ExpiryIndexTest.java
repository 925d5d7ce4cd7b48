package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class ExpiryIndexTest {
    private final ExpiryIndex index = new ExpiryIndex();

    private static byte[] b(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private List<String> due(long now, int max) {
        return index.due(now, max).stream()
                .map(k -> new String(k, StandardCharsets.UTF_8))
                .toList();
    }

    @Test
    void listsOnlyWhatHasExpiredBucketByBucketAndForgetsRemovedEntries() {
        index.add(b("a"), 5_000);
        index.add(b("b"), 5_001); // the same bucket as a
        index.add(b("c"), 1_000);
        index.add(b("none"), 0); // no expiry: not indexed
        assertThat(index.size()).isEqualTo(3);
        assertThat(due(1_000, 10)).isEmpty();
        assertThat(due(1_001, 10)).containsExactly("c");
        assertThat(due(5_001, 10)).containsExactly("c", "a");
        assertThat(due(9_000, 10)).containsExactly("c", "a", "b").hasSize(3);
        assertThat(due(9_000, 2)).hasSize(2);

        index.remove(b("a"), 5_000);
        index.remove(b("a"), 5_000); // twice: no change
        index.remove(b("b"), 4_000); // another expiry than its entry's: no change
        assertThat(index.size()).isEqualTo(2);
        assertThat(due(9_000, 10)).containsExactly("c", "b");
        index.remove(b("b"), 5_001);
        index.remove(b("c"), 1_000);
        assertThat(index.size()).isZero();
        assertThat(due(Long.MAX_VALUE, 10)).isEmpty();
    }

    @Test
    void aPartlyPastBucketIsReadOnceForSeveralBatchesAndNoKeyComesTwice() {
        for (int i = 0; i < 5; i++) index.add(b("t" + i), 5_000 + i); // one bucket, 5120 ms not reached
        index.add(b("later"), 5_100);
        long now = 5_010;
        List<String> seen = new ArrayList<>();
        for (int batch : new int[] {2, 2, 1, 0}) {
            List<String> due = due(now, 2);
            assertThat(due).as("batch after %s", seen).hasSize(batch);
            assertThat(seen).as("handed out again").doesNotContainAnyElementsOf(due.isEmpty() ? List.of("-") : due);
            for (String k : due) index.remove(b(k), 5_000 + Integer.parseInt(k.substring(1)));
            seen.addAll(due);
        }
        assertThat(seen).containsExactlyInAnyOrder("t0", "t1", "t2", "t3", "t4");
        assertThat(due(5_101, 2)).containsExactly("later");
    }

    @Test
    void aKeyTakenOutWhileItsBatchWaitedIsNotHandedOut() {
        for (int i = 0; i < 4; i++) index.add(b("t" + i), 5_000 + i);
        List<String> first = due(5_010, 1); // the other three wait, read once
        index.remove(b(first.get(0)), 5_000 + Integer.parseInt(first.get(0).substring(1)));
        for (int i = 0; i < 4; i++) index.remove(b("t" + i), 5_000 + i); // a writer rewrote them all
        index.add(b("t3"), 5_003); // and one again, with the same expiry

        assertThat(due(5_010, 10)).containsExactly("t3");
    }

    @Test
    void concurrentAddsAndRemovesLeaveExactlyTheLastEntries() throws Exception {
        long seed = new Random().nextLong();
        System.out.println("ExpiryIndexTest seed " + seed);
        int threads = 4, keys = 2_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<long[]>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                done.add(pool.submit(() -> {
                    // each thread owns its keys, as a stripe makes writers of one key take turns
                    Random r = new Random(seed + thread);
                    long[] last = new long[keys];
                    for (int i = 0; i < 20_000; i++) {
                        int k = r.nextInt(keys);
                        byte[] key = b(thread + ":" + k);
                        if (last[k] != 0) index.remove(key, last[k]);
                        last[k] = r.nextInt(4) == 0 ? 0 : 1 + r.nextInt(10_000);
                        index.add(key, last[k]);
                    }
                    return last;
                }));
            }
            long expected = 0;
            for (Future<long[]> f : done) {
                for (long at : f.get()) if (at != 0) expected++;
            }
            assertThat(index.size()).isEqualTo(expected);
            assertThat(index.due(Long.MAX_VALUE, Integer.MAX_VALUE)).hasSize((int) expected);
        } finally {
            pool.shutdownNow();
        }
    }
}
