package dev.kvs.server.internal.pubsub;

import java.util.Arrays;

/** A channel's or pattern's bytes as a map key. Immutable: the bytes are not changed after. */
final class Name {
    final byte[] bytes;
    private final int hash;

    Name(byte[] bytes) {
        this.bytes = bytes;
        this.hash = Arrays.hashCode(bytes);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Name n && n.hash == hash && Arrays.equals(n.bytes, bytes);
    }

    @Override
    public int hashCode() {
        return hash;
    }
}
