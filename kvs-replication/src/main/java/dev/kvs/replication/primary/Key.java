package dev.kvs.replication.primary;

import java.util.Arrays;

/** A key as a hash-map key. */
record Key(byte[] bytes) {
    @Override
    public boolean equals(Object o) {
        return o instanceof Key k && Arrays.equals(bytes, k.bytes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bytes);
    }
}
