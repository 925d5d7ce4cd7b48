package dev.kvs.replication;

import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame.Op;
import java.util.concurrent.CompletableFuture;

/**
 * The ordering of one client command's writes. A command calls {@link #order} for each key it writes,
 * inside the store's lock for that key (so per key, TxId order is store order), then exactly one of
 * {@link #commit()} (the store write succeeded) or {@link #abort()} (it failed: the TxIds are
 * announced as skipped so the sequence stays gap-free). Not thread-safe: one per command.
 */
public interface WriteOrder {
    /**
     * Assigns the next TxId to a write of {@code key}.
     *
     * @param value the value written, or {@code null} for a delete
     */
    TxId order(Op op, byte[] key, byte[] value);

    /**
     * The writes are in the store. The future completes when the command may be answered in its
     * replication mode, or fails with {@link ReplicationTimeoutException}.
     */
    CompletableFuture<Void> commit();

    /** The store write failed; nothing was written. */
    void abort();
}
