package dev.kvs.server.internal.expiry;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StoredValue;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The store as commands read it: a record whose expiry has passed on this node's clock is absent
 * (lazy expiry), on a primary and on a backup alike, whether or not active expiry has removed it
 * yet. The store itself serves every record as it is (replication and diagnostics need them raw).
 * Thread-safe.
 */
public final class LiveReads {
    private final KvStore store;
    private final Clock clock;

    public LiveReads(KvStore store, Clock clock) {
        this.store = store;
        this.clock = clock;
    }

    /** The node's wall clock (epoch millis): what expiries are compared with. */
    public long nowMillis() {
        return clock.millis();
    }

    /** {@code key}'s record, or null if absent or expired. */
    public StoredValue get(byte[] key) {
        StoredValue v = store.get(key);
        return v != null && expired(v.header()) ? null : v;
    }

    /** {@code key}'s header, or null if absent or expired. */
    public RecordHeader header(byte[] key) {
        RecordHeader h = store.header(key);
        return h != null && expired(h) ? null : h;
    }

    /** True if {@code key} has a record that is neither a tombstone nor expired. */
    public boolean exists(byte[] key) {
        RecordHeader h = header(key);
        return h != null && h.state() != dev.kvs.core.RecordState.TOMBSTONE;
    }

    /** The records of {@code keys} in one snapshot, null where absent or expired. */
    public List<StoredValue> getAll(List<byte[]> keys) {
        List<StoredValue> values = store.getAll(keys);
        long now = clock.millis();
        List<StoredValue> out = new ArrayList<>(values.size());
        for (StoredValue v : values) out.add(v != null && v.header().expiredAt(now) ? null : v);
        return out;
    }

    /** True if {@code h}'s expiry has passed on this node's clock (read only if {@code h} has an expiry). */
    public boolean expired(RecordHeader h) {
        return h.expiredAt(clock);
    }
}
