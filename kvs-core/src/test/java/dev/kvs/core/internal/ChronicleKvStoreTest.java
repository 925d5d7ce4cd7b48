package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.KvStore;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.core.Write;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** The contract on the in-memory Chronicle store, plus how it handles value chunks. */
class ChronicleKvStoreTest extends KvStoreContractTest {
    @Override
    KvStore open(StoreConfig.Builder config) {
        return Stores.open(config.build());
    }

    private static long chunks(KvStore s) {
        return ((ChronicleKvStore) s).chunkCount();
    }

    @Override
    void checkInternals(KvStore s) {
        long[] expected = {0};
        s.forEach((k, v) -> {
            if (v.value().length > RecordMaps.INLINE_MAX)
                expected[0] += ValueChunks.chunkCount(v.value().length, ValueChunks.CHUNK_BYTES);
        });
        assertThat(chunks(s)).as("chunks held vs chunks of stored values").isEqualTo(expected[0]);
    }

    @Test
    void aPrefetchReadsTheEntriesOfStoredShortKeysAndSkipsTheRest() {
        store.put(key("a"), complete(1, "1"));
        store.put(key("bb"), complete(2, "2"));
        byte[] longKey = new byte[RecordMaps.SHORT_KEY_MAX + 1];
        store.put(longKey, complete(3, "3"));
        // the first byte of each entry found is its key's size (keys of 1 and 2 bytes); absent keys and
        // keys of the long-key map add nothing
        assertThat(store.prefetch(new byte[][] {key("a"), key("bb"), key("absent"), longKey}, 4))
                .isEqualTo(3);
        assertThat(store.get(key("bb")).value()).isEqualTo("2".getBytes());
    }

    @Test
    void isOffHeapAndNotPersistent() {
        assertThat(store.stats().offHeapBytes()).isPositive();
        assertThat(store.stats().persistent()).isFalse();
        assertThat(store).isInstanceOf(ChronicleKvStore.class);
    }

    @Test
    void aStoreFullOfKeysWithATtlHoldsMaxEntriesAndRefusesTheNextByItsOwnCount() {
        int n = 20_000;
        try (KvStore s = open(StoreConfig.builder().maxEntries(n).maxBytes(64L << 20))) {
            // the largest record a key with a TTL makes inline: a full-length short key, a full inline value
            byte[] value = new byte[INLINE];
            for (int i = 0; i < n; i++) {
                byte[] key = Arrays.copyOf(key("k" + i), RecordMaps.SHORT_KEY_MAX);
                s.put(key, StoredValue.complete(TxId.of(1, i + 1), i % 100 == 0 ? value : key, 1_000 + i));
            }
            assertThat(s.stats().entries()).isEqualTo(n);
            assertThat(s.keysWithExpiry()).isEqualTo(n);
            assertThatThrownBy(() -> s.put(key("one-more"), StoredValue.complete(TxId.of(2, 1), key("v"), 5)))
                    .isInstanceOf(StoreFullException.class);
            assertThat(s.get(Arrays.copyOf(key("k0"), RecordMaps.SHORT_KEY_MAX)).expireAtMillis())
                    .isEqualTo(1_000);
        }
    }

    @Test
    void aStageWritesItsChunksAsTheyComeAndHoldsItsRoomUntilClosed() {
        try (KvStore s = open(StoreConfig.builder().maxEntries(100).maxBytes(3L << 20))) {
            ValueStage first = s.stage(2 << 20);
            first.write(new byte[CHUNK + 10], 0, CHUNK + 10);
            assertThat(chunks(s))
                    .as("a whole chunk written, the next reserved for the rest")
                    .isEqualTo(2);
            assertThat(s.stats().valueBytes()).isEqualTo(2 << 20);
            assertThatThrownBy(() -> s.stage(2 << 20)).isInstanceOf(StoreFullException.class);
            assertThatThrownBy(() -> s.put(key("k"), StoredValue.complete(TxId.of(1, 1), new byte[2 << 20])))
                    .isInstanceOf(StoreFullException.class);
            first.close();
            assertThat(chunks(s)).isZero();
            assertThat(s.stats().valueBytes()).isZero();
            try (ValueStage second = s.stage(2 << 20)) {
                second.write(new byte[2 << 20], 0, 2 << 20);
                StoredValue v = StoredValue.complete(TxId.of(1, 2), new byte[2 << 20]);
                assertThat(s.putStaged(key("k"), second, h -> v.header())).isTrue();
            }
            assertThat(s.stats().valueBytes()).isEqualTo(2 << 20);
            assertThat(chunks(s)).isEqualTo(ValueChunks.chunkCount(2 << 20, ValueChunks.CHUNK_BYTES));
        }
    }

    @Test
    void aStageOpenedBeforeAClearCannotBeCommittedAndGivesBackNothingTwice() {
        ValueStage stage = store.stage(2 * CHUNK);
        stage.write(new byte[2 * CHUNK], 0, 2 * CHUNK);
        store.clear();
        StoredValue v = StoredValue.complete(TxId.of(1, 1), new byte[2 * CHUNK]);
        assertThatThrownBy(() -> store.putStaged(key("k"), stage, h -> v.header()))
                .isInstanceOf(StorageException.class);
        stage.close();
        assertThat(store.stats().valueBytes()).isZero();
        assertThat(store.get(key("k"))).isNull();
        store.put(key("k"), v);
        assertThat(store.stats().valueBytes()).isEqualTo(2 * CHUNK);
    }

