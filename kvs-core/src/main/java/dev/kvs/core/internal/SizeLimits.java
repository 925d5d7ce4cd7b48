package dev.kvs.core.internal;

import dev.kvs.core.EntryTooLargeException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import java.util.List;
import java.util.Objects;

/** The key and value length limits of a configuration; checked before anything is locked or written. */
final class SizeLimits {
    private final int maxKeyBytes;
    private final int maxValueBytes;

    SizeLimits(StoreConfig config) {
        this.maxKeyBytes = config.maxKeyBytes();
        this.maxValueBytes = config.maxValueBytes();
    }

    void checkKey(byte[] key) {
        Objects.requireNonNull(key, "key == null");
        if (key.length > maxKeyBytes) {
            throw new EntryTooLargeException("key of " + key.length + " bytes > maxKeyBytes " + maxKeyBytes);
        }
    }

    void checkKeys(List<byte[]> keys) {
        Objects.requireNonNull(keys, "keys == null");
        for (byte[] key : keys) checkKey(key);
    }

    void checkValue(StoredValue value) {
        Objects.requireNonNull(value, "value == null");
        checkValueLength(value.value().length);
    }

    void checkValueLength(int length) {
        if (length > maxValueBytes) {
            throw new EntryTooLargeException("value of " + length + " bytes > maxValueBytes " + maxValueBytes);
        }
    }
}
