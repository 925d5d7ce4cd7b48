package dev.kvs.replication;

import dev.kvs.core.KvsException;

/**
 * A replication bound (unacknowledged key packets, un-shipped values) stayed full for the whole write
 * timeout: the write was refused before it was ordered, so nothing was written. Retry later; the
 * backup is slow or unreachable.
 */
public final class ReplicationBusyException extends KvsException {
    public ReplicationBusyException(String message) {
        super(message);
    }
}
