package dev.kvs.replication.backup;

import java.util.Arrays;

/** A key's bytes with value equality, for hash maps and sets on the heap. */
final class ByteKey {
    final byte[] bytes;
    private final int hash;

    ByteKey(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
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
