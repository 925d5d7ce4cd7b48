package dev.kvs.server.internal.role;

import dev.kvs.replication.BackupNode;
import dev.kvs.replication.Handback;
import dev.kvs.replication.Role;
import dev.kvs.server.config.NodeConfig;
import java.util.function.Supplier;

/**
 * A node as its replication listener sees it ({@link BackupNode}): its cluster, shard and name, whether
 * it is the backup and at what epoch, the epoch it adopts from a newer primary, and, through the failover
 * policy ({@link RoleEvents}), the handback it offers and the handover it is asked for. Reads the role
 * machine's current role on every call.
 */
final class AsBackup implements BackupNode {
    private final RoleMachine roles;
    private final NodeConfig config;

    AsBackup(RoleMachine roles, NodeConfig config) {
        this.roles = roles;
        this.config = config;
    }

    @Override
    public String cluster() {
        return config.cluster();
    }

    @Override
    public String shard() {
        return config.shard();
    }

    @Override
    public String name() {
        return config.name();
    }

    @Override
    public boolean isBackup() {
        return roles.current().role() == Role.BACKUP;
    }

    @Override
    public long epoch() {
        return roles.current().epoch();
    }

    @Override
    public void adoptEpoch(long epoch) {
        roles.adoptEpoch(epoch);
    }

    @Override
    public Handback handback() {
        return roles.events().handback();
    }

    @Override
    public void handover(long epoch) {
        roles.events().handoverRequested(epoch);
    }

    /** Keeps every client command out, READONLY reads included ({@link RoleMachine#readersOut}). */
    @Override
    public <T> T alone(Supplier<T> fn) {
        return roles.readersOut().alone(fn);
    }
}
