package dev.kvs.core.internal;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoreConfig;

/** Opens the store implementation a configuration asks for. */
public final class Stores {
    private Stores() {}

    /**
     * Opens the Chronicle Map store: off-heap, persisted to {@code config.dataDir()} if present.
     *
     * @throws dev.kvs.core.StorageException if the maps or their files cannot be opened
     */
    public static KvStore open(StoreConfig config) {
        return ChronicleKvStore.open(config);
    }
}
