package dev.kvs.server.internal;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StorageException;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreStats;
import dev.kvs.core.StoredValue;
import dev.kvs.core.Write;
import java.util.List;
import java.util.function.BiConsumer;
import java.util.function.Function;

/**
 * A {@link KvStore} that only reports fixed {@link StoreStats}, for tests of the admin and metrics
 * code that must not depend on the real store. {@link #close()} makes {@link #stats()} throw, as the
 * real store does.
 */
public final class StubStore implements KvStore {
    private final StoreConfig config = StoreConfig.defaults();
    private volatile StoreStats stats;
    private volatile boolean closed;

    public StubStore(StoreStats stats) {
        this.stats = stats;
    }

    /** Stats with distinct values, so a test can tell each field apart. */
    public static StubStore withDistinctStats() {
        return new StubStore(
                new StoreStats(12, 11, 340, 5600, 1000, 1 << 20, 78_000, false, 64, 1 << 20, 2_000_000, 3));
    }

    public void stats(StoreStats s) {
        stats = s;
    }

    @Override
    public StoreStats stats() {
        if (closed) throw new StorageException("store is closed");
        return stats;
    }

    @Override
    public long size() {
        return stats().liveEntries();
    }

    @Override
    public StoreConfig config() {
        return config;
    }

    @Override
    public void close() {
        closed = true;
    }

    @Override
    public StoredValue get(byte[] key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public RecordHeader header(byte[] key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<StoredValue> getAll(List<byte[]> keys) {
        throw new UnsupportedOperationException();
    }

    @Override
    public StoredValue upsert(byte[] key, java.util.function.Supplier<StoredValue> value) {
        throw new UnsupportedOperationException("stub");
    }

    @Override
    public void put(byte[] key, StoredValue value) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean delete(byte[] key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public boolean exists(byte[] key) {
        throw new UnsupportedOperationException();
    }

    @Override
    public Write update(byte[] key, Function<RecordHeader, Write> fn) {
        throw new UnsupportedOperationException();
    }

    @Override
    public List<Write> updateAll(List<byte[]> keys, Function<List<RecordHeader>, List<Write>> fn) {
        throw new UnsupportedOperationException();
    }

    @Override
    public void forEach(BiConsumer<byte[], StoredValue> visitor) {}

    @Override
    public void clear() {
        throw new UnsupportedOperationException();
    }
}
