package dev.kvs.core.internal;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueRead;
import dev.kvs.core.ValueSink;
import dev.kvs.core.ValueStage;
import dev.kvs.core.Write;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What every {@link KvStore} must do. Subclasses say how to open one; concurrency checks are in
 * {@link KvStoreConcurrencyContract}, run from here.
 */
abstract class KvStoreContractTest {
    static final int INLINE = RecordMaps.INLINE_MAX;
    static final int CHUNK = ValueChunks.CHUNK_BYTES;

    protected KvStore store;

    /** Opens a new, empty store with {@code config} (a persisted subclass adds a fresh dataDir). */
    abstract KvStore open(StoreConfig.Builder config);

    /** What {@link #store} is opened with: room for the 64 MiB value and then some. */
    static StoreConfig.Builder defaultConfig() {
        return StoreConfig.builder().maxEntries(10_000).maxBytes(160L << 20);
    }

    @BeforeEach
    void openStore() {
        store = open(defaultConfig());
    }

    @AfterEach
    void closeStore() {
        store.close();
    }

    static byte[] key(String s) {
        return s.getBytes(UTF_8);
    }

    static StoredValue complete(long seq, String value) {
        return StoredValue.complete(TxId.of(1, seq), value.getBytes(UTF_8));
    }

    static byte[] randomBytes(long seed, int length) {
        byte[] bytes = new byte[length];
        new Random(seed).nextBytes(bytes);
        return bytes;
    }

    static String text(byte[] key) {
        return new String(key, UTF_8);
    }

    @Test
    void recordsKeepTheirExpiryAndExpiredKeysListsThoseWhoseTimePassed() {
        byte[] big = randomBytes(11, 3 * CHUNK + 5);
        store.put(key("a"), StoredValue.complete(TxId.of(1, 1), key("va"), 1_000));
        store.put(key("b"), StoredValue.complete(TxId.of(1, 2), key("vb"), 500));
        store.put(key("c"), complete(3, "vc"));
        store.put(key("big"), StoredValue.complete(TxId.of(1, 4), big, 700));
        assertThat(store.get(key("a")).expireAtMillis()).isEqualTo(1_000);
        assertThat(store.header(key("big")).expireAtMillis()).isEqualTo(700);
        assertThat(store.get(key("big")).value()).isEqualTo(big);
        assertThat(store.get(key("c")).header().hasExpiry()).isFalse();

        // as in Redis, a key lives through its expiry millisecond
        assertThat(store.expiredKeys(500, 10)).isEmpty();
        assertThat(store.expiredKeys(501, 10))
                .extracting(KvStoreContractTest::text)
                .containsExactly("b");
        assertThat(store.expiredKeys(2_000, 10))
                .extracting(KvStoreContractTest::text)
                .containsExactlyInAnyOrder("a", "b", "big");
        assertThat(store.expiredKeys(2_000, 2)).hasSize(2);
        assertThat(store.keysWithExpiry()).isEqualTo(3);

        // replaced without expiry, deleted, removed by an update, replaced in a batch: no longer listed
        store.put(key("a"), complete(5, "va2"));
        store.delete(key("b"));
        store.update(key("big"), h -> Write.remove());
        store.updateAll(
                List.of(key("c"), key("d")),
                h -> List.of(
                        Write.put(StoredValue.complete(TxId.of(1, 6), key("vc"), 900)),
                        Write.put(StoredValue.complete(TxId.of(1, 7), key("vd"), 3_000))));
        assertThat(store.expiredKeys(2_000, 10))
                .extracting(KvStoreContractTest::text)
                .containsExactly("c");
        assertThat(store.size()).isEqualTo(3); // the store counts an expired record until it is removed
        assertThat(store.keysWithExpiry()).isEqualTo(2);
    }

    @Test
    void getOfAbsentKeyIsNull() {
        assertThat(store.get(key("nope"))).isNull();
        assertThat(store.header(key("nope"))).isNull();
        assertThat(store.exists(key("nope"))).isFalse();
    }

    @Test
    void putThenGetReturnsTheRecord() {
        store.put(key("a"), complete(1, "alpha"));
        assertThat(store.get(key("a"))).isEqualTo(complete(1, "alpha"));
        assertThat(store.exists(key("a"))).isTrue();
    }

