package dev.kvs.server.internal.write;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.WriteOrder;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * The one way a command writes the store on the primary. It owns the write protocol: take an order
 * from the primary's replication, give each written key its TxId <em>inside</em> the store's lock for
 * that key (so per key, TxId order is store order), then commit, or abort if the store write failed
 * (so the TxId sequence stays gap-free for the backup). A command only decides, per key, to keep it
 * or to write it through {@link Ordering}; it never sees a TxId. Thread-safe.
 */
public final class Writes {
    private final KvStore store;
    private final RoleMachine roles;

    public Writes(KvStore store, RoleMachine roles) {
        this.store = store;
        this.roles = roles;
    }

    /** How a command's decision writes a key: each call orders one write (a TxId) of it. */
    public interface Ordering {
        /** Writes {@code value} to {@code key}. */
        Write put(byte[] key, byte[] value);

        /** Deletes {@code key} (replicated as a tombstone). */
        Write remove(byte[] key);

        /**
         * Moves {@code value} from {@code source} to {@code key} in one TxId (RENAME): the writes for
         * {@code [source, key]}, in that order, for {@link #updateAll} over exactly those two keys.
         */
        List<Write> rename(byte[] source, byte[] key, byte[] value);
    }

    /**
     * A command's writes, in the store.
     *
     * @param result what the store did
     * @param replicated completes when the command may be answered in its replication mode, or fails
     *     with a {@link dev.kvs.replication.ReplicationTimeoutException}
     */
    public record Done<T>(T result, CompletableFuture<Void> replicated) {}

    /** Writes {@code value} to {@code key} whatever it held: one store operation, no read. */
    public CompletableFuture<Void> put(ReplicationMode mode, byte[] key, byte[] value) {
        return run(mode, order -> store.upsert(key, () -> StoredValue.complete(order.txIdOf(key, value), value)))
                .replicated();
    }

    /** Decides, from its current header (null if absent), what to do with {@code key}. */
    public Done<Write> update(ReplicationMode mode, byte[] key, BiFunction<RecordHeader, Ordering, Write> decide) {
        return run(mode, order -> store.update(key, h -> decide.apply(h, order)));
    }

    /**
     * Decides, from its whole current record (value included; null if absent), what to do with {@code
     * key}: a read-modify-write (INCR, APPEND) atomic with every other write of the key.
     */
    public Done<Write> updateValue(ReplicationMode mode, byte[] key, BiFunction<StoredValue, Ordering, Write> decide) {
        return run(mode, order -> store.updateValue(key, v -> decide.apply(v, order)));
    }

    /** Decides, from their headers, what to do with several keys, atomically. */
    public Done<List<Write>> updateAll(
            ReplicationMode mode, List<byte[]> keys, BiFunction<List<RecordHeader>, Ordering, List<Write>> decide) {
        return run(mode, order -> store.updateAll(keys, h -> decide.apply(h, order)));
    }

    /**
     * FLUSHDB: orders a flush and makes it take effect at once, inside {@link KvStore#exclusive} (no
     * write in progress): every record older than its TxId is hidden from every reader and writer from
     * then on ({@link KvStore#hideBefore}); writes ordered after it stay. The records are removed
     * afterwards, key by key, by {@link KvStore#removeBefore} with the returned TxId, which the caller
     * runs off the event loops.
     *
     * @return the flush's TxId, and when it may be answered in its replication mode
     */
    public Done<TxId> flush(ReplicationMode mode) {
        WriteOrder order = begin(mode);
        TxId t;
        try {
            t = store.exclusive(() -> {
                TxId f = order.flush();
                store.hideBefore(f);
                return f;
            });
        } catch (RuntimeException e) {
            order.abort();
            throw e;
        }
        return new Done<>(t, order.commit());
    }

    /** The write protocol: begin, the store write (ordering inside it), then commit, or abort if it failed. */
    private <T> Done<T> run(ReplicationMode mode, Function<OrderingOf, T> storeWrite) {
        WriteOrder order = begin(mode);
        T result;
        try {
            result = storeWrite.apply(new OrderingOf(order));
        } catch (RuntimeException e) {
            order.abort();
            throw e;
        }
        return new Done<>(result, order.commit());
    }

    private WriteOrder begin(ReplicationMode mode) {
        NodeRole r = roles.current();
        if (!(r instanceof NodeRole.Primary p)) {
            throw new NotWritableException(
                    "NOTPRIMARY " + roles.peer() + " this node is a backup; write to the primary");
        }
        if (p.writeFence() != null) throw new NotWritableException(p.writeFence());
        return p.writes().beginNow(mode); // commands run on event loops: never wait here
    }

    private record OrderingOf(WriteOrder order) implements Ordering {
        TxId txIdOf(byte[] key, byte[] value) {
            return order.put(key, value);
        }

        @Override
        public Write put(byte[] key, byte[] value) {
            return Write.put(StoredValue.complete(txIdOf(key, value), value));
        }

        @Override
        public Write remove(byte[] key) {
            order.delete(key);
            return Write.remove();
        }

        @Override
        public List<Write> rename(byte[] source, byte[] key, byte[] value) {
            TxId t = order.rename(source, key, value);
            // TODO(expiry): carry the source record's absolute expiry to the new key once records have one
            return List.of(Write.remove(), Write.put(StoredValue.complete(t, value)));
        }
    }
}
