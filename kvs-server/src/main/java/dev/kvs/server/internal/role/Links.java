package dev.kvs.server.internal.role;

import dev.kvs.replication.BackupNode;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationServer;
import java.util.function.LongConsumer;

/**
 * How the {@link RoleMachine} reaches the other node: it builds the replication to a backup and the
 * listener a backup runs. Only the machine calls these.
 */
public interface Links {
    /** True if a peer is configured (a primary replicates to it; a demoted node hands back to it). */
    boolean hasPeer();

    /**
     * Starts replicating to the peer in {@code epoch}, after {@code lastSeq}; it connects in the
     * background and keeps reconnecting.
     *
     * @param onStaleEpoch called (on an I/O thread) when the peer reports a newer epoch
     * @param onConfirmed called (on an I/O thread) at every handshake in which the peer accepts this
     *     node as its primary
     */
    ReplicationLink replicate(long epoch, long lastSeq, LongConsumer onStaleEpoch, Runnable onConfirmed);

    /** Starts the replication listener of a backup that {@code node} describes. */
    ReplicationServer listen(BackupNode node);
}
