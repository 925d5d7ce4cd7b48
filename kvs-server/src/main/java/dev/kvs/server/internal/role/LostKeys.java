package dev.kvs.server.internal.role;

import dev.kvs.core.ByteKey;
import dev.kvs.core.TxId;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Keys whose values will never arrive from the old primary: fenced ({@code -LOST}) until an operator
 * resolves them or failback recovers them. Thread-safe; {@link #isEmpty()} is one volatile read.
 */
public final class LostKeys {
    /**
     * One lost key, as the loss manifest shows it; {@code expireAtMillis} is the expiry its key packet
     * carried (epoch millis, 0 for none): once it has passed, the key is absent, not lost.
     */
    public record Entry(byte[] key, TxId txId, int valueLength, int checksum, long sinceMillis, long expireAtMillis) {
        public Entry(byte[] key, TxId txId, int valueLength, int checksum, long sinceMillis) {
            this(key, txId, valueLength, checksum, sinceMillis, 0);
        }
    }

    private final ConcurrentHashMap<ByteKey, Entry> byKey = new ConcurrentHashMap<>();
    private volatile boolean empty = true;

    public boolean isEmpty() {
        return empty;
    }

    public Entry get(byte[] key) {
        return empty ? null : byKey.get(new ByteKey(key));
    }

    public void add(Entry e) {
        byKey.put(new ByteKey(e.key()), e);
        empty = false;
    }

    /** Removes {@code key}; true if it was lost. */
    public boolean remove(byte[] key) {
        boolean removed = byKey.remove(new ByteKey(key)) != null;
        empty = byKey.isEmpty();
        return removed;
    }

    /** Every lost key, oldest TxId first. */
    public List<Entry> snapshot() {
        List<Entry> all = new ArrayList<>(byKey.values());
        all.sort(Comparator.comparing(Entry::txId));
        return all;
    }

    public int size() {
        return byKey.size();
    }
}
