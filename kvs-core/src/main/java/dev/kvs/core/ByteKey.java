package dev.kvs.core;

import java.util.Arrays;

/**
 * A key's bytes with value equality, for hash maps and sets on the heap. The array is not copied: do
 * not modify it afterwards. Immutable and thread-safe as long as the array is left alone.
 */
public final class ByteKey {
    private final byte[] bytes;
    private final int hash;

    public ByteKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    /** The key's bytes (not a copy). */
    public byte[] bytes() {
        return bytes;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ByteKey k && hash == k.hash && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return "ByteKey[" + bytes.length + "B]";
    }
}
