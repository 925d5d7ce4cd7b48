package dev.kvs.server.internal.coordination;

import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.Lease;
import dev.kvs.coordination.MemberNode;
import dev.kvs.coordination.MemberStatus;
import dev.kvs.coordination.ZkClients;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.replication.BackupStatus;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;
import dev.kvs.server.internal.role.ServingLease;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node of a cluster coordinated on ZooKeeper: its session, its member znode, its lease and its watch
 * on the cluster map. Created with the node and started once its ports are bound.
 *
 * <ul>
 *   <li>The member znode ({@link MemberNode}) carries the node's {@link MemberStatus}, checked every
 *       {@link #PUBLISH_PERIOD_MS} ms and rewritten only when it changed: role and link changes reach
 *       ZooKeeper within that period, at most that often.
 *   <li>The {@link Lease} is proven by that znode. It is granted again after a lapse only if the map
 *       names this node its shard's primary at an epoch no newer than the node's (a restarted primary
 *       moves its epoch by one on its own, so the map's epoch is a floor).
 *   <li>A map that names another member primary at an epoch newer than this node's deposes it, as
 *       {@code /demote} does, whether the lease holds or not.
 * </ul>
 *
 * <p>If ZooKeeper cannot be reached, the lease lapses and a primary stops serving: ZooKeeper is then a
 * dependency of the primary's writes and reads (docs/operations.md). Thread-safe.
 */
public final class NodeCoordination implements ServingLease, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeCoordination.class);

    /** How often the member status is compared with what was published. */
    static final long PUBLISH_PERIOD_MS = 250;

    /**
     * What {@code /status} shows.
     *
     * @param node this node's id, its member znode's name
     * @param shard the shard it is a member of
     * @param connected whether its ZooKeeper session is connected now
     * @param sessionId the session's id in hex ({@code 0} before the first connection)
     * @param lease the lease: held, millis left, renewals, revocations, last revocation
     * @param alarm true while this node is the primary and its lease does not hold: it refuses every
     *     data command ({@code -CLUSTERDOWN})
     */
    public record Status(
            String node, String shard, boolean connected, String sessionId, Lease.Status lease, boolean alarm) {}

    private final CoordinationConfig settings;
    private final RoleMachine roles;
    private final String nodeId;
    private final ZkPaths paths;
    private final CuratorFramework zk;
    private final ClusterMapStore maps;
    private final ScheduledExecutorService worker;

    private volatile Lease lease;
    private MemberNode member; // guarded by this
    private CuratorCache mapWatch; // guarded by this
    private MemberStatus published; // only on the worker
    private long streamingEpoch = -1; // only on the worker: the epoch a backup was seen streaming in

    /** Connects to ZooKeeper in the background; nothing is published before {@link #start}. */
    public NodeCoordination(NodeConfig config, RoleMachine roles) {
        this.settings = config.coordination().orElseThrow();
        this.roles = roles;
        this.nodeId = config.nodeId();
        this.paths = new ZkPaths(config.cluster());
        this.zk = ZkClients.start(
                new ZkClients.Settings(settings.zookeeper(), settings.sessionTimeout(), settings.credentials()));
        this.maps = new ClusterMapStore(zk, paths);
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kvs-coordination " + config.name());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Creates the member znode (waiting up to a session timeout for it, then going on: Curator keeps
     * trying), starts the lease, the map watch and the status publisher.
     *
     * @param clientAddress the node's client address as clients reach it
     * @param replicationAddress its replication address
     */
    public synchronized void start(String clientAddress, String replicationAddress) throws Exception {
        MemberStatus first = status(clientAddress, replicationAddress);
        member = new MemberNode(zk, paths, first);
        if (!member.start(settings.sessionTimeout().toMillis())) {
            log.warn(
                    "member znode {} not created within {} ms: ZooKeeper {} unreachable? a primary serves once it is",
                    member.path(),
                    settings.sessionTimeout().toMillis(),
                    settings.zookeeper());
        }
        published = first;
        Lease l = new Lease(zk, member.path(), settings.sessionTimeout(), this::entitled);
        lease = l;
        l.start();
        mapWatch = CuratorCache.build(zk, paths.map(), CuratorCache.Options.SINGLE_NODE_CACHE);
        mapWatch.listenable().addListener((type, before, after) -> onWorker(this::checkMap));
        mapWatch.start();
        worker.scheduleWithFixedDelay(
                () -> publish(clientAddress, replicationAddress),
                PUBLISH_PERIOD_MS,
                PUBLISH_PERIOD_MS,
                TimeUnit.MILLISECONDS);
    }

    /** Whether this node, if it is the primary, may serve now: its lease holds. */
    @Override
    public boolean held() {
        Lease l = lease;
        return l != null && l.held();
    }

    /** The lease and session in {@code INFO replication}; {@code kvs_lease_alarm:1} is the alarm. */
    @Override
    public Map<String, Object> infoFields() {
        Status s = status();
        Map<String, Object> f = new LinkedHashMap<>();
        f.put("kvs_coordination_node_id", s.node());
        f.put("kvs_coordination_shard", s.shard());
        f.put("kvs_coordination_connected", s.connected() ? 1 : 0);
        f.put("kvs_coordination_session_id", s.sessionId());
        f.put("kvs_lease_held", s.lease().held() ? 1 : 0);
        f.put("kvs_lease_millis_left", s.lease().millisLeft());
        f.put("kvs_lease_renewals", s.lease().renewals());
        f.put("kvs_lease_failed_renewals", s.lease().failedRenewals());
        f.put("kvs_lease_revocations", s.lease().revocations());
        f.put("kvs_lease_last_revocation", s.lease().lastRevocation());
        f.put("kvs_lease_alarm", s.alarm() ? 1 : 0);
        return f;
    }

    public String nodeId() {
        return nodeId;
    }

    public Status status() {
        Lease l = lease;
        boolean connected = zk.getZookeeperClient().isConnected();
        long session = 0;
        try {
            session = connected ? zk.getZookeeperClient().getZooKeeper().getSessionId() : 0;
        } catch (Exception e) {
            // not connected after all: 0
        }
        Lease.Status leaseNow = l == null ? new Lease.Status(false, 0, 0, 0, 0, "") : l.status();
        boolean alarm = roles.current() instanceof NodeRole.Primary && !leaseNow.held();
        return new Status(nodeId, settings.shard(), connected, Long.toHexString(session), leaseNow, alarm);
    }

    /**
     * The lease's entitlement, rechecked after a lapse: the map names this node its shard's primary, at
     * an epoch no newer than the node's. A map naming another member at a newer epoch deposes it.
     */
    private boolean entitled() throws Exception {
        Optional<Shard> shard = myShard();
        if (shard.isEmpty()) return false;
        Shard s = shard.get();
        if (!s.primary().equals(nodeId)) {
            deposeIfNewer(s);
            return false;
        }
        return s.epoch() <= roles.current().epoch();
    }

    private Optional<Shard> myShard() throws Exception {
        return maps.read().flatMap(v -> v.map().shard(settings.shard()));
    }

    private void checkMap() {
        try {
            myShard().ifPresent(this::deposeIfNewer);
        } catch (Exception e) {
            log.debug("cluster map not read", e);
        }
    }

    private void deposeIfNewer(Shard s) {
        NodeRole now = roles.current();
        if (s.primary().equals(nodeId) || s.epoch() <= now.epoch() || !(now instanceof NodeRole.Primary)) return;
        log.warn(
                "the cluster map names {} primary of shard {} at epoch {}, newer than this primary's {}: deposed",
                s.primary(),
                s.id(),
                s.epoch(),
                now.epoch());
        roles.demote(s.epoch());
    }

    private void publish(String clientAddress, String replicationAddress) {
        MemberStatus now = status(clientAddress, replicationAddress);
        if (now.equals(published)) return;
        try {
            MemberNode m;
            synchronized (this) {
                m = member;
            }
            m.update(now);
            published = now;
        } catch (Exception e) {
            log.debug("member status not published", e);
        }
    }

    /** What the member znode says about this node now. */
    private MemberStatus status(String clientAddress, String replicationAddress) {
        NodeRole r = roles.current();
        boolean resyncing = false;
        boolean streaming = false;
        if (r instanceof NodeRole.Backup b) {
            BackupStatus s = b.server().status();
            resyncing = s.resyncing();
            if (s.keyChannelConnected() && !resyncing) streamingEpoch = r.epoch();
            // stays true once the link drops: that is when the backup may be promoted
            streaming = streamingEpoch == r.epoch() && !resyncing;
        }
        String role = r instanceof NodeRole.Primary ? "primary" : r instanceof NodeRole.Backup ? "backup" : "deposed";
        return new MemberStatus(
                nodeId,
                settings.shard(),
                role,
                r.epoch(),
                streaming,
                resyncing,
                r.lastTxId().seq(),
                clientAddress,
                replicationAddress);
    }

    private void onWorker(Runnable task) {
        try {
            worker.execute(task);
        } catch (RejectedExecutionException closed) {
            // closing
        }
    }

    /** Stops the publisher, the watch and the lease, deletes the member znode if it can, and disconnects. */
    @Override
    public void close() {
        worker.shutdownNow();
        synchronized (this) {
            if (mapWatch != null) mapWatch.close();
            Lease l = lease;
            if (l != null) l.close();
            if (member != null) member.close();
        }
        zk.close();
    }
}
