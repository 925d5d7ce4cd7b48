package dev.kvs.bench.drill;

import java.util.zip.CRC32C;

/**
 * A write the store acknowledged to its client: what a drill later checks the new primary for.
 *
 * @param key the key (printable ASCII, no spaces or tabs)
 * @param length the value's length in bytes
 * @param crc32c the value's CRC32C
 */
record AckedWrite(String key, int length, int crc32c) {
    AckedWrite {
        if (key == null || key.isEmpty()) throw new IllegalArgumentException("key is empty: " + key);
        if (length < 0) throw new IllegalArgumentException("length < 0: " + length);
    }

    /** The acknowledged write of {@code value} to {@code key}. */
    static AckedWrite of(String key, byte[] value) {
        return new AckedWrite(key, value.length, crc32c(value));
    }

    /** Whether {@code value} is the value that was acknowledged. */
    boolean matches(byte[] value) {
        return value != null && value.length == length && crc32c(value) == crc32c;
    }

    static int crc32c(byte[] value) {
        CRC32C c = new CRC32C();
        c.update(value, 0, value.length);
        return (int) c.getValue();
    }
}
