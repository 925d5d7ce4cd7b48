package dev.kvs.replication;

import dev.kvs.core.TxId;
import java.util.concurrent.CompletableFuture;

/**
 * The ordering of one client command's writes. A command calls {@link #put} or {@link #delete} for each key it writes,
 * inside the store's lock for that key (so per key, TxId order is store order), then exactly one of
 * {@link #commit()} (the store write succeeded) or {@link #abort()} (it failed: the TxIds are
 * announced as skipped so the sequence stays gap-free). Not thread-safe: one per command.
 */
public interface WriteOrder {
    /** Assigns the next TxId to a write of {@code value} to {@code key}. */
    TxId put(byte[] key, byte[] value);

    /** Assigns the next TxId to the deletion of {@code key} (replicated as a tombstone). */
    TxId delete(byte[] key);

    /**
     * Assigns the next TxId to a flush of the whole store (FLUSHDB): every key written before it is
     * gone, every later write stays. Call it while holding every key's lock ({@code KvStore.exclusive}),
     * so no write ordered before it is still on its way to the store. Replicated as a key packet in
     * every mode, {@code async} included.
     */
    TxId flush();

    /**
     * Assigns one TxId to the rename of {@code source} to {@code key} (RENAME): {@code source} is
     * deleted and {@code key} gets {@code value}, both at that TxId, under both keys' locks. The backup
     * sees both or neither.
     */
    TxId rename(byte[] source, byte[] key, byte[] value);

    /**
     * The writes are in the store. The future completes when the command may be answered in its
     * replication mode, or fails with {@link ReplicationTimeoutException}.
     */
    CompletableFuture<Void> commit();

    /** The store write failed; nothing was written. */
    void abort();
}