    @Test
    void aStageOfAnotherStoreOrWithAWrongHeaderIsRefused() {
        try (KvStore other = open(defaultConfig());
                ValueStage stage = other.stage(2 * CHUNK)) {
            stage.write(new byte[2 * CHUNK], 0, 2 * CHUNK);
            StoredValue v = StoredValue.complete(TxId.of(1, 1), new byte[2 * CHUNK]);
            assertThatThrownBy(() -> store.putStaged(key("k"), stage, h -> v.header()))
                    .isInstanceOf(IllegalArgumentException.class);
            StoredValue shorter = StoredValue.complete(TxId.of(1, 1), new byte[CHUNK]);
            assertThatThrownBy(() -> other.putStaged(key("k"), stage, h -> shorter.header()))
                    .isInstanceOf(IllegalArgumentException.class);
            assertThat(other.putStaged(key("k"), stage, h -> v.header())).isTrue();
        }
    }

    @Test
    void closingAStageAfterItsStoreClosedIsQuiet() {
        KvStore s = open(defaultConfig());
        ValueStage stage = s.stage(2 * CHUNK);
        stage.write(new byte[CHUNK], 0, CHUNK);
        s.close();
        stage.close();
        assertThatThrownBy(() -> stage.write(new byte[1], 0, 1)).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void onlyValuesAboveTheInlineLimitUseChunks() {
        store.put(key("a"), StoredValue.complete(TxId.of(1, 1), new byte[INLINE]));
        assertThat(chunks(store)).isZero();
        store.put(key("b"), StoredValue.complete(TxId.of(1, 2), new byte[INLINE + 1]));
        assertThat(chunks(store)).isEqualTo(1);
        store.put(key("c"), StoredValue.complete(TxId.of(1, 3), new byte[2 * CHUNK + 1]));
        assertThat(chunks(store)).isEqualTo(4);
    }

    @Test
    void overwritingOrDeletingAChunkedValueFreesItsChunks() {
        store.put(key("a"), StoredValue.complete(TxId.of(1, 1), new byte[3 * CHUNK]));
        store.put(key("a"), StoredValue.complete(TxId.of(1, 2), new byte[CHUNK + 1]));
        assertThat(chunks(store)).isEqualTo(2);
        store.update(key("a"), h -> Write.put(StoredValue.tombstone(TxId.of(1, 3))));
        assertThat(chunks(store)).isZero();
        store.put(key("a"), StoredValue.complete(TxId.of(1, 4), new byte[CHUNK + 1]));
        store.delete(key("a"));
        assertThat(chunks(store)).isZero();
        store.put(key("b"), StoredValue.complete(TxId.of(1, 5), new byte[CHUNK + 1]));
        store.updateAll(List.of(key("b")), h -> List.of(Write.remove()));
        assertThat(chunks(store)).isZero();
    }

    @Test
    void aBatchThatDoesNotFitLeavesNoChunksBehind() {
        try (KvStore s = open(defaultConfig().maxBytes(300_000))) {
            StoredValue old = StoredValue.complete(TxId.of(1, 1), new byte[100_000]);
            s.put(key("a"), old);
            StoredValue big = StoredValue.complete(TxId.of(1, 2), new byte[150_000]);
            List<byte[]> keys = List.of(key("a"), key("b"));
            try {
                s.updateAll(keys, h -> List.of(Write.put(big), Write.put(big)));
            } catch (StoreFullException expected) {
                // nothing written
            }
            assertThat(s.get(key("a"))).isEqualTo(old);
            assertThat(chunks(s)).isEqualTo(ValueChunks.chunkCount(100_000, ValueChunks.CHUNK_BYTES));
        }
    }

    @Test
    void lockFreeReadersNeverSeeATornLargeValue() throws Exception {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println("lockFreeReadersNeverSeeATornLargeValue seed " + seed);
        Random random = new Random(seed);
        StoredValue[] versions = new StoredValue[4];
        for (int i = 0; i < versions.length; i++) {
            byte[] value = new byte[CHUNK * (1 + i) + random.nextInt(CHUNK)];
            Arrays.fill(value, (byte) i);
            versions[i] = StoredValue.complete(TxId.of(1, i), value);
        }
        store.put(key("big"), versions[0]);
        AtomicBoolean done = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<Integer> reader = pool.submit(() -> {
                int reads = 0;
                do {
                    StoredValue v = store.get(key("big"));
                    assertThat(v).isEqualTo(versions[(int) v.txId().seq()]);
                    reads++;
                } while (!done.get());
                return reads;
            });
            Future<?> writer = pool.submit(() -> {
                try {
                    for (int n = 0; n < 300; n++) store.put(key("big"), versions[random.nextInt(versions.length)]);
                } finally {
                    done.set(true);
                }
                return null;
            });
            writer.get(60, TimeUnit.SECONDS);
            assertThat(reader.get(60, TimeUnit.SECONDS)).isPositive();
        } finally {
            pool.shutdownNow();
        }
        assertThat(chunks(store))
                .isEqualTo(ValueChunks.chunkCount(store.header(key("big")).valueLength(), ValueChunks.CHUNK_BYTES));
    }
}
