package dev.kvs.server.internal;

import dev.kvs.core.KvStore;
import dev.kvs.core.TxId;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.expiry.LiveReads;
import dev.kvs.server.internal.failover.Failover;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.ReadGate;
import dev.kvs.server.internal.role.RoleMachine;
import dev.kvs.server.internal.write.Writes;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A node's parts for unit tests of one part (a RESP port, the admin port, metrics) without a whole
 * {@code KvsNode}: configuration, store, the role machine, the write path, failover policy, metrics,
 * and the node's shared counters and shutdown. Production code never sees it: {@code KvsNode} hands each
 * part the few others it uses. Read-only: role and epoch change only through {@link #roles()}.
 * Thread-safe.
 */
public final class NodeContext {
    private final NodeConfig config;
    private final KvStore store;
    private final RoleMachine roles;
    private final Writes writes;
    private final Failover failover;
    private final NodeMetrics metrics;
    private final LiveReads reads;
    private final AdminPortStats adminPort;
    private final AtomicLong expiredKeys;
    private final ClientIds clientIds;
    /** Stops the node; null: cannot (a node assembled by a test). */
    private volatile Runnable shutdown;

    /**
     * A context with counters of its own, whose admin port figures are registered with {@code metrics},
     * and no way to stop its node until {@link #onShutdown} gives one (tests of one server).
     */
    public NodeContext(
            NodeConfig config,
            KvStore store,
            RoleMachine roles,
            Writes writes,
            Failover failover,
            NodeMetrics metrics) {
        this(
                config,
                store,
                roles,
                writes,
                failover,
                metrics,
                new AdminPortStats(),
                new AtomicLong(),
                new ClientIds(),
                null);
        metrics.adminPort(adminPort);
    }

    /**
     * A context over the node's own parts.
     *
     * @param adminPort what the admin port's guards did ({@code INFO stats})
     * @param expiredKeys keys removed by active expiry ({@code INFO}'s {@code expired_keys})
     * @param clientIds ids of client connections
     * @param shutdown how {@code SHUTDOWN} stops the node
     */
    public NodeContext(
            NodeConfig config,
            KvStore store,
            RoleMachine roles,
            Writes writes,
            Failover failover,
            NodeMetrics metrics,
            AdminPortStats adminPort,
            AtomicLong expiredKeys,
            ClientIds clientIds,
            Runnable shutdown) {
        this.config = config;
        this.store = store;
        this.roles = roles;
        this.writes = writes;
        this.failover = failover;
        this.metrics = metrics;
        this.reads = new LiveReads(store, writes.clock());
        this.adminPort = adminPort;
        this.expiredKeys = expiredKeys;
        this.clientIds = clientIds;
        this.shutdown = shutdown;
    }

    /** What the admin port's guards refused and closed. */
    public AdminPortStats adminPort() {
        return adminPort;
    }

    /** The store as commands read it: expired keys are absent (lazy expiry). */
    public LiveReads reads() {
        return reads;
    }

    /** The node's wall clock, what TTLs are computed and checked with (the one of {@link #writes()}). */
    public java.time.Clock clock() {
        return writes.clock();
    }

    /**
     * Sets how {@link #requestShutdown()} stops the node: the same clean stop as SIGTERM (a node hands
     * its stop to the constructor instead).
     */
    public void onShutdown(Runnable shutdown) {
        this.shutdown = shutdown;
    }

    /** True if {@link #requestShutdown()} can stop the node. */
    public boolean canShutdown() {
        return shutdown != null;
    }

    /**
     * Starts stopping the node, as SIGTERM does ({@code SHUTDOWN}); returns at once.
     *
     * @return false if this context has no way to stop its node (a test context)
     */
    public boolean requestShutdown() {
        Runnable stop = shutdown;
        if (stop == null) return false;
        stop.run();
        return true;
    }

    public NodeConfig config() {
        return config;
    }

    public KvStore store() {
        return store;
    }

    public NodeMetrics metrics() {
        return metrics;
    }

    /** The node's role and epoch, and their transitions. */
    public RoleMachine roles() {
        return roles;
    }

    /** The one way commands write. */
    public Writes writes() {
        return writes;
    }

    /** Promotion, declaring loss, resolving keys, switchover, failback. */
    public Failover failover() {
        return failover;
    }

    public Role role() {
        return roles.current().role();
    }

    public long epoch() {
        return roles.current().epoch();
    }

    /** The node's default replication mode (a client may choose its own with {@code KVS.MODE}). */
    public ReplicationMode mode() {
        return config.mode();
    }

    /** Fences unfinished and lost keys after promotion. */
    public ReadGate gate() {
        return roles.gate();
    }

    /**
     * The gate data commands pass now: on a backup, one over its unfinished-key queue (for {@code
     * READONLY} reads); otherwise {@link #gate()}.
     */
    public ReadGate readGate() {
        return roles.current() instanceof NodeRole.Backup b ? roles.backupGate(b) : roles.gate();
    }

    /** The TxId of the last write ordered by this node; on a backup, the last one received in order. */
    public TxId lastTxId() {
        return roles.current().lastTxId();
    }

    /** Keys removed by active expiry (INFO's {@code expired_keys}). */
    public AtomicLong expiredKeys() {
        return expiredKeys;
    }

    /** Next client id, for {@code CLIENT ID}. */
    public long nextClientId() {
        return clientIds.next();
    }

    public long startedAtMillis() {
        return metrics.startedAtMillis();
    }

    public long uptimeSeconds() {
        return metrics.uptimeSeconds();
    }

    /** The node's status now, as {@code /status} and {@code INFO} read it. */
    public NodeStatus status() {
        return NodeStatus.of(config, store, roles, failover, metrics, adminPort);
    }
}
