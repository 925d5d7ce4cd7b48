package dev.kvs.core.internal;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;

/** Opens the store implementation a configuration asks for. */
public final class Stores {
    private Stores() {}

    public static KvStore open(StoreConfig config) {
        throw new UnsupportedOperationException("TODO: ChronicleKvStore");
    }
}
