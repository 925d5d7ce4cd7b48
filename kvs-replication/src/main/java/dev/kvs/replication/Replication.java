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

    /**
     * {@link #hasRoom()} for a write whose values are about {@code valueBytes} long: the bound in time
     * ({@link ReplicatorConfig#maxValueLag()}) holds a large value earlier than a small one. This default
     * ignores the size.
     */
    default boolean hasRoom(long valueBytes) {
        return hasRoom();
    }

    /** How long a writer may wait for room before it is refused with BUSY. */
    long writeTimeoutMillis();

    /**
     * A write that found no room ({@link #hasRoom} false) was held by its event loop for {@code waitedNanos},
     * then ran or was refused with BUSY: counted in {@link #status()} ({@link ValueLagStatus#waits()}) if the
     * bound in time held it. Thread-safe; this default counts nothing.
     */
    default void heldForRoom(long waitedNanos) {}

    /** The TxId of the last write ordered. */
    TxId lastTxId();

    /** The current epoch. */
    long epoch();

    /** A snapshot for {@code /status}, {@code INFO replication} and metrics. */
    ReplicatorStatus status();

    @Override
    void close();
}
