package dev.kvs.replication;

import dev.kvs.core.KvsException;
import dev.kvs.core.TxId;

/**
 * The backup's store refuses values (it is full, a value is too large for it, or it fails), so a write
 * in {@code id-first} or {@code sync} mode cannot be confirmed: the write <b>is</b> applied on the
 * primary, and ordered, like one that timed out ({@link ReplicationTimeoutException}), but the client is
 * told at once instead of after the write timeout, or instead of an acknowledgement whose value could
 * not land. The primary keeps the value and retries it; it replicates once the backup's store takes
 * values again (keys deleted on the primary free room on the backup, or a backup restarted with a
 * larger store). {@code async} writes are not refused.
 */
public final class BackupCannotStoreException extends KvsException {
    private final TxId txId;

    public BackupCannotStoreException(TxId txId, String message) {
        super(message);
        this.txId = txId;
    }

    /** The write's TxId. */
    public TxId txId() {
        return txId;
    }
}
