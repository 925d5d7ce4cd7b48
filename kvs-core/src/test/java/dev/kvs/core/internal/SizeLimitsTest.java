package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class SizeLimitsTest {
    private final SizeLimits limits =
            new SizeLimits(StoreConfig.builder().maxKeyBytes(4).maxValueBytes(8).build());

    @Test
    void keysUpToTheLimitPass() {
        assertThatCode(() -> limits.checkKey(new byte[4])).doesNotThrowAnyException();
        assertThatCode(() -> limits.checkKey(new byte[0])).doesNotThrowAnyException();
        assertThatThrownBy(() -> limits.checkKey(new byte[5]))
                .isInstanceOf(EntryTooLargeException.class)
                .hasMessage("key of 5 bytes > maxKeyBytes 4");
        assertThatThrownBy(() -> limits.checkKeys(Arrays.asList(new byte[1], new byte[5])))
                .isInstanceOf(EntryTooLargeException.class);
        assertThatThrownBy(() -> limits.checkKey(null)).isInstanceOf(NullPointerException.class);
    }

    @Test
    void valuesUpToTheLimitPass() {
        assertThatCode(() -> limits.checkValue(StoredValue.complete(TxId.ZERO, new byte[8])))
                .doesNotThrowAnyException();
        assertThatCode(() -> limits.checkValue(StoredValue.unfinished(TxId.ZERO, 0, 1000)))
                .as("an unfinished record holds no value bytes")
                .doesNotThrowAnyException();
        assertThatThrownBy(() -> limits.checkValue(StoredValue.complete(TxId.ZERO, new byte[9])))
                .isInstanceOf(EntryTooLargeException.class)
                .hasMessage("value of 9 bytes > maxValueBytes 8");
    }
}
