package dev.kvs.replication;

import dev.kvs.core.TxId;

/** Orders a node's writes and, on a primary with a peer, replicates them. Thread-safe. */
public interface Replication extends AutoCloseable {
    /**
     * Starts ordering one command's writes in {@code mode}. Waits up to the write timeout for room when
     * a replication bound is full.
     *
     * @throws ReplicationBusyException if the bound stayed full; nothing was ordered
     */
    WriteOrder begin(ReplicationMode mode);

    /**
     * Like {@link #begin}, but never waits for room: when a replication bound is full it refuses at
     * once. For event loops, which must not block: they hold the command and retry instead.
     *
     * @throws ReplicationBusyException if a bound is full; nothing was ordered
     */
    default WriteOrder beginNow(ReplicationMode mode) {
        if (!hasRoom()) {
            throw new ReplicationBusyException(
                    "replication to the backup is at its bounds (unacknowledged keys or unshipped values);"
                            + " nothing was written");
        }
        return begin(mode);
    }

    /**
     * True if {@link #begin} would not wait now. Event loops check this first and hold the connection's
     * next command instead of blocking (see the RESP handler).
     */
    boolean hasRoom();

    /** How long a writer may wait for room before it is refused with BUSY. */
    long writeTimeoutMillis();

    /** The TxId of the last write ordered. */
    TxId lastTxId();

    /** The current epoch. */
    long epoch();

    /** A snapshot for {@code /status}, {@code INFO replication} and metrics. */
    ReplicatorStatus status();

    @Override
    void close();
}
