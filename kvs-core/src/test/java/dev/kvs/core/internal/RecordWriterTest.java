package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The write side on maps far smaller than the limits, so Chronicle itself runs out of room midway
 * through a batch, the one failure our own capacity checks cannot foresee.
 */
class RecordWriterTest {
    private final StoreConfig tiny =
            StoreConfig.builder().maxEntries(1).maxBytes(1).build();
    private final StoreConfig generous = StoreConfig.defaults();
    private final RecordMaps records = RecordMaps.open(tiny, null);
    private final ValueChunks chunks = ValueChunks.open(tiny, null);
    private final MemberPages pages = MemberPages.open(tiny, null);
    private final Capacity capacity = new Capacity(generous);
    private final RecordWriter writer =
            new RecordWriter(records, chunks, pages, capacity, new SizeLimits(generous), new ExpiryIndex());

    @AfterEach
    void close() {
        records.close();
        chunks.close();
        pages.close();
    }

    private static StoredValue value(long seq, int length) {
        return StoredValue.complete(TxId.of(1, seq), new byte[length]);
    }

    @Test
    void aBatchThatFillsTheBackingMapMidwayPutsBackWhatItReplaced() {
        List<byte[]> keys = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            keys.add(("old-" + i).getBytes());
            writer.put(keys.get(i), value(i, i == 0 ? RecordMaps.INLINE_MAX + 1 : 10));
        }
        long entries = capacity.entries();
        long valueBytes = capacity.valueBytes();
        for (int i = 0; i < 10_000; i++) keys.add(("new-" + i).getBytes());
        List<Write> writes = new ArrayList<>();
        for (int i = 0; i < keys.size(); i++)
            writes.add(Write.put(value(100 + i, i == 0 ? 2 * ValueChunks.CHUNK_BYTES : 10)));
        assertThatThrownBy(() -> writer.updateAll(keys, h -> writes))
                .isInstanceOf(StoreFullException.class)
                .hasMessageContaining("extra segment tier");
        for (int i = 0; i < 10; i++) {
            assertThat(records.header(keys.get(i)).seq).isEqualTo(i);
        }
        assertThat(records.get("new-0".getBytes())).isNull();
        assertThat(capacity.entries()).isEqualTo(entries);
        assertThat(capacity.valueBytes()).isEqualTo(valueBytes);
        assertThat(chunks.size())
                .as("only the old chunked value's chunk is left")
                .isEqualTo(1);
    }

    @Test
    void aPutThatFillsTheBackingMapLeavesTheCountersAlone() {
        int i = 0;
        try {
            for (; i < 100_000; i++) writer.put(("k" + i).getBytes(), value(i, 10));
        } catch (StoreFullException expected) {
            // Chronicle's own limit, translated
        }
        assertThat(i).isBetween(1, 99_999);
        assertThat(capacity.entries()).isEqualTo(i);
        assertThat(capacity.valueBytes()).isEqualTo(10L * i);
        writer.remove("k0".getBytes(), records.header("k0".getBytes()));
        writer.put("again".getBytes(), value(1, 10));
    }

    @Test
    void atTheEntryLimitAnOverwriteStillFits() {
        Capacity one = new Capacity(StoreConfig.builder().maxEntries(1).build());
        RecordWriter w = new RecordWriter(records, chunks, pages, one, new SizeLimits(generous), new ExpiryIndex());
        w.put("a".getBytes(), value(1, 10));
        w.put("a".getBytes(), value(2, RecordMaps.INLINE_MAX + 1));
        assertThat(one.entries()).isEqualTo(1);
        assertThat(one.valueBytes()).isEqualTo(RecordMaps.INLINE_MAX + 1);
        assertThatThrownBy(() -> w.put("b".getBytes(), value(3, 1))).isInstanceOf(StoreFullException.class);
        w.put("a".getBytes(), value(4, 1));
        assertThat(chunks.size()).isZero();
    }

    @Test
    void atTheByteLimitAnInlineOverwriteReservesOnlyWhatItGrows() {
        // room for exactly one key of 1 byte and a value of 100: no room left to reserve as if new
        Capacity full = new Capacity(StoreConfig.builder().maxBytes(101).build());
        RecordWriter w = new RecordWriter(records, chunks, pages, full, new SizeLimits(generous), new ExpiryIndex());
        w.put("a".getBytes(), value(1, 100));
        w.put("a".getBytes(), value(2, 100));
        w.put("a".getBytes(), value(3, 60));
        w.put("a".getBytes(), value(4, 100));
        assertThat(full.valueBytes()).isEqualTo(100);
        assertThat(full.keyBytes()).isEqualTo(1);
        assertThatThrownBy(() -> w.put("a".getBytes(), value(5, 101)))
                .isInstanceOf(StoreFullException.class)
                .hasMessageContaining("maxBytes 101");
        assertThat(records.get("a".getBytes()).seq)
                .as("the refused write changed nothing")
                .isEqualTo(4);
        assertThat(full.valueBytes()).isEqualTo(100);
        assertThat(full.entries()).isEqualTo(1);
        assertThat(full.live()).isEqualTo(1);
    }

    @Test
    void anInlineWriteOverATombstoneCountsItLiveAgain() {
        writer.put("t".getBytes(), StoredValue.tombstone(TxId.of(1, 1)));
        assertThat(capacity.entries()).isEqualTo(1);
        assertThat(capacity.live()).isZero();
        writer.put("t".getBytes(), value(2, 5));
        assertThat(capacity.entries()).isEqualTo(1);
        assertThat(capacity.live()).isEqualTo(1);
        assertThat(capacity.valueBytes()).isEqualTo(5);
    }
}
