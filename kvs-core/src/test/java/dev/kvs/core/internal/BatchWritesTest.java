package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.ByteKey;
import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchWritesTest {
    private final SizeLimits limits =
            new SizeLimits(StoreConfig.builder().maxValueBytes(4).build());
    private static final Write A = Write.put(StoredValue.complete(TxId.of(1, 1), new byte[1]));
    private static final Write B = Write.put(StoredValue.complete(TxId.of(1, 2), new byte[2]));

    @Test
    void theLastPutOrRemoveOfEachKeyWinsAndKeepsWriteNothing() {
        List<byte[]> keys = List.of("x".getBytes(), "y".getBytes(), "x".getBytes(), "z".getBytes(), "y".getBytes());
        LinkedHashMap<ByteKey, Write> effective =
                BatchWrites.effective(keys, List.of(A, Write.remove(), B, Write.keep(), Write.keep()), limits);
        assertThat(effective).containsExactly(entry("x", B), entry("y", Write.remove()));
    }

    private static java.util.Map.Entry<ByteKey, Write> entry(String key, Write w) {
        return java.util.Map.entry(new ByteKey(key.getBytes()), w);
    }

    @Test
    void rejectsAWrongNumberOfWritesNullsAndTooLongValues() {
        List<byte[]> keys = List.of("x".getBytes());
        assertThatThrownBy(() -> BatchWrites.effective(keys, List.of(), limits))
                .hasMessage("update function returned 0 writes for 1 keys");
        assertThatThrownBy(() -> BatchWrites.effective(keys, null, limits)).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> BatchWrites.effective(keys, Arrays.asList((Write) null), limits))
                .isInstanceOf(NullPointerException.class)
                .hasMessageContaining("at 0");
        Write tooLong = Write.put(StoredValue.complete(TxId.of(1, 3), new byte[5]));
        assertThatThrownBy(() -> BatchWrites.effective(keys, List.of(tooLong), limits))
                .isInstanceOf(EntryTooLargeException.class);
    }
}