    @Test
    void putReplacesTheRecord() {
        store.put(key("a"), complete(1, "alpha"));
        store.put(key("a"), complete(2, "beta"));
        assertThat(store.get(key("a"))).isEqualTo(complete(2, "beta"));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void deleteRemovesAndSaysWhetherThereWasARecord() {
        store.put(key("a"), complete(1, "alpha"));
        store.put(key("t"), StoredValue.tombstone(TxId.of(1, 2)));
        assertThat(store.delete(key("a"))).isTrue();
        assertThat(store.delete(key("a"))).isFalse();
        assertThat(store.delete(key("t"))).as("a tombstone is a record").isTrue();
        assertThat(store.get(key("a"))).isNull();
        assertThat(store.stats().entries()).isZero();
    }

    @Test
    void everyStateRoundTripsWithItsTxIdAndChecksum() {
        List<StoredValue> records = List.of(
                StoredValue.complete(TxId.of(3, 7), key("value")),
                StoredValue.unfinished(TxId.of(4, 8), 0xCAFEBABE, 1 << 20),
                StoredValue.lost(TxId.of(Long.MAX_VALUE, Long.MAX_VALUE), -1, Integer.MAX_VALUE),
                StoredValue.tombstone(TxId.of(0, 1)));
        for (int i = 0; i < records.size(); i++) store.put(key("k" + i), records.get(i));
        for (int i = 0; i < records.size(); i++) {
            StoredValue expected = records.get(i);
            assertThat(store.get(key("k" + i))).as(expected.state().name()).isEqualTo(expected);
            assertThat(store.header(key("k" + i))).isEqualTo(expected.header());
        }
    }

    @Test
    void tombstonesAreRecordsButNotLive() {
        store.put(key("a"), complete(1, "alpha"));
        store.put(key("t"), StoredValue.tombstone(TxId.of(1, 2)));
        assertThat(store.exists(key("t"))).isFalse();
        assertThat(store.get(key("t")).state()).isEqualTo(RecordState.TOMBSTONE);
        assertThat(store.size()).isEqualTo(1);
        StoreStats stats = store.stats();
        assertThat(stats.entries()).isEqualTo(2);
        assertThat(stats.liveEntries()).isEqualTo(1);
        assertThat(stats.keyBytes()).isEqualTo(2);
        assertThat(stats.valueBytes()).isEqualTo(5);
    }

    @Test
    void unfinishedRecordsCountTheirKeyButNoValueBytes() {
        store.put(key("u"), StoredValue.unfinished(TxId.of(1, 1), 5, 1_000_000));
        assertThat(store.stats().valueBytes()).isZero();
        assertThat(store.stats().keyBytes()).isEqualTo(1);
        assertThat(store.exists(key("u"))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            ints = {
                0,
                1,
                1024,
                INLINE - 1,
                INLINE,
                INLINE + 1,
                CHUNK - 1,
                CHUNK,
                CHUNK + 1,
                2 * CHUNK,
                2 * CHUNK + 1,
                10 << 20
            })
    void valuesOfEverySizeRoundTrip(int length) {
        StoredValue value = StoredValue.complete(TxId.of(2, length), randomBytes(length, length));
        store.put(key("v"), value);
        assertThat(store.get(key("v"))).isEqualTo(value);
        assertThat(store.header(key("v"))).isEqualTo(value.header());
        assertThat(store.getAll(List.of(key("v")))).containsExactly(value);
        assertThat(store.stats().valueBytes()).isEqualTo(length);
    }

    @Test
    void sixtyFourMiBValueRoundTripsAndCanBeReplacedBothWays() {
        StoredValue big = StoredValue.complete(TxId.of(1, 1), randomBytes(64, 64 << 20));
        store.put(key("big"), big);
        assertThat(store.get(key("big"))).isEqualTo(big);
        store.put(key("big"), complete(2, "small"));
        assertThat(store.get(key("big"))).isEqualTo(complete(2, "small"));
        store.put(key("big"), big);
        assertThat(store.get(key("big")).header()).isEqualTo(big.header());
        assertThat(store.stats().valueBytes()).isEqualTo(64 << 20);
        assertThat(store.delete(key("big"))).isTrue();
        assertThat(store.stats().valueBytes()).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 255, 256, 257, 4096, 65536})
    void keysFromEmptyToMaxKeyBytesRoundTrip(int length) {
        byte[] k = randomBytes(length + 1, length);
        StoredValue small = complete(1, "x");
        StoredValue large = StoredValue.complete(TxId.of(1, 2), randomBytes(7, CHUNK + 10));
        store.put(k, small);
        assertThat(store.get(k)).isEqualTo(small);
        store.put(k, large);
        assertThat(store.get(k)).isEqualTo(large);
        assertThat(store.stats().keyBytes()).isEqualTo(length);
        assertThat(store.delete(k)).isTrue();
        assertThat(store.get(k)).isNull();
    }

    @Test
    void keysDifferingOnlyInLengthOrLastByteAreDistinct() {
        store.put(new byte[256], complete(1, "256"));
        store.put(new byte[257], complete(2, "257"));
        byte[] other = new byte[257];
        other[256] = 1;
        store.put(other, complete(3, "257'"));
        assertThat(store.get(new byte[256])).isEqualTo(complete(1, "256"));
        assertThat(store.get(new byte[257])).isEqualTo(complete(2, "257"));
        assertThat(store.get(other)).isEqualTo(complete(3, "257'"));
    }

    @Test
    void tooLongKeyIsRejectedQuotingItsLength() {
        byte[] k = new byte[StoreConfig.DEFAULT_MAX_KEY_BYTES + 1];
        assertThatThrownBy(() -> store.put(k, complete(1, "x")))
                .isInstanceOf(EntryTooLargeException.class)
                .hasMessageContaining("65537")
                .hasMessageContaining("65536");
        assertThatThrownBy(() -> store.get(k)).isInstanceOf(EntryTooLargeException.class);
        assertThat(store.stats().entries()).isZero();
    }

    @Test
    void tooLongValueIsRejectedQuotingItsLength() {
        try (KvStore s = open(defaultConfig().maxValueBytes(1000))) {
            s.put(key("a"), complete(1, "old"));
            StoredValue tooLong = StoredValue.complete(TxId.of(1, 2), new byte[1001]);
            assertThatThrownBy(() -> s.put(key("a"), tooLong))
                    .isInstanceOf(EntryTooLargeException.class)
                    .hasMessageContaining("1001")
                    .hasMessageContaining("1000");
            assertThat(s.get(key("a"))).isEqualTo(complete(1, "old"));
            s.put(key("b"), StoredValue.complete(TxId.of(1, 3), new byte[1000]));
        }
    }

    @Test
    void fullByEntriesRejectsNewKeysUntilOneIsDeleted() {
        try (KvStore s = open(defaultConfig().maxEntries(3))) {
            for (int i = 0; i < 3; i++) s.put(key("k" + i), complete(i, "v"));
            assertThatThrownBy(() -> s.put(key("k3"), complete(3, "v")))
                    .isInstanceOf(StoreFullException.class)
                    .hasMessage("store full: 3 entries (maxEntries 3)");
            assertThat(s.get(key("k3"))).isNull();
            s.put(key("k0"), complete(9, "overwrite fits"));
            assertThat(s.delete(key("k1"))).isTrue();
            s.put(key("k3"), complete(3, "v"));
            assertThat(s.size()).isEqualTo(3);
        }
    }

    @Test
    void aFullStoreStillTakesTombstonesFromItsReserveButNoLiveKey() {
        try (KvStore s = open(defaultConfig().maxEntries(3))) {
            long reserve = s.config().tombstoneReserve();
            assertThat(reserve).isEqualTo(1024);
            for (int i = 0; i < 3; i++) s.put(key("k" + i), complete(i, "v"));
            for (int i = 0; i < reserve; i++) s.put(key("gone" + i), StoredValue.tombstone(TxId.of(1, 10 + i)));
            assertThat(s.tombstones()).isEqualTo(reserve);
            assertThatThrownBy(() -> s.put(key("gone-too-many"), StoredValue.tombstone(TxId.of(2, 1))))
                    .isInstanceOf(StoreFullException.class);
            assertThatThrownBy(() -> s.put(key("live"), complete(9, "v")))
                    .isInstanceOf(StoreFullException.class)
                    .hasMessage("store full: " + (3 + reserve) + " entries (maxEntries 3)");
            // a live key turned into a tombstone needs no new entry; a tombstone made live again counts
            s.put(key("k0"), StoredValue.tombstone(TxId.of(2, 2)));
            assertThat(s.size()).isEqualTo(2);
            s.put(key("gone0"), complete(11, "back"));
            assertThatThrownBy(() -> s.put(key("gone1"), complete(12, "one too many")))
                    .isInstanceOf(StoreFullException.class)
                    .hasMessage("store full: 3 live keys (maxEntries 3)");
            assertThat(s.size()).isEqualTo(3);
            assertThat(s.get(key("gone1"))).isEqualTo(StoredValue.tombstone(TxId.of(1, 11)));
        }
    }

    @Test
    void fullByBytesRejectsGrowthUntilRoomIsFreed() {
        try (KvStore s = open(defaultConfig().maxBytes(100 * 1024))) {
            s.put(key("a"), StoredValue.complete(TxId.of(1, 1), new byte[60 * 1024]));
            StoredValue big = StoredValue.complete(TxId.of(1, 2), new byte[50 * 1024]);
            assertThatThrownBy(() -> s.put(key("b"), big))
                    .isInstanceOf(StoreFullException.class)
                    .hasMessageContaining("maxBytes 102400");
            assertThat(s.get(key("b"))).isNull();
            assertThat(s.stats().valueBytes()).isEqualTo(60 * 1024);
            s.put(key("a"), complete(2, "shrunk"));
            s.put(key("b"), big);
            assertThat(s.get(key("b"))).isEqualTo(big);
        }
    }

    @ParameterizedTest
    @CsvSource({"8, 1", "200, 4096", "300, 0", "65536, 4096", "1000, 100", "8, 4097", "16, 65473"})
    void filledWithOneShapeTheStoreHitsItsOwnLimitFirst(int keyLength, int valueLength) {
        try (KvStore s = open(StoreConfig.builder().maxEntries(2000).maxBytes(8 << 20))) {
            StoreFullException full = null;
            for (int i = 0; full == null; i++) {
                byte[] k = Arrays.copyOf(Integer.toString(i).getBytes(UTF_8), keyLength);
                try {
                    s.put(k, StoredValue.complete(TxId.of(1, i), new byte[valueLength]));
                } catch (StoreFullException e) {
                    full = e;
                }
            }
            assertThat(full.getMessage()).matches("store full: .*\\((maxEntries 2000|maxBytes 8388608)\\)");
        }
    }

    @Test
    void underChurnOfMixedShapesTheStoreHitsItsOwnLimitFirst() {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println("underChurnOfMixedShapesTheStoreHitsItsOwnLimitFirst seed " + seed);
        Random r = new Random(seed);
        int[][] shapes = {
            {8, 1}, {40, 300}, {200, INLINE}, {300, 10}, {5000, 2000}, {65536, 100}, {20, INLINE + 1}, {20, CHUNK + 1}
        };
        try (KvStore s = open(StoreConfig.builder().maxEntries(1000).maxBytes(4 << 20))) {
            int fulls = 0;
            for (int n = 0; n < 10_000; n++) {
                int[] shape = shapes[r.nextInt(shapes.length)];
                byte[] k = Arrays.copyOf(Integer.toString(r.nextInt(3000)).getBytes(UTF_8), shape[0]);
                try {
                    if (r.nextInt(3) == 0) s.delete(k);
                    else s.put(k, StoredValue.complete(TxId.of(1, n), new byte[shape[1]]));
                } catch (StoreFullException e) {
                    assertThat(e.getMessage()).as("seed %d", seed).doesNotContain("backing map");
                    fulls++;
                }
            }
            assertThat(fulls).as("the store was driven to its limits").isPositive();
        }
    }

    @Test
    void overwriteThatWouldExceedBytesIsRejectedAndKeepsTheOldValue() {
        try (KvStore s = open(defaultConfig().maxBytes(10_000))) {
            s.put(key("a"), StoredValue.complete(TxId.of(1, 1), new byte[5000]));
            assertThatThrownBy(() -> s.put(key("a"), StoredValue.complete(TxId.of(1, 2), new byte[10_000])))
                    .isInstanceOf(StoreFullException.class);
            assertThat(s.header(key("a")).txId()).isEqualTo(TxId.of(1, 1));
            s.put(key("a"), StoredValue.complete(TxId.of(1, 3), new byte[9999]));
        }
    }

    @Test
    void updateSeesTheHeaderAndWritesWhatTheFunctionSays() {
        assertThat(store.update(key("a"), h -> {
                    assertThat(h).isNull();
                    return Write.put(complete(1, "one"));
                }))
                .isEqualTo(Write.put(complete(1, "one")));
        List<RecordHeader> seen = new ArrayList<>();
        store.update(key("a"), h -> {
            seen.add(h);
            return Write.keep();
        });
        assertThat(seen).containsExactly(complete(1, "one").header());
        assertThat(store.get(key("a"))).isEqualTo(complete(1, "one"));
        assertThat(store.update(key("a"), h -> Write.remove())).isEqualTo(Write.remove());
        assertThat(store.get(key("a"))).isNull();
        assertThat(store.update(key("a"), h -> Write.remove())).isEqualTo(Write.remove());
        assertThat(store.stats().entries()).isZero();
    }

    @Test
    void updateValueSeesTheWholeRecordAndWritesWhatTheFunctionSays() {
        List<StoredValue> seen = new ArrayList<>();
        store.updateValue(key("a"), v -> {
            seen.add(v);
            return Write.put(complete(1, "one"));
        });
        byte[] big = randomBytes(5, CHUNK * 2 + 1);
        store.updateValue(key("a"), v -> {
            seen.add(v);
            return Write.put(StoredValue.complete(TxId.of(1, 2), big));
        });
        store.updateValue(key("a"), v -> {
            seen.add(v);
            return Write.remove();
        });
        assertThat(seen).containsExactly(null, complete(1, "one"), StoredValue.complete(TxId.of(1, 2), big));
        assertThat(store.get(key("a"))).isNull();
        assertThat(store.stats().entries()).isZero();
        assertThat(store.stats().valueBytes()).isZero();
        try (KvStore s = open(defaultConfig().maxValueBytes(10))) {
            s.put(key("a"), complete(1, "one"));
            assertThatThrownBy(() -> s.updateValue(key("a"), v -> Write.put(complete(2, "eleven byte"))))
                    .isInstanceOf(EntryTooLargeException.class);
            assertThat(s.get(key("a"))).isEqualTo(complete(1, "one"));
        }
    }

    @Test
    void upsertWritesWhatItsSupplierGivesAndReplacesAnyRecord() {
        assertThat(store.upsert(key("a"), () -> complete(1, "one"))).isEqualTo(complete(1, "one"));
        assertThat(store.get(key("a"))).isEqualTo(complete(1, "one"));
        byte[] big = randomBytes(3, CHUNK * 2 + 1);
        StoredValue bigValue = StoredValue.complete(TxId.of(1, 2), big);
        assertThat(store.upsert(key("a"), () -> bigValue)).isEqualTo(bigValue);
        assertThat(store.get(key("a"))).isEqualTo(bigValue);
        store.upsert(key("a"), () -> complete(3, "small again"));
        assertThat(store.get(key("a"))).isEqualTo(complete(3, "small again"));
        assertThat(store.size()).isEqualTo(1);
        assertThat(store.stats().valueBytes()).isEqualTo("small again".length());
    }

    @Test
    void upsertWritesNothingWhenItsValueIsTooLongOrTheStoreIsFull() {
        try (KvStore s = open(defaultConfig().maxValueBytes(10).maxEntries(1))) {
            assertThatThrownBy(() -> s.upsert(key("a"), () -> complete(1, "eleven byte")))
                    .isInstanceOf(EntryTooLargeException.class);
            assertThat(s.get(key("a"))).isNull();
            s.upsert(key("a"), () -> complete(2, "ok"));
            assertThatThrownBy(() -> s.upsert(key("b"), () -> complete(3, "no room")))
                    .isInstanceOf(dev.kvs.core.StoreFullException.class);
            assertThat(s.get(key("b"))).isNull();
            assertThat(s.get(key("a"))).isEqualTo(complete(2, "ok"));
        }
    }

    @Test
    void updateWritesNothingWhenItsFunctionThrowsOrReturnsTooMuch() {
        store.put(key("a"), complete(1, "one"));
        assertThatThrownBy(() -> store.update(key("a"), h -> {
                    throw new IllegalStateException("boom");
                }))
                .hasMessage("boom");
        try (KvStore s = open(defaultConfig().maxValueBytes(10))) {
            assertThatThrownBy(() -> s.update(key("a"), h -> Write.put(complete(1, "eleven byte"))))
                    .isInstanceOf(EntryTooLargeException.class);
            assertThat(s.get(key("a"))).isNull();
        }
        assertThat(store.get(key("a"))).isEqualTo(complete(1, "one"));
    }

    @Test
    void updateAllSeesHeadersInOrderAndAppliesEveryWrite() {
        store.put(key("b"), complete(1, "bee"));
        store.put(key("c"), complete(2, "sea"));
        List<byte[]> keys = List.of(key("a"), key("b"), key("c"));
        List<Write> writes = List.of(Write.put(complete(3, "ay")), Write.keep(), Write.remove());
        List<RecordHeader> seen = new ArrayList<>();
        assertThat(store.updateAll(keys, headers -> {
                    seen.addAll(headers);
                    return writes;
                }))
                .isEqualTo(writes);
        assertThat(seen)
                .containsExactly(
                        null, complete(1, "bee").header(), complete(2, "sea").header());
        assertThat(store.getAll(keys)).containsExactly(complete(3, "ay"), complete(1, "bee"), null);
        assertThat(store.size()).isEqualTo(2);
    }

    @Test
    void updateAllWithRepeatedKeysKeepsTheLastWriteAndIgnoresKeeps() {
        List<byte[]> keys = List.of(key("a"), key("b"), key("a"), key("b"), key("a"));
        store.updateAll(keys, headers -> {
            assertThat(headers).containsOnlyNulls();
            return List.of(
                    Write.put(complete(1, "first")),
                    Write.put(complete(2, "b")),
                    Write.put(complete(3, "last")),
                    Write.remove(),
                    Write.keep());
        });
        assertThat(store.get(key("a"))).isEqualTo(complete(3, "last"));
        assertThat(store.get(key("b"))).isNull();
        assertThat(store.stats().entries()).isEqualTo(1);
        assertThat(store.stats().keyBytes()).isEqualTo(1);
    }

    @Test
    void updateAllWritesNothingWhenTheBatchDoesNotFit() {
        try (KvStore s = open(defaultConfig().maxEntries(3))) {
            s.put(key("a"), complete(1, "a"));
            List<byte[]> keys = List.of(key("a"), key("b"), key("c"), key("d"));
            assertThatThrownBy(() -> s.updateAll(
                            keys,
                            h -> List.of(
                                    Write.put(complete(2, "a2")),
                                    Write.put(complete(3, "b")),
                                    Write.put(complete(4, "c")),
                                    Write.put(complete(5, "d")))))
                    .isInstanceOf(StoreFullException.class)
                    .hasMessage("store full: 1 entries + 3 new (maxEntries 3)");
            assertThat(s.getAll(keys)).containsExactly(complete(1, "a"), null, null, null);
            // what counts is the batch's net growth: removing one key makes room for another
            s.updateAll(
                    keys,
                    h -> List.of(
                            Write.remove(),
                            Write.put(complete(3, "b")),
                            Write.put(complete(4, "c")),
                            Write.put(complete(5, "d"))));
            assertThat(s.getAll(keys)).containsExactly(null, complete(3, "b"), complete(4, "c"), complete(5, "d"));
        }
    }

    @Test
    void updateAllWritesNothingWhenOneValueIsTooLongOrTheFunctionMisbehaves() {
        store.put(key("a"), complete(1, "a"));
        List<byte[]> keys = List.of(key("a"), key("b"));
        try (KvStore s = open(defaultConfig().maxValueBytes(3))) {
            assertThatThrownBy(() -> s.updateAll(
                            keys, h -> List.of(Write.put(complete(2, "ok")), Write.put(complete(3, "toolong")))))
                    .isInstanceOf(EntryTooLargeException.class);
            assertThat(s.getAll(keys)).containsOnlyNulls();
        }
        assertThatThrownBy(() -> store.updateAll(keys, h -> List.of(Write.remove())))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("1 writes for 2 keys");
        assertThatThrownBy(() -> store.updateAll(keys, h -> null)).isInstanceOf(NullPointerException.class);
        assertThat(store.get(key("a"))).isEqualTo(complete(1, "a"));
    }

    @Test
    void updateAllOfLargeValuesRoundTrips() {
        List<byte[]> keys = List.of(key("x"), key("y"));
        StoredValue x = StoredValue.complete(TxId.of(1, 1), randomBytes(1, 3 * CHUNK));
        StoredValue y = StoredValue.complete(TxId.of(1, 2), randomBytes(2, INLINE + 1));
        store.updateAll(keys, h -> List.of(Write.put(x), Write.put(y)));
        assertThat(store.getAll(keys)).containsExactly(x, y);
        store.updateAll(keys, h -> List.of(Write.put(y), Write.remove()));
        assertThat(store.getAll(keys)).containsExactly(y, null);
    }

    @Test
    void getAllKeepsOrderAndRepeatsAndGivesNullForAbsentKeys() {
        store.put(key("a"), complete(1, "a"));
        assertThat(store.getAll(List.of(key("z"), key("a"), key("a"))))
                .containsExactly(null, complete(1, "a"), complete(1, "a"));
        assertThat(store.getAll(List.of())).isEmpty();
    }

    @Test
    void forEachVisitsEveryRecord() {
        Map<String, StoredValue> expected = new HashMap<>();
        for (int i = 0; i < 300; i++) {
            StoredValue v =
                    i % 50 == 0 ? StoredValue.complete(TxId.of(1, i), randomBytes(i, CHUNK + i)) : complete(i, "v" + i);
            expected.put("k" + i, v);
            store.put(key("k" + i), v);
        }
        byte[] longKey = randomBytes(3, 1000);
        expected.put(Arrays.toString(longKey), StoredValue.tombstone(TxId.of(2, 2)));
        store.put(longKey, StoredValue.tombstone(TxId.of(2, 2)));
        Map<String, StoredValue> seen = new HashMap<>();
        store.forEach((k, v) -> seen.put(k.length == 1000 ? Arrays.toString(k) : new String(k, UTF_8), v));
        assertThat(seen).isEqualTo(expected);
    }

    @Test
    void removeBeforeRemovesOnlyOlderRecordsAndKeepsCountersRight() {
        for (int i = 1; i <= 50; i++) store.put(key("old" + i), complete(i, "v" + i));
        store.put(key("bigOld"), StoredValue.complete(TxId.of(1, 60), new byte[3 * CHUNK]));
        store.put(key("tomb"), StoredValue.tombstone(TxId.of(1, 61)));
        store.put(key("new"), complete(200, "n"));
        store.put(key("bigNew"), StoredValue.complete(TxId.of(2, 1), new byte[2 * CHUNK]));

        assertThat(store.removeBefore(TxId.of(1, 100))).isEqualTo(52);

        assertThat(store.get(key("old7"))).isNull();
        assertThat(store.get(key("bigOld"))).isNull();
        assertThat(store.get(key("tomb"))).isNull();
        assertThat(store.get(key("new"))).isEqualTo(complete(200, "n"));
        assertThat(store.get(key("bigNew")).value()).hasSize(2 * CHUNK);
        assertThat(store.size()).isEqualTo(2);
        assertThat(store.stats().entries()).isEqualTo(2);
        assertThat(store.stats().valueBytes()).isEqualTo(1 + 2L * CHUNK);
    }

    @Test
    void hiddenRecordsAreGoneForReadersAndWritersUntilRemoved() {
        store.put(key("old"), complete(5, "v"));
        store.put(key("bigOld"), StoredValue.complete(TxId.of(1, 6), new byte[2 * CHUNK]));
        store.put(key("rmw"), complete(7, "41"));
        store.put(key("new"), complete(20, "n"));
        store.hideBefore(TxId.of(1, 10));
        store.hideBefore(TxId.of(1, 8)); // never lowers the mark

        assertThat(store.get(key("old"))).isNull();
        assertThat(store.get(key("bigOld"))).isNull();
        assertThat(store.header(key("old"))).isNull();
        assertThat(store.exists(key("old"))).isFalse();
        assertThat(store.getAll(List.of(key("old"), key("new")))).containsExactly(null, complete(20, "n"));
        List<String> seen = new ArrayList<>();
        store.forEach((k, v) -> seen.add(new String(k, UTF_8)));
        assertThat(seen).containsExactly("new");
        // a writer sees the key empty
        assertThat(store.update(key("old"), h -> h == null ? Write.put(complete(11, "fresh")) : Write.keep()))
                .isInstanceOf(Write.Put.class);
        assertThat(store.get(key("old"))).isEqualTo(complete(11, "fresh"));
        store.updateValue(key("rmw"), v -> {
            assertThat(v).isNull();
            return Write.keep();
        });
        store.updateAll(List.of(key("rmw"), key("new")), hs -> {
            assertThat(hs.get(0)).isNull();
            assertThat(hs.get(1)).isNotNull();
            return List.of(Write.keep(), Write.keep());
        });
        assertThat(store.delete(key("rmw"))).isFalse(); // hidden: reported absent, removed all the same

        assertThat(store.removeBefore(TxId.of(1, 10))).isEqualTo(1); // bigOld; rmw was deleted
        assertThat(store.size()).isEqualTo(2);
        assertThat(store.stats().valueBytes()).isEqualTo("fresh".length() + 1);
    }

    @Test
    void removeIfRemovesWhatTheConditionAcceptsAndCountsTombstones() {
        for (int i = 1; i <= 30; i++) store.put(key("live" + i), complete(i, "v" + i));
        for (int i = 1; i <= 20; i++) store.put(key("tomb" + i), StoredValue.tombstone(TxId.of(1, 100 + i)));
        store.put(key("bigTomb"), StoredValue.tombstone(TxId.of(1, 200)));
        store.put(key("big"), StoredValue.complete(TxId.of(1, 201), new byte[2 * CHUNK]));
        assertThat(store.tombstones()).isEqualTo(21);

        long removed = store.removeIf(
                (k, h) -> h.state() == RecordState.TOMBSTONE && h.txId().compareTo(TxId.of(1, 110)) <= 0);

        assertThat(removed).isEqualTo(10);
        assertThat(store.get(key("tomb3"))).isNull();
        assertThat(store.get(key("tomb11"))).isEqualTo(StoredValue.tombstone(TxId.of(1, 111)));
        assertThat(store.get(key("live3"))).isEqualTo(complete(3, "v3"));
        assertThat(store.tombstones()).isEqualTo(11);
        assertThat(store.size()).isEqualTo(31);
        assertThat(store.stats().entries()).isEqualTo(42);
        // the key passed is the record's own, and a record removed by a writer meanwhile is not counted
        assertThat(store.removeIf((k, h) -> new String(k, UTF_8).equals("big"))).isEqualTo(1);
        assertThat(store.get(key("big"))).isNull();
        assertThat(store.stats().valueBytes()).isEqualTo(9 * 2 + 21 * 3); // "v1".."v30"
    }

    @Test
    void removeIfLeavesHiddenRecordsToTheFlushSweep() {
        store.put(key("oldTomb"), StoredValue.tombstone(TxId.of(1, 5)));
        store.put(key("newTomb"), StoredValue.tombstone(TxId.of(1, 20)));
        store.hideBefore(TxId.of(1, 10));

        assertThat(store.removeIf((k, h) -> h.state() == RecordState.TOMBSTONE)).isEqualTo(1);
        assertThat(store.stats().entries()).isEqualTo(1); // oldTomb: hidden, still held until its sweep
        assertThat(store.removeBefore(TxId.of(1, 10))).isEqualTo(1);
        assertThat(store.stats().entries()).isZero();
    }

    @Test
    void exclusiveHoldsEveryKeyLock() throws Exception {
        java.util.concurrent.CountDownLatch inside = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
        Thread barrier = new Thread(() -> store.exclusive(() -> {
            inside.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return null;
        }));
        barrier.start();
        inside.await();
        Thread writer = new Thread(() -> store.put(key("k"), complete(1, "v")));
        writer.start();
        // the write parks on its key's lock while the barrier holds every lock
        org.awaitility.Awaitility.await().until(() -> writer.getState() == Thread.State.WAITING);
        assertThat(store.get(key("k"))).isNull();
        release.countDown();
        writer.join();
        barrier.join();
        assertThat(store.get(key("k"))).isEqualTo(complete(1, "v"));
        assertThat(store.exclusive(() -> 42)).isEqualTo(42);
    }

    @Test
    void clearRemovesEverythingAndResetsCounters() {
        for (int i = 0; i < 100; i++) store.put(key("k" + i), complete(i, "v"));
        store.put(key("big"), StoredValue.complete(TxId.of(1, 1), new byte[3 * CHUNK]));
        store.clear();
        assertThat(store.get(key("k1"))).isNull();
        assertThat(store.get(key("big"))).isNull();
        assertThat(store.stats())
                .isEqualTo(new StoreStats(
                        0,
                        0,
                        0,
                        0,
                        10_000,
                        160L << 20,
                        store.stats().offHeapBytes(),
                        store.stats().persistent(),
                        0,
                        store.stats().maxPageDirectorySlots(),
                        store.stats().undoSlotBytes(), // a bound, kept
                        0));
        store.put(key("k1"), complete(1, "again"));
        assertThat(store.size()).isEqualTo(1);
    }

    @Test
    void statsReportTheConfiguredLimits() {
        StoreStats stats = store.stats();
        assertThat(stats.maxEntries()).isEqualTo(10_000);
        assertThat(stats.maxBytes()).isEqualTo(160L << 20);
        assertThat(store.config().maxEntries()).isEqualTo(10_000);
    }

    @Test
    void closeIsIdempotentAndLaterCallsThrow() {
        store.put(key("a"), complete(1, "a"));
        store.close();
        store.close();
        assertThatThrownBy(() -> store.get(key("a")))
                .isInstanceOf(StorageException.class)
                .hasMessage("store is closed");
        assertThatThrownBy(() -> store.put(key("a"), complete(2, "b"))).isInstanceOf(StorageException.class);
        assertThatThrownBy(() -> store.getAll(List.of(key("a")))).isInstanceOf(StorageException.class);
        assertThatThrownBy(() -> store.updateAll(List.of(), h -> List.of())).isInstanceOf(StorageException.class);
        assertThatThrownBy(store::size).isInstanceOf(StorageException.class);
        assertThatThrownBy(store::stats).isInstanceOf(StorageException.class);
        assertThatThrownBy(store::clear).isInstanceOf(StorageException.class);
        assertThat(store.prefetch(new byte[][] {key("a"), key("b")}, 2))
                .as("a prefetch is a hint: on a closed store it brings nothing and throws nothing")
                .isZero();
    }

    @Test
    void nullArgumentsAreRejected() {
        assertThatThrownBy(() -> store.get(null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> store.put(key("a"), null)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> store.update(key("a"), h -> null)).isInstanceOf(NullPointerException.class);
        assertThat(store.get(key("a"))).isNull();
    }

    @Test
    void concurrentUpdateValueIncrementsLoseNoUpdate() throws Exception {
        int threads = 4, each = 500;
        java.util.concurrent.atomic.AtomicLong seq = new java.util.concurrent.atomic.AtomicLong();
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(threads);
        try {
            List<java.util.concurrent.Future<?>> done = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                done.add(pool.submit(() -> {
                    for (int i = 0; i < each; i++) {
                        store.updateValue(key("counter"), v -> {
                            long n = v == null ? 0 : Long.parseLong(new String(v.value(), UTF_8));
                            return Write.put(complete(seq.incrementAndGet(), Long.toString(n + 1)));
                        });
                    }
                }));
            }
            for (java.util.concurrent.Future<?> f : done) f.get(60, java.util.concurrent.TimeUnit.SECONDS);
        } finally {
            pool.shutdownNow();
        }
        assertThat(new String(store.get(key("counter")).value(), UTF_8)).isEqualTo(Integer.toString(threads * each));
        assertThat(seq.get()).as("fn ran once per update").isEqualTo(threads * each);
    }

    @Test
    void updateAllIsAtomicForGetAllReaders() throws Exception {
        new KvStoreConcurrencyContract(store).updateAllIsAtomicForGetAll();
    }

    @Test
    void randomConcurrentOperationsLeaveConsistentCounters() throws Exception {
        try (KvStore s = open(StoreConfig.builder().maxEntries(48).maxBytes(2 << 20))) {
            new KvStoreConcurrencyContract(s).randomOperationsKeepCountersExact();
            checkInternals(s);
        }
    }

    @Test
    void readValueSeesWholeValuesWhileOverwritten() throws Exception {
        new KvStoreConcurrencyContract(store).readValueSeesWholeValues();
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 100, INLINE, INLINE + 1, CHUNK, CHUNK + 1, 3 * CHUNK + 5})
    void readValueCopiesACompleteValueIntoTheSinksBufferAtItsPosition(int length) {
        byte[] value = randomBytes(length, length);
        StoredValue stored = StoredValue.complete(TxId.of(2, 7), value);
        store.put(key("big"), stored);
        for (ByteBuffer b : List.of(ByteBuffer.allocateDirect(length + 5), ByteBuffer.allocate(length + 5))) {
            b.position(3);
            List<Integer> asked = new ArrayList<>();
            ValueRead read = store.readValue(key("big"), n -> {
                asked.add(n);
                return b;
            });
            assertThat(asked).containsExactly(length);
            assertThat(read.header()).isEqualTo(stored.header());
            assertThat(read.inBuffer()).isTrue();
            assertThat(read.value()).isNull();
            assertThat(read.buffer()).isSameAs(b);
            assertThat(b.position()).isEqualTo(3 + length);
            byte[] copied = new byte[length];
            b.get(3, copied);
            assertThat(copied).isEqualTo(value);
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {100, INLINE, INLINE + 1, CHUNK, CHUNK + 1, 3 * CHUNK, 3 * CHUNK + 5})
    void readRangeCopiesAnyRangeOfACompleteValueAndNamesItsWrite(int length) {
        byte[] value = randomBytes(length, length);
        StoredValue stored = StoredValue.complete(TxId.of(2, 8), value);
        store.put(key("big"), stored);
        int[][] ranges = {
            {0, length},
            {0, 1},
            {length - 1, 1},
            {length, 0},
            {length / 3, length / 3 + 1},
            {Math.min(CHUNK - 1, length - 1), Math.min(2, length - Math.min(CHUNK - 1, length - 1))},
            {Math.min(CHUNK, length), length - Math.min(CHUNK, length)}
        };
        for (int[] range : ranges) {
            int offset = range[0];
            int n = range[1];
            for (ByteBuffer b : List.of(ByteBuffer.allocateDirect(n + 5), ByteBuffer.allocate(n + 5))) {
                b.position(2);
                assertThat(store.readRange(key("big"), offset, n, b)).isEqualTo(stored.header());
                assertThat(b.position()).as("[%d, +%d)", offset, n).isEqualTo(2 + n);
                byte[] copied = new byte[n];
                b.get(2, copied);
                assertThat(copied).as("[%d, +%d)", offset, n).isEqualTo(Arrays.copyOfRange(value, offset, offset + n));
            }
        }
        ByteBuffer b = ByteBuffer.allocateDirect(10);
        assertThat(store.readRange(key("big"), length - 5, 6, b)).isEqualTo(stored.header()); // past the end
        assertThat(b.position()).isZero();
        assertThatThrownBy(() -> store.readRange(key("big"), 0, 11, b)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> store.readRange(key("big"), -1, 1, b)).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void readRangeOfAbsentOrIncompleteRecordsCopiesNothing() {
        ByteBuffer b = ByteBuffer.allocateDirect(10);
        assertThat(store.readRange(key("nope"), 0, 1, b)).isNull();
        store.put(key("u"), StoredValue.unfinished(TxId.of(1, 1), 42, 2 * CHUNK));
        store.put(key("t"), StoredValue.tombstone(TxId.of(1, 3)));
        assertThat(store.readRange(key("u"), 0, 10, b)).isEqualTo(store.header(key("u")));
        assertThat(store.readRange(key("t"), 0, 0, b)).isEqualTo(store.header(key("t")));
        assertThat(b.position()).isZero();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 10, INLINE + 1, 2 * CHUNK})
    void readValueReturnsTheArrayWhenTheSinkDeclines(int length) {
        StoredValue stored = StoredValue.complete(TxId.of(1, 1), randomBytes(3, length));
        store.put(key("v"), stored);
        ValueRead read = store.readValue(key("v"), n -> null);
        assertThat(read.inBuffer()).isFalse();
        assertThat(new StoredValue(read.header(), read.value())).isEqualTo(stored);
    }

    @Test
    void readValueOfAbsentOrIncompleteRecordsNeverCallsTheSink() {
        ValueSink refuses = n -> {
            throw new AssertionError("sink called for " + n + " bytes");
        };
        assertThat(store.readValue(key("nope"), refuses)).isNull();
        store.put(key("u"), StoredValue.unfinished(TxId.of(1, 1), 42, 2 * CHUNK));
        store.put(key("l"), StoredValue.lost(TxId.of(1, 2), 43, 10));
        store.put(key("t"), StoredValue.tombstone(TxId.of(1, 3)));
        for (String k : List.of("u", "l", "t")) {
            ValueRead read = store.readValue(key(k), refuses);
            assertThat(read.header()).isEqualTo(store.header(key(k)));
            assertThat(read.value()).isEmpty();
            assertThat(read.inBuffer()).isFalse();
        }
        assertThat(store.readAll(List.of(key("u"), key("nope"), key("t")), refuses))
                .extracting(r -> r == null ? null : r.state())
                .containsExactly(RecordState.UNFINISHED, null, RecordState.TOMBSTONE);
    }

    @Test
    void readAllOffersValuesInKeyOrderAndGivesNullForAbsentKeys() {
        byte[] big = randomBytes(1, 2 * CHUNK + 1);
        store.put(key("a"), complete(1, "ay"));
        store.put(key("b"), StoredValue.complete(TxId.of(1, 2), big));
        List<Integer> asked = new ArrayList<>();
        List<ValueRead> reads = store.readAll(List.of(key("b"), key("x"), key("a"), key("b")), n -> {
            asked.add(n);
            return n > INLINE ? ByteBuffer.allocateDirect(n) : null;
        });
        assertThat(asked).containsExactly(big.length, 2, big.length);
        assertThat(reads).hasSize(4);
        assertThat(reads.get(1)).isNull();
        assertThat(reads.get(2).value()).isEqualTo(key("ay"));
        for (ValueRead r : List.of(reads.get(0), reads.get(3))) {
            assertThat(r.header()).isEqualTo(store.header(key("b")));
            byte[] copied = new byte[big.length];
            r.buffer().flip().get(copied);
            assertThat(copied).isEqualTo(big);
        }
        assertThat(reads.get(0).buffer()).isNotSameAs(reads.get(3).buffer());
    }

    @Test
    void readValueRejectsASinkBufferWithTooLittleRoom() {
        store.put(key("big"), StoredValue.complete(TxId.of(1, 1), randomBytes(5, 2 * CHUNK)));
        assertThatThrownBy(() -> store.readValue(key("big"), n -> ByteBuffer.allocate(n - 1)))
                .isInstanceOf(RuntimeException.class);
    }

    /**
     * Writes {@code value} into {@code stage} in pieces of random sizes (some across chunk borders), from
     * arrays, heap buffers and direct buffers.
     */
    static void writeInPieces(ValueStage stage, byte[] value, long seed) {
        Random random = new Random(seed);
        for (int at = 0; at < value.length; ) {
            int n = Math.min(value.length - at, 1 + random.nextInt(random.nextBoolean() ? 2 * CHUNK : 5000));
            switch (random.nextInt(3)) {
                case 0 -> stage.write(value, at, n);
                case 1 -> stage.write(ByteBuffer.wrap(value, at, n));
                default -> {
                    ByteBuffer direct = ByteBuffer.allocateDirect(n + 3).position(3);
                    direct.put(value, at, n).flip().position(3);
                    stage.write(direct);
                    assertThat(direct.hasRemaining()).isFalse();
                }
            }
            at += n;
        }
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 100, INLINE, INLINE + 1, CHUNK, 3 * CHUNK + 17, 1 << 20})
    void aValueStagedInPiecesIsNoRecordUntilCommittedThenReadsWhole(int length) {
        long seed = System.nanoTime();
        System.out.println("aValueStagedInPiecesIsNoRecordUntilCommittedThenReadsWhole seed " + seed);
        byte[] value = randomBytes(seed, length);
        store.put(key("k"), complete(1, "old"));
        StoredValue next = StoredValue.complete(TxId.of(1, 2), value, 9_000);
        try (ValueStage stage = store.stage(length)) {
            writeInPieces(stage, value, seed);
            assertThat(stage.written()).isEqualTo(length);
            assertThat(stage.toArray()).isEqualTo(value);
            assertThat(store.get(key("k"))).isEqualTo(complete(1, "old"));
            List<RecordHeader> seen = new ArrayList<>();
            assertThat(store.putStaged(key("k"), stage, h -> {
                        seen.add(h);
                        return next.header();
                    }))
                    .isTrue();
            assertThat(seen).containsExactly(complete(1, "old").header());
        }
        assertThat(store.get(key("k"))).isEqualTo(next);
        assertThat(store.stats().valueBytes()).isEqualTo(length);
        assertThat(store.stats().entries()).isEqualTo(1);
        assertThat(store.expiredKeys(9_001, 10)).hasSize(1);
        checkInternals(store);
    }

