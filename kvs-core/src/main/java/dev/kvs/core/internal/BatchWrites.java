package dev.kvs.core.internal;

import dev.kvs.core.ByteKey;
import dev.kvs.core.Write;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;

/** Checks what an {@code updateAll} function returned and reduces it to one write per key. */
final class BatchWrites {
    private BatchWrites() {}

    /**
     * The last put or remove of each distinct key, in order of first appearance; a keep writes nothing,
     * so it never undoes an earlier write of the same key.
     *
     * @throws NullPointerException if {@code writes} or one of them is null
     * @throws IllegalArgumentException if there is not one write per key
     * @throws dev.kvs.core.EntryTooLargeException if a put's value is too long
     */
    static LinkedHashMap<ByteKey, Write> effective(List<byte[]> keys, List<Write> writes, SizeLimits limits) {
        Objects.requireNonNull(writes, "update function returned null");
        if (writes.size() != keys.size()) {
            throw new IllegalArgumentException(
                    "update function returned " + writes.size() + " writes for " + keys.size() + " keys");
        }
        LinkedHashMap<ByteKey, Write> effective = new LinkedHashMap<>();
        for (int i = 0; i < writes.size(); i++) {
            Write w = writes.get(i);
            if (w == null) throw new NullPointerException("update function returned a null write at " + i);
            if (w instanceof Write.Keep) continue;
            if (w instanceof Write.Put put) limits.checkValue(put.value());
            effective.put(new ByteKey(keys.get(i)), w);
        }
        return effective;
    }
}
