package dev.kvs.server.internal.coordination;

import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.Coordinator;
import dev.kvs.coordination.Lease;
import dev.kvs.coordination.MemberNode;
import dev.kvs.coordination.MemberStatus;
import dev.kvs.coordination.ZkClients;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.replication.BackupStatus;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.cluster.ClusterView;
import dev.kvs.server.internal.cluster.LatestClusterView;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;
import dev.kvs.server.internal.role.ServingLease;
import dev.kvs.server.internal.role.Successor;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
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
 *   <li>The node follows the map ({@link MapFollower}): it answers {@code CLUSTER} and {@code -MOVED} by
 *       the map and the members' znodes ({@link #view()}); a map that names another member primary at an
 *       epoch not older than this node's deposes it, as {@code /demote} does, whether the lease holds or not;
 *       a map that names this backup primary at a newer epoch promotes it with that epoch.
 *   <li>A {@link Coordinator} runs in every node; the one that leads writes the map when a shard's
 *       primary is gone and its backup may take over.
 * </ul>
 *
 * <p>If ZooKeeper cannot be reached, the lease lapses and a primary stops serving: ZooKeeper is then a
 * dependency of the primary's writes and reads (docs/operations.md). Thread-safe.
 */
public final class NodeCoordination implements ServingLease, AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(NodeCoordination.class);

    /**
     * How long closing waits for ZooKeeper to delete the member znode and close the session: two round
     * trips, milliseconds on a healthy ensemble even across sites, yet a second leaves room for a loaded
     * machine. A node cut off from ZooKeeper would otherwise wait for its client's retries and connection
     * timeouts (10 s at a 1.5 s session, 31 s at the default 6 s, measured through a paused link).
     */
    static final Duration CLOSE_GRACE = Duration.ofSeconds(1);

    /** How often the member status is compared with what was published. */
    static final long PUBLISH_PERIOD_MS = 250;

    /** Makes this node, a backup, the primary of the epoch the map names it primary in. */
    @FunctionalInterface
    public interface Promoter {
        /**
         * @return the epoch it is now the primary of
         * @throws dev.kvs.server.internal.role.RoleChangeException if it cannot be promoted
         */
        long promoteAt(long epoch);
    }

    private final CoordinationConfig settings;
    private final RoleMachine roles;
    private final String nodeId;
    private final ZkPaths paths;
    private final CuratorFramework zk;
    private final ClusterMapStore maps;
    private final ScheduledExecutorService worker;
    private final LatestClusterView view;
    private final MemberWatch members;
    private final CuratorCache mapWatch;
    private final MapFollower follower;
    private final Coordinator coordinator;
    private volatile MapPromotion promotion;
    private final MapSwitchover switchover;

    private volatile Lease lease;
    private MemberNode member; // guarded by this
    private boolean started; // guarded by this
    private MemberStatus published; // only on the worker
    private long streamingEpoch = -1; // only on the worker: the epoch a backup was seen streaming in

    /** Connects to ZooKeeper in the background; nothing is published before {@link #start}. */
    public NodeCoordination(NodeConfig config, RoleMachine roles) {
        this.settings = config.coordination().orElseThrow();
        this.roles = roles;
        this.nodeId = config.nodeId();
        this.view = new LatestClusterView(nodeId);
        this.paths = new ZkPaths(config.cluster());
        this.zk = ZkClients.start(
                new ZkClients.Settings(settings.zookeeper(), settings.sessionTimeout(), settings.credentials()));
        this.maps = new ClusterMapStore(zk, paths);
        this.worker = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kvs-coordination " + config.name());
            t.setDaemon(true);
            return t;
        });
        this.members = new MemberWatch(zk, paths, () -> onWorker(this::follow));
        this.mapWatch = CuratorCache.build(zk, paths.map(), CuratorCache.Options.SINGLE_NODE_CACHE);
        this.follower =
                new MapFollower(nodeId, settings.shard(), roles, view, members, this::cachedMap, this::recordEpoch);
        this.coordinator = new Coordinator(zk, paths, coordinatorInterval(settings));
        this.switchover = new MapSwitchover(maps, nodeId, settings.shard());
    }

    /** How often a leading coordinator runs a round when no member changed: a third of the session. */
    static Duration coordinatorInterval(CoordinationConfig settings) {
        return settings.sessionTimeout().dividedBy(3);
    }

    /**
     * The cluster as the RESP port answers for it: before the first map whose members this node has all
     * seen, a cluster node with no slots; then the latest layout.
     */
    public ClusterView view() {
        return view;
    }

    /**
     * Creates the member znode (waiting up to a session timeout for it, then going on: Curator keeps
     * trying), starts the lease, the map watch and the status publisher.
     *
     * @param clientAddress the node's client address as clients reach it
     * @param replicationAddress its replication address
     */
    public synchronized void start(String clientAddress, String replicationAddress, Promoter promoter)
            throws Exception {
        Promoter promote = epoch -> {
            long now = promoter.promoteAt(epoch);
            Lease l = lease;
            if (l != null) l.renewSoon(); // the map names it: its lease holds after one round trip
            return now;
        };
        view.clientPort(clientPort(clientAddress));
        follower.promoteWith(promote);
        promotion = new MapPromotion(zk, paths, nodeId, settings.shard(), roles, promote);
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
        mapWatch.listenable().addListener((type, before, after) -> onWorker(this::follow));
        mapWatch.start();
        members.start();
        coordinator.start();
        started = true;
        worker.scheduleWithFixedDelay(
                () -> {
                    publish(clientAddress, replicationAddress);
                    follow();
                },
                PUBLISH_PERIOD_MS,
                PUBLISH_PERIOD_MS,
                TimeUnit.MILLISECONDS);
    }

    /** The port of {@code host:port}, or 0 if it has none. */
    private static int clientPort(String address) {
        try {
            return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
        } catch (NumberFormatException e) {
            return 0;
        }
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
        return status().infoFields();
    }

    /**
     * {@code POST /promote} on this node: through the cluster map.
     *
     * @throws IllegalStateException before {@link #start}
     */
    public MapPromotion promotion() {
        MapPromotion p = promotion;
        if (p == null) throw new IllegalStateException("not started");
        return p;
    }

    /** A switchover on this node, the primary: it names the backup in the map before stepping down. */
    public Successor switchover() {
        return switchover;
    }

    public String nodeId() {
        return nodeId;
    }

    public CoordinationStatus status() {
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
        CoordinationStatus.CoordinatorStatus c = new CoordinationStatus.CoordinatorStatus(
                coordinator.isLeader(), coordinator.rounds(), coordinator.promotions(), coordinator.conflicts());
        return new CoordinationStatus(
                nodeId,
                settings.shard(),
                settings.dc(),
                connected,
                Long.toHexString(session),
                leaseNow,
                alarm,
                follower.status(),
                c);
    }

    /**
     * The lease's entitlement, rechecked after a lapse: the map names this node its shard's primary, at
     * an epoch no newer than the node's. A map naming another member at an epoch not older than the node's deposes it.
     */
    private boolean entitled() throws Exception {
        Optional<Shard> shard = myShard();
        if (shard.isEmpty()) return false;
        Shard s = shard.get();
        if (!s.primary().equals(nodeId)) {
            follower.deposeIfReplaced(s);
            return false;
        }
        return s.epoch() <= roles.current().epoch();
    }

    private Optional<Shard> myShard() throws Exception {
        return maps.read().flatMap(v -> v.map().shard(settings.shard()));
    }

    /** The map as the watch last saw it, or empty. */
    private Optional<ClusterMapStore.Versioned> cachedMap() {
        Optional<ChildData> data = mapWatch.get(paths.map());
        if (data.isEmpty() || data.get().getData() == null || data.get().getStat() == null) return Optional.empty();
        try {
            return Optional.of(ClusterMapStore.decode(
                    data.get().getData(), data.get().getStat().getVersion()));
        } catch (Exception e) {
            // the follower's status says there is no usable map; read every 250 ms: not logged each time
            log.debug("the cluster map in {} is not a valid map: {}", paths.map(), e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * Whether the cluster map names another member its shard's primary: read once before the node starts
     * (waiting up to a session timeout for ZooKeeper), so that a primary that was replaced while it was
     * down does not move its epoch past the map's on restart. False if there is no map or it cannot be
     * read: the node then starts as it would without coordination, and the map's watch deposes it later.
     */
    public boolean replaced() {
        try {
            if (!zk.blockUntilConnected((int) settings.sessionTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            return myShard().map(s -> !s.primary().equals(nodeId)).orElse(false);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (Exception e) {
            log.debug("cluster map not read before start", e);
            return false;
        }
    }

    /** See {@link MapFollower.EpochRecorder}; on the worker. */
    private void recordEpoch(Shard named, long epoch) {
        try {
            Optional<ClusterMapStore.Versioned> now = maps.read();
            if (now.isEmpty()) return;
            Optional<Shard> s = now.get().map().shard(named.id());
            if (s.isEmpty() || !s.get().primary().equals(nodeId) || s.get().epoch() >= epoch) return;
            Shard next = new Shard(s.get().id(), s.get().slots(), s.get().members(), nodeId, epoch);
            if (maps.compareAndSet(now.get(), now.get().map().with(next))) {
                log.info(
                        "the cluster map now says this primary of shard {} serves at epoch {} (it said {})",
                        named.id(),
                        epoch,
                        s.get().epoch());
            }
        } catch (Exception e) {
            log.debug("this primary's epoch not recorded in the cluster map", e);
        }
    }

    /** Follows the map and the members (on the worker). */
    private void follow() {
        try {
            follower.follow();
        } catch (RuntimeException e) {
            log.warn("following the cluster map failed", e);
        }
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
                replicationAddress,
                settings.dc());
    }

    private void onWorker(Runnable task) {
        try {
            worker.execute(task);
        } catch (RejectedExecutionException closed) {
            // closing
        }
    }

    /**
     * Stops the publisher, the watch and the lease, deletes the member znode if it can, and disconnects,
     * giving ZooKeeper at most {@link #CLOSE_GRACE} for the last two: a node cut off from it closes all the
     * same. The lease is revoked first, so the node has stopped serving before it talks to ZooKeeper; a
     * member znode left behind goes when ZooKeeper expires the session, as a dead node's does.
     */
    @Override
    public void close() {
        worker.shutdownNow();
        MemberNode m;
        synchronized (this) {
            if (started) {
                coordinator.close();
                members.close();
                mapWatch.close();
            }
            Lease l = lease;
            if (l != null) l.close();
            m = member;
        }
        if (!ZkClients.closeWithin(zk, CLOSE_GRACE, () -> {
            if (m != null) m.close();
        })) {
            log.warn(
                    "closed without waiting for ZooKeeper: {} did not answer within {} ms; member znode {} goes when ZooKeeper ends the session",
                    settings.zookeeper(),
                    CLOSE_GRACE.toMillis(),
                    paths.member(nodeId));
        }
    }
}
