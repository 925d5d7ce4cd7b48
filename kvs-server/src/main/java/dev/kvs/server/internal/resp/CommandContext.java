package dev.kvs.server.internal.resp;

import dev.kvs.core.KvStore;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AdminPortStats;
import dev.kvs.server.internal.NodeMetrics;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.expiry.LiveReads;
import dev.kvs.server.internal.failover.Failover;
import dev.kvs.server.internal.notify.KeyEvents;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.role.RoleMachine;
import dev.kvs.server.internal.write.StructureWrites;
import dev.kvs.server.internal.write.Writes;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What the RESP port's commands work with, each collaborator named: the node builds it ({@code
 * KvsNode}, the composition root) and hands it to {@link RespServer}, which hands it to each command
 * group. Nothing else reaches the node. Thread-safe as its parts are.
 *
 * @param config the node's settings (limits, users, peer, replication mode)
 * @param store the store, for metadata and diagnostics (commands read data through {@code reads})
 * @param reads the store as commands read it: expired keys are absent
 * @param writes the one way a command writes
 * @param roles the node's role and epoch, and the read gate of a promoted primary
 * @param failover promotion ({@code KVS.PROMOTE}) and the failback state ({@code INFO})
 * @param metrics the node's metrics: connections, errors, per-command figures
 * @param adminPort what the admin port's guards refused ({@code INFO stats})
 * @param expiredKeys keys removed by active expiry ({@code INFO}'s {@code expired_keys})
 * @param clientIds the next client id, for {@code CLIENT ID}
 * @param shutdown starts stopping the node as SIGTERM does ({@code SHUTDOWN}), returning at once; null if
 *     this node cannot be stopped so (a test's)
 * @param cluster the cluster's layout as this node answers for it ({@code -MOVED}, {@code CLUSTER});
 *     {@link ClusterView#NONE} unless clustering is on
 * @param events the node's keyspace notifications, which every write command emits
 */
public record CommandContext(
        NodeConfig config,
        KvStore store,
        LiveReads reads,
        Writes writes,
        RoleMachine roles,
        Failover failover,
        NodeMetrics metrics,
        AdminPortStats adminPort,
        AtomicLong expiredKeys,
        LongSupplier clientIds,
        Runnable shutdown,
        ClusterView cluster,
        KeyEvents events) {

    /** The node's role now. */
    public Role role() {
        return roles.current().role();
    }

    /** The node's default replication mode (a client may choose its own with {@code KVS.MODE}). */
    public ReplicationMode mode() {
        return config.mode();
    }

    /** The replication mode of {@code s}'s writes: its {@code KVS.MODE}, else the node's. */
    ReplicationMode mode(Session s) {
        return s.mode != null ? s.mode : config.mode();
    }

    /** The writes of hashes and sets, by {@link #writes}' protocol (a command group keeps one). */
    StructureWrites structures() {
        return new StructureWrites(store, writes);
    }

    /** Fences unfinished and lost keys after promotion. */
    ReadGate gate() {
        return roles.gate();
    }

    /**
     * The gate data commands pass now: on a backup, one over its unfinished-key queue (for {@code
     * READONLY} reads); otherwise {@link #gate()}.
     */
    ReadGate readGate() {
        return roles.current() instanceof NodeRole.Backup b ? roles.backupGate(b) : roles.gate();
    }

    /** True if {@code SHUTDOWN} can stop this node. */
    boolean canShutdown() {
        return shutdown != null;
    }

    /** How long the node has run, for {@code INFO}. */
    long uptimeSeconds() {
        return (System.currentTimeMillis() - metrics.startedAtMillis()) / 1000;
    }
}
