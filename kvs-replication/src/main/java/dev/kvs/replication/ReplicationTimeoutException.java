package dev.kvs.replication;

import dev.kvs.core.KvsException;
import dev.kvs.core.TxId;

/**
 * A write was applied on the primary but the backup did not confirm it (key packet in {@code
 * id-first}, value in {@code sync}) within the write timeout. The write stays ordered and will reach
 * the backup when the link heals; the client was not told it is protected.
 */
public final class ReplicationTimeoutException extends KvsException {
    private final TxId txId;

    public ReplicationTimeoutException(TxId txId, String message) {
        super(message);
        this.txId = txId;
    }

    public TxId txId() {
        return txId;
    }
}
