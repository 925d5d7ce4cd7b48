package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class RecordMapsTest {
    private static Record record(int seq, int length) {
        return Record.inline(StoredValue.complete(TxId.of(1, seq), new byte[length]));
    }

    @Test
    void shortAndLongKeysAreStoredSeparatelyAndBothFound() {
        StoreConfig config =
                StoreConfig.builder().maxEntries(100).maxBytes(1 << 20).build();
        try (RecordMaps maps = RecordMaps.open(config, null)) {
            byte[] shortKey = new byte[RecordMaps.SHORT_KEY_MAX];
            byte[] longKey = new byte[RecordMaps.SHORT_KEY_MAX + 1];
            byte[] maxKey = new byte[config.maxKeyBytes()];
            assertThat(maps.put(shortKey, record(1, RecordMaps.INLINE_MAX))).isNull();
            maps.put(longKey, record(2, 0));
            maps.put(maxKey, record(3, RecordMaps.INLINE_MAX));
            assertThat(maps.get(shortKey).seq).isEqualTo(1);
            assertThat(maps.get(longKey).seq).isEqualTo(2);
            assertThat(maps.header(maxKey).seq).isEqualTo(3);
            assertThat(maps.put(longKey, record(4, 1)).seq)
                    .as("put returns the old record")
                    .isEqualTo(2);
            List<Integer> lengths = new ArrayList<>();
            maps.forEachKey(k -> lengths.add(k.length));
            assertThat(lengths).containsExactlyInAnyOrder(shortKey.length, longKey.length, maxKey.length);
            maps.remove(longKey);
            assertThat(maps.get(longKey)).isNull();
        }
    }

    @Test
    void getIntoCopiesAnInlineValueIntoTheSinksBufferWithoutAnArray() {
        StoreConfig config =
                StoreConfig.builder().maxEntries(100).maxBytes(1 << 20).build();
        try (RecordMaps maps = RecordMaps.open(config, null)) {
            byte[] key = "k".getBytes();
            byte[] value = new byte[1024];
            for (int i = 0; i < value.length; i++) value[i] = (byte) (i * 7 + 1);
            maps.put(key, Record.inline(StoredValue.complete(TxId.of(1, 5), value)));
            for (ByteBuffer b : List.of(ByteBuffer.allocateDirect(1030), ByteBuffer.allocate(1030))) {
                b.position(4);
                List<Integer> asked = new ArrayList<>();
                ValueInto into = new ValueInto(n -> {
                    asked.add(n);
                    return b;
                });
                Record r = maps.get(key, into);
                assertThat(asked).containsExactly(value.length);
                assertThat(r.seq).isEqualTo(5);
                assertThat(r.valueLength).isEqualTo(value.length);
                assertThat(r.value)
                        .as("no array: the value went into the buffer")
                        .isNull();
                assertThat(b.position()).isEqualTo(4 + value.length);
                byte[] copied = new byte[value.length];
                b.get(4, copied);
                assertThat(copied).isEqualTo(value);
                assertThat(into.result(r).buffer()).isSameAs(b);
            }
            Record declined = maps.get(key, new ValueInto(n -> null));
            assertThat(declined.value).isEqualTo(value);
            assertThat(maps.get("absent".getBytes(), new ValueInto(n -> {
                        throw new AssertionError("sink called for an absent key");
                    })))
                    .isNull();
        }
    }

    @Test
    void putReturnsTheReplacedRecordsHeaderWithoutCopyingItsValue() {
        StoreConfig config =
                StoreConfig.builder().maxEntries(100).maxBytes(1 << 20).build();
        try (RecordMaps maps = RecordMaps.open(config, null)) {
            byte[] key = "k".getBytes();
            assertThat(maps.put(key, record(1, 100))).isNull();
            Record old = maps.put(key, record(2, 7));
            assertThat(old.seq).isEqualTo(1);
            assertThat(old.valueLength).isEqualTo(100);
            assertThat(old.isChunked()).isFalse();
            assertThat(old.value).as("the old value is not read").isNull();
            StoredValue big = StoredValue.complete(TxId.of(1, 3), new byte[RecordMaps.INLINE_MAX + 1]);
            maps.put(key, Record.chunked(big.header(), 42));
            Record chunked = maps.put(key, record(4, 1));
            assertThat(chunked.blobId).isEqualTo(42);
            assertThat(chunked.valueLength).isEqualTo(RecordMaps.INLINE_MAX + 1);
            assertThat(chunked.seq).isEqualTo(3);
            assertThat(maps.get(key).seq).isEqualTo(4);
            assertThat(maps.get(key).value).hasSize(1);
        }
    }

    @Test
    void aGuardSeesTheReplacedHeaderUnderTheLockAndMayRefuseThePut() {
        StoreConfig config =
                StoreConfig.builder().maxEntries(100).maxBytes(1 << 20).build();
        try (RecordMaps maps = RecordMaps.open(config, null)) {
            byte[] key = "k".getBytes();
            List<Record> seen = new ArrayList<>();
            RecordMaps.PutGuard recording = new RecordMaps.PutGuard() {
                @Override
                public void before(Record old) {
                    seen.add(old);
                }

                @Override
                public void failed(Record old) {
                    throw new AssertionError("the write did not fail");
                }
            };
            assertThat(maps.put(key, record(1, 10), recording)).isNull();
            assertThat(maps.put(key, record(2, 20), recording).seq).isEqualTo(1);
            assertThat(seen).hasSize(2);
            assertThat(seen.get(0)).as("a new key: no old record").isNull();
            assertThat(seen.get(1).seq).isEqualTo(1);
            assertThat(seen.get(1).valueLength).isEqualTo(10);
            assertThat(seen.get(1).value).as("the header only").isNull();

            RecordMaps.PutGuard refusing = new RecordMaps.PutGuard() {
                @Override
                public void before(Record old) {
                    throw new StoreFullException("no room for " + (old == null ? "a new key" : "seq " + old.seq));
                }

                @Override
                public void failed(Record old) {
                    throw new AssertionError("nothing was written");
                }
            };
            assertThatThrownBy(() -> maps.put(key, record(3, 30), refusing))
                    .isInstanceOf(StoreFullException.class)
                    .hasMessage("no room for seq 2");
            assertThatThrownBy(() -> maps.put("other".getBytes(), record(4, 1), refusing))
                    .hasMessage("no room for a new key");
            assertThat(maps.get(key).seq).as("the refused put wrote nothing").isEqualTo(2);
            assertThat(maps.get(key).value).hasSize(20);
            assertThat(maps.get("other".getBytes())).isNull();
        }
    }

    @Test
    void aSmallMapStillFitsItsLargestEntries() {
        StoreConfig config = StoreConfig.builder().maxEntries(1).maxBytes(1).build();
        try (RecordMaps maps = RecordMaps.open(config, null)) {
            for (int i = 0; i < 3; i++) {
                maps.put(("k" + i).getBytes(), record(i, RecordMaps.INLINE_MAX));
                maps.put(new byte[config.maxKeyBytes() - i], record(i, RecordMaps.INLINE_MAX));
            }
            assertThat(maps.get("k2".getBytes()).value).hasSize(RecordMaps.INLINE_MAX);
        }
    }

    @Test
    void noLongKeyMapWhenKeysAreShort() {
        StoreConfig config =
                StoreConfig.builder().maxKeyBytes(RecordMaps.SHORT_KEY_MAX).build();
        try (RecordMaps maps = RecordMaps.open(config, null)) {
            maps.put(new byte[RecordMaps.SHORT_KEY_MAX], record(1, 1));
            assertThat(maps.offHeapMemoryUsed()).isPositive();
        }
    }

    @Test
    void layoutsGrowWithTheLimits() {
        StoreConfig small =
                StoreConfig.builder().maxEntries(1000).maxBytes(1 << 20).build();
        StoreConfig large =
                StoreConfig.builder().maxEntries(1_000_000).maxBytes(1L << 30).build();
        assertThat(RecordMaps.shortLayout(large).baseBytes())
                .isGreaterThan(RecordMaps.shortLayout(small).baseBytes());
        assertThat(RecordMaps.shortLayout(large).baseBytes()).isGreaterThan(1L << 30);
        assertThat(RecordMaps.longLayout(large).baseBytes() * 5).isGreaterThan(1L << 30);
    }
}
