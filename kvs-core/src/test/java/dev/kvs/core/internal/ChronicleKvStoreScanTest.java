package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The cursor scan and random key of the Chronicle store: what SCAN and RANDOMKEY stand on. */
class ChronicleKvStoreScanTest {
    private KvStore store;

    @BeforeEach
    void open() {
        store = Stores.open(StoreConfig.builder()
                .maxEntries(200_000)
                .maxBytes(64 << 20)
                .maxKeyBytes(1024)
                .build());
    }

    @AfterEach
    void close() {
        store.close();
    }

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static StoredValue value(long seq) {
        return StoredValue.complete(TxId.of(1, seq), key("v" + seq));
    }

    /** Runs a full scan, {@code count} per step; returns each key's visits and the steps taken. */
    private static Map<ByteKey, Integer> fullScan(KvStore s, int count, long[] steps) {
        Map<ByteKey, Integer> seen = new HashMap<>();
        long cursor = 0;
        do {
            cursor = s.scan(cursor, count, (k, h) -> seen.merge(new ByteKey(k), 1, Integer::sum));
            steps[0]++;
        } while (cursor != 0);
        return seen;
    }

    @Test
    void anEmptyStoreEndsAtOnce() {
        long[] steps = {0};
        assertThat(fullScan(store, 10, steps)).isEmpty();
        assertThat(store.randomKey(new SplittableRandom(1))).isNull();
    }

    @Test
    void visitsEveryKeyOnceWithShortAndLongKeysAndSkipsTombstones() {
        Set<ByteKey> expected = new HashSet<>();
        for (int i = 0; i < 5000; i++) {
            byte[] k = key("k" + i);
            store.put(k, value(i + 1));
            expected.add(new ByteKey(k));
        }
        byte[] longKey = key("L".repeat(600)); // lives in the long-key map
        store.put(longKey, value(9000));
        expected.add(new ByteKey(longKey));
        store.put(key("gone"), StoredValue.tombstone(TxId.of(1, 9001)));
        store.put(key("waiting"), StoredValue.unfinished(TxId.of(1, 9002), 0, 10));
        expected.add(new ByteKey(key("waiting")));

        long[] steps = {0};
        Map<ByteKey, Integer> seen = fullScan(store, 10, steps);
        assertThat(seen.keySet()).isEqualTo(expected);
        assertThat(seen.values()).allMatch(n -> n == 1);
        assertThat(steps[0]).as("several steps with COUNT 10").isGreaterThan(1);

        long[] oneStep = {0};
        assertThat(fullScan(store, Integer.MAX_VALUE, oneStep)).hasSize(expected.size());
        assertThat(oneStep[0]).isEqualTo(1);
    }

    @Test
    void reportsTheHeaderOfUnfinishedKeys() {
        store.put(key("waiting"), StoredValue.unfinished(TxId.of(2, 5), 0, 10));
        Map<ByteKey, RecordHeader> headers = new HashMap<>();
        long cursor = 0;
        do {
            cursor = store.scan(cursor, 100, (k, h) -> headers.put(new ByteKey(k), h));
        } while (cursor != 0);
        assertThat(headers.get(new ByteKey(key("waiting"))).state()).isEqualTo(RecordState.UNFINISHED);
    }

    @Test
    void aCursorPastTheEndEndsTheScan() {
        store.put(key("a"), value(1));
        assertThat(store.scan(1L << 40, 10, (k, h) -> {})).isZero();
        assertThat(store.scan(-5, 10, (k, h) -> {})).isZero();
    }

    @Test
    void randomKeyReturnsHeldKeysAndEventuallyEach() {
        for (int i = 0; i < 8; i++) store.put(key("k" + i), value(i + 1));
        store.put(key("gone"), StoredValue.tombstone(TxId.of(1, 99)));
        SplittableRandom random = new SplittableRandom(42);
        Set<String> picked = new HashSet<>();
        for (int i = 0; i < 500; i++) {
            picked.add(new String(store.randomKey(random), StandardCharsets.UTF_8));
        }
        assertThat(picked).containsExactlyInAnyOrder("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7");
    }

    @Test
    void randomKeySkipsTombstonesAndIsNullWithOnlyTombstones() {
        for (int i = 0; i < 50; i++) store.put(key("gone" + i), StoredValue.tombstone(TxId.of(1, i + 1)));
        SplittableRandom random = new SplittableRandom(7);
        assertThat(store.randomKey(random)).isNull();
        store.put(key("only"), value(100));
        for (int i = 0; i < 100; i++) assertThat(store.randomKey(random)).isEqualTo(key("only"));
    }

    /**
     * Redis's guarantee under concurrent writes: keys present for the whole scan are returned (here:
     * exactly once, as each segment is read once), keys written or deleted during it at most once,
     * and nothing that was never a key.
     */
    @Test
    void aFullScanUnderConcurrentWritesAndDeletesReturnsEveryStableKeyOnce() throws Exception {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println("aFullScanUnderConcurrentWritesAndDeletesReturnsEveryStableKeyOnce seed " + seed);
        Random random = new Random(seed);
        int stable = 10_000;
        Set<ByteKey> stableKeys = new HashSet<>();
        for (int i = 0; i < stable; i++) {
            byte[] k = key("stable:" + i);
            store.put(k, value(i + 1));
            stableKeys.add(new ByteKey(k));
        }
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong seq = new AtomicLong(1_000_000);
        AtomicLong churned = new AtomicLong();
        ExecutorService writers = Executors.newFixedThreadPool(1);
        try {
            Future<?>[] running = new Future<?>[1];
            for (int w = 0; w < 1; w++) {
                long writerSeed = random.nextLong();
                running[w] = writers.submit(() -> {
                    Random r = new Random(writerSeed);
                    while (!stop.get()) {
                        int op = r.nextInt(4);
                        byte[] churn = key("churn:" + r.nextInt(5000));
                        switch (op) {
                            case 0 -> store.put(churn, value(seq.incrementAndGet()));
                            case 1 -> store.delete(churn);
                            case 2 -> store.put(churn, StoredValue.tombstone(TxId.of(1, seq.incrementAndGet())));
                            default -> // rewrite a stable key: it stays present
                                store.put(key("stable:" + r.nextInt(stable)), value(seq.incrementAndGet()));
                        }
                        churned.incrementAndGet();
                    }
                    return null;
                });
            }
            for (int round = 0; round < 3; round++) {
                int count = 1 + random.nextInt(200);
                long[] steps = {0};
                long started = System.nanoTime();
                Map<ByteKey, Integer> seen = fullScan(store, count, steps);
                Set<ByteKey> missed = new HashSet<>(stableKeys);
                missed.removeAll(seen.keySet());
                System.out.println("scan " + round + ": count " + count + ", " + steps[0] + " steps, " + seen.size()
                        + " keys, " + (System.nanoTime() - started) / 1_000_000 + " ms");
                assertThat(missed)
                        .as("stable keys missed (seed %d, count %d)", seed, count)
                        .isEmpty();
                assertThat(seen.values()).as("no key twice (seed %d)", seed).allMatch(n -> n == 1);
                assertThat(seen.keySet())
                        .as("only stable or churn keys")
                        .allMatch(k -> stableKeys.contains(k)
                                || new String(k.bytes(), StandardCharsets.UTF_8).startsWith("churn:"));
            }
            stop.set(true);
            for (Future<?> f : running) f.get(30, TimeUnit.SECONDS);
            assertThat(churned.get()).as("writers ran during the scans").isPositive();
        } finally {
            stop.set(true);
            writers.shutdownNow();
        }
    }
}