    /** A network buffer holding the whole value (or more) is written straight into the store's chunks. */
    @ParameterizedTest
    @ValueSource(strings = {"direct", "heap", "read-only"})
    void aValueStagedFromOneBufferReadsWholeAndTheBufferIsConsumed(String kind) {
        long seed = System.nanoTime();
        System.out.println("aValueStagedFromOneBufferReadsWholeAndTheBufferIsConsumed seed " + seed);
        for (int length : new int[] {INLINE + 1, CHUNK, 2 * CHUNK, 3 * CHUNK + 17}) {
            byte[] value = randomBytes(seed + length, length);
            // the value sits between other bytes, as in a read buffer holding more than one command
            ByteBuffer b =
                    kind.equals("direct") ? ByteBuffer.allocateDirect(length + 10) : ByteBuffer.allocate(length + 10);
            b.put(new byte[] {1, 2, 3}).put(value).put(new byte[] {4, 5, 6, 7, 8, 9, 10});
            b.position(3).limit(3 + length);
            if (kind.equals("read-only")) b = b.asReadOnlyBuffer();
            try (ValueStage stage = store.stage(length)) {
                stage.write(b);
                assertThat(b.position()).isEqualTo(3 + length);
                StoredValue v = StoredValue.complete(TxId.of(1, length), value);
                assertThat(store.putStaged(key("k"), stage, h -> v.header())).isTrue();
            }
            assertThat(store.get(key("k")).value()).as("length %d", length).isEqualTo(value);
        }
        assertThat(store.stats().valueBytes()).isEqualTo(3 * CHUNK + 17);
        checkInternals(store);
    }

