package dev.kvs.server.internal.write;

import dev.kvs.replication.WriteOrder;

/**
 * A client connection's last write that ordered a TxId: what {@code WAIT} waits for the backup to
 * confirm. The connection names it in each of its writes ({@link Writes}), which keep their order here
 * once committed; a write that ordered nothing ({@code SETNX} of a present key) leaves the one before.
 * Confined to the connection's event loop.
 */
public final class LastWrite {
    /** For the node's own writes (failover's resolutions, active expiry): kept for no one. */
    public static final LastWrite NONE = new LastWrite();

    private WriteOrder order;

    /**
     * The order of the last write that ordered a TxId, or {@code null} if none has. Its {@link
     * WriteOrder#confirmed()} says when the backup confirmed it.
     */
    public WriteOrder order() {
        return order;
    }

    void keep(WriteOrder order) {
        if (this != NONE) this.order = order;
    }
}
