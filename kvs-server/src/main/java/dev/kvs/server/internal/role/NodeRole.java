package dev.kvs.server.internal.role;

import dev.kvs.core.TxId;
import dev.kvs.replication.LocalReplication;
import dev.kvs.replication.Replication;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationServer;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.Role;

/**
 * What a node is now, with everything that role owns. Immutable: a transition of the {@link
 * RoleMachine} replaces it, so a reader sees one consistent role, epoch and replication.
 */
public sealed interface NodeRole permits NodeRole.Primary, NodeRole.Backup, NodeRole.Deposed {
    /** The epoch this node is in. */
    long epoch();

    /** {@link Role#PRIMARY} or {@link Role#BACKUP}, as clients and operators see it. */
    Role role();

    /**
     * The replication listener: a backup's, or the one a promoted primary keeps so that its deposed
     * predecessor can dial in to hand back values; null if none.
     */
    ReplicationServer listener();

    /** The TxId of the last write ordered here; on a backup, the last one received in order. */
    TxId lastTxId();

    /** What this node's replication to a backup is doing ({@code none} unless a replicating primary). */
    ReplicatorStatus replicationStatus();

    /**
     * The primary: it orders writes ({@code local} alone, or {@code link} once it replicates to a
     * backup).
     *
     * @param local ordering without a backup; once a backup is attached it passes every write on to
     *     {@code link}
     * @param link replication to the backup, or null while alone
     * @param listener see {@link NodeRole#listener()}
     * @param writeFence why writes are refused now (a restarted primary waiting for its backup's
     *     confirmation, or a switchover in progress): the error reply, or null
     * @param promoted true if this node became the primary by promotion (its read gate is active)
     */
    record Primary(
            long epoch,
            LocalReplication local,
            ReplicationLink link,
            ReplicationServer listener,
            String writeFence,
            boolean promoted)
            implements NodeRole {
        /** Orders (and, with a backup, replicates) this primary's writes. */
        public Replication writes() {
            return link != null ? link : local;
        }

        @Override
        public Role role() {
            return Role.PRIMARY;
        }

        @Override
        public TxId lastTxId() {
            return writes().lastTxId();
        }

        @Override
        public ReplicatorStatus replicationStatus() {
            return writes().status();
        }

        Primary withFence(String reason) {
            return new Primary(epoch, local, link, listener, reason, promoted);
        }

        Primary withLink(ReplicationLink l) {
            return new Primary(epoch, local, l, listener, writeFence, promoted);
        }
    }

    /**
     * A backup: its listener receives the primary's key and value channels.
     *
     * @param server the replication listener
     */
    record Backup(long epoch, ReplicationServer server) implements NodeRole {
        @Override
        public Role role() {
            return Role.BACKUP;
        }

        @Override
        public ReplicationServer listener() {
            return server;
        }

        @Override
        public TxId lastTxId() {
            return server.status().contiguous();
        }

        @Override
        public ReplicatorStatus replicationStatus() {
            return ReplicatorStatus.none(lastTxId());
        }
    }

    /**
     * A primary that learned of a newer one: it takes no writes, hands back what the new primary lacks
     * (failback), then serves as the backup.
     *
     * @param listener the listener it kept from an earlier promotion, or null
     */
    record Deposed(long epoch, ReplicationServer listener) implements NodeRole {
        @Override
        public Role role() {
            return Role.BACKUP;
        }

        @Override
        public TxId lastTxId() {
            return listener != null ? listener.status().contiguous() : new TxId(epoch, 0);
        }

        @Override
        public ReplicatorStatus replicationStatus() {
            return ReplicatorStatus.none(lastTxId());
        }
    }
}