    @Test
    void aStagedValueThatIsNotWantedChangesNothingAndClosingItLeavesNoTrace() {
        store.put(key("k"), complete(5, "newer"));
        StoreStats before = store.stats();
        byte[] value = randomBytes(3, 2 * CHUNK + 1);
        ValueStage stage = store.stage(value.length);
        stage.write(value, 0, value.length);
        StoredValue older = StoredValue.complete(TxId.of(1, 4), value);
        assertThat(store.putStaged(key("k"), stage, h -> h == null ? older.header() : null))
                .isFalse();
        assertThat(store.putStaged(key("absent"), stage, h -> null)).isFalse();
        assertThat(store.get(key("k"))).isEqualTo(complete(5, "newer"));
        assertThat(store.get(key("absent"))).isNull();
        stage.close();
        stage.close();
        assertThat(store.stats().valueBytes()).isEqualTo(before.valueBytes());
        assertThat(store.stats().entries()).isEqualTo(before.entries());
        checkInternals(store);
    }

    @Test
    void aStageRefusesBytesPastItsLengthAndACommitBeforeItIsWhole() {
        try (ValueStage stage = store.stage(3 * CHUNK)) {
            stage.write(new byte[CHUNK], 0, CHUNK);
            assertThatThrownBy(() -> stage.write(new byte[2 * CHUNK + 1], 0, 2 * CHUNK + 1))
                    .isInstanceOf(IllegalArgumentException.class);
            StoredValue v = StoredValue.complete(TxId.of(1, 1), new byte[3 * CHUNK]);
            assertThatThrownBy(() -> store.putStaged(key("k"), stage, h -> v.header()))
                    .isInstanceOf(RuntimeException.class);
            assertThat(store.get(key("k"))).isNull();
        }
        assertThat(store.stats().valueBytes()).isZero();
        checkInternals(store);
    }

    @Test
    void aStageLongerThanTheValueLimitIsRefusedAtOnce() {
        try (KvStore s = open(defaultConfig().maxValueBytes(2 * CHUNK))) {
            assertThatThrownBy(() -> s.stage(2 * CHUNK + 1)).isInstanceOf(EntryTooLargeException.class);
            s.stage(2 * CHUNK).close();
        }
    }

    /** Implementation-specific consistency checks after the random operations. */
    void checkInternals(KvStore s) {}
}
