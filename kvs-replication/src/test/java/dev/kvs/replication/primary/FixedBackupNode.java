package dev.kvs.replication.primary;

import dev.kvs.replication.BackupNode;

/** A backup node that stays a backup in epoch 1: the node a test's replication server runs for. */
record FixedBackupNode(String cluster, String name) implements BackupNode {
    @Override
    public boolean isBackup() {
        return true;
    }

    @Override
    public long epoch() {
        return 1;
    }

    @Override
    public void adoptEpoch(long epoch) {}
}
