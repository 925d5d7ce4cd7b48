package dev.kvs.server.internal;

import dev.kvs.replication.LocalReplication;
import dev.kvs.replication.Role;
import dev.kvs.replication.backup.BackupNode;
import dev.kvs.replication.backup.Handback;

/** The node as its replication listener sees it. */
public final class NodeAsBackup implements BackupNode {
    private final NodeContext node;

    public NodeAsBackup(NodeContext node) {
        this.node = node;
    }

    @Override
    public String cluster() {
        return node.config().cluster();
    }

    @Override
    public String name() {
        return node.config().name();
    }

    @Override
    public boolean isBackup() {
        return node.role() == Role.BACKUP;
    }

    @Override
    public long epoch() {
        return node.epoch();
    }

    @Override
    public synchronized void adoptEpoch(long epoch) {
        if (epoch > node.epoch()) {
            if (node.epochFile() != null) node.epochFile().write(epoch); // durable before it is used
            node.replication(new LocalReplication(epoch, 0));
        }
    }

    @Override
    public Handback handback() {
        return node.failover().handback();
    }

    @Override
    public void handover(long epoch) {
        node.failover().handover(epoch);
    }
}
