package dev.kvs.core;

import java.util.zip.CRC32C;

/** CRC32C checksums of values, as carried in records and key packets. */
public final class Checksums {
    private Checksums() {}

    /** The CRC32C of {@code bytes}, as an int (the low 32 bits of {@link CRC32C#getValue()}). */
    public static int crc32c(byte[] bytes) {
        return crc32c(bytes, 0, bytes.length);
    }

    public static int crc32c(byte[] bytes, int offset, int length) {
        CRC32C crc = new CRC32C();
        crc.update(bytes, offset, length);
        return (int) crc.getValue();
    }
}
