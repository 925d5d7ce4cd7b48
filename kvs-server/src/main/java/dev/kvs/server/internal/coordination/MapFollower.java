package dev.kvs.server.internal.coordination;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.MemberStatus;
import dev.kvs.server.internal.cluster.ClusterLayout;
import dev.kvs.server.internal.cluster.ClusterMember;
import dev.kvs.server.internal.cluster.LatestClusterView;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleChangeException;
import dev.kvs.server.internal.role.RoleMachine;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A coordinated node taking its role and its view of the cluster from the cluster map: at every change of
 * the map or of the members (and every {@link NodeCoordination#PUBLISH_PERIOD_MS} ms, for a node whose
 * role changed meanwhile), it
 *
 * <ul>
 *   <li>publishes a new {@link ClusterLayout} to the RESP port's {@link LatestClusterView}: the map, with
 *       each member's client address and offset from its member znode, or, if the znode is gone, from the
 *       last status seen of it, marked disconnected. While a member of the map was never seen (or there is
 *       no map, or the map does not list this node) the view stays as it was, and {@link
 *       CoordinationStatus.MapView#problem} says why;
 *   <li>promotes this node, a backup, when the map names it its shard's primary at an epoch newer than its
 *       own, <em>with that epoch</em> (a coordinator, or {@code /promote}, moved it by one);
 *   <li>deposes this node, a primary, when the map names another member primary at an epoch not older
 *       than its own.
 * </ul>
 *
 * Called on the coordination's single worker thread only (and by the lease's entitlement, which only reads).
 */
final class MapFollower {
    private static final Logger log = LoggerFactory.getLogger(MapFollower.class);

    private final String nodeId;
    private final String shardId;
    private final RoleMachine roles;
    private final LatestClusterView view;
    private final MemberWatch members;
    private final Supplier<Optional<ClusterMapStore.Versioned>> mapNow;
    private final EpochRecorder recorder;
    private volatile NodeCoordination.Promoter promoter;

    private volatile CoordinationStatus.MapView status =
            new CoordinationStatus.MapView(-1, 0, "", false, "no cluster map in ZooKeeper yet", 0);
    private ClusterMapStore.Versioned layoutMap; // inputs of the last layout, only on the worker
    private Map<String, MemberStatus> layoutMembers;
    private String viewProblem; // why the last inputs gave no layout, or null; only on the worker
    private long promotions; // only on the worker

    MapFollower(
            String nodeId,
            String shardId,
            RoleMachine roles,
            LatestClusterView view,
            MemberWatch members,
            Supplier<Optional<ClusterMapStore.Versioned>> mapNow,
            EpochRecorder recorder) {
        this.nodeId = nodeId;
        this.shardId = shardId;
        this.roles = roles;
        this.view = view;
        this.members = members;
        this.mapNow = mapNow;
        this.recorder = recorder;
    }

    /**
     * Writes into the map that its shard's primary, this node, serves at {@code epoch}, newer than the map
     * says: a restarted primary moves its epoch by one on its own, and its backup adopts it; a coordinator
     * promotes only a backup at the shard's epoch, so the map must follow. Compare-and-set: a promotion
     * written meanwhile wins.
     */
    @FunctionalInterface
    interface EpochRecorder {
        void record(Shard shard, long epoch);
    }

    /** Who promotes this node when the map names it; until set, the map's naming is only shown. */
    void promoteWith(NodeCoordination.Promoter p) {
        this.promoter = p;
    }

    CoordinationStatus.MapView status() {
        return status;
    }

    /** Reads the map and the members as last cached, and follows them. */
    void follow() {
        Optional<ClusterMapStore.Versioned> map = mapNow.get();
        if (map.isEmpty()) return; // the status says so from the start; a deleted map leaves the last view
        Map<String, MemberStatus> live = members.live();
        String problem = updateView(map.get(), live);
        Optional<Shard> mine = map.get().map().shard(shardId);
        if (mine.isEmpty()) {
            problem = "the cluster map has no shard " + shardId;
        } else {
            String refused = followRole(mine.get());
            if (refused != null) problem = refused;
        }
        status = new CoordinationStatus.MapView(
                map.get().version(),
                mine.map(Shard::epoch).orElse(0L),
                mine.map(Shard::primary).orElse(""),
                view.layout() != null,
                problem == null ? "" : problem,
                promotions);
    }

    /** Publishes the layout of {@code map} and {@code live}, if they changed; returns why not, or null. */
    private String updateView(ClusterMapStore.Versioned map, Map<String, MemberStatus> live) {
        if (map.equals(layoutMap) && live.equals(layoutMembers)) return viewProblem;
        layoutMap = map;
        layoutMembers = live;
        try {
            view.update(layout(map.map(), live));
            viewProblem = null;
        } catch (IllegalArgumentException e) {
            log.debug("cluster view not updated: {}", e.getMessage());
            viewProblem = e.getMessage();
        }
        return viewProblem;
    }

    /** The layout of {@code map}, each member's address from its live status, else its last seen one. */
    private ClusterLayout layout(ClusterMap map, Map<String, MemberStatus> live) {
        Map<String, ClusterMember> byName = new HashMap<>();
        for (Shard s : map.shards()) {
            for (String m : s.members()) {
                MemberStatus st = live.get(m);
                if (st == null) st = members.lastSeen(m).orElse(null);
                if (st == null) {
                    throw new IllegalArgumentException("member " + m + " of shard " + s.id()
                            + " was never seen in ZooKeeper: its client address is unknown");
                }
                byName.put(m, member(m, st, live.containsKey(m)));
            }
        }
        if (map.shardWithMember(nodeId).isEmpty()) {
            throw new IllegalArgumentException("this node (" + nodeId + ") is a member of no shard of the map");
        }
        return new ClusterLayout(map, nodeId, byName);
    }

    private static ClusterMember member(String id, MemberStatus s, boolean connected) {
        String address = s.clientAddress();
        int colon = address == null ? -1 : address.lastIndexOf(':');
        if (colon <= 0) throw new IllegalArgumentException("member " + id + " has no client address: " + address);
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) host = host.substring(1, host.length() - 1);
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("member " + id + " has no client port: " + address);
        }
        return new ClusterMember(id, host, port, connected, Math.max(0, s.appliedTxId()));
    }

    /** Promotes or deposes this node as {@code s} says; returns why it could not, or null. */
    private String followRole(Shard s) {
        NodeRole now = roles.current();
        if (!s.primary().equals(nodeId)) {
            deposeIfReplaced(s);
            return null;
        }
        if (now instanceof NodeRole.Primary p) {
            // once its backup confirmed the restarted primary's epoch (the restart fence lifted)
            if (s.epoch() < p.epoch() && p.writeFence() == null) recorder.record(s, p.epoch());
            return null;
        }
        if (s.epoch() <= now.epoch()) {
            return "the map names this node primary at epoch " + s.epoch() + ", not newer than its own " + now.epoch()
                    + ": not promoted";
        }
        NodeCoordination.Promoter p = promoter;
        if (!(now instanceof NodeRole.Backup) || p == null) return null; // a deposed node first hands back
        try {
            long epoch = p.promoteAt(s.epoch());
            promotions++;
            log.warn("the cluster map names this node primary of shard {} at epoch {}: promoted", s.id(), epoch);
            return null;
        } catch (RoleChangeException e) {
            return "promotion by the map refused: " + e.getMessage();
        }
    }

    /**
     * Deposes this node, a primary, if {@code s} names another member primary at an epoch no older than
     * its own: newer, or the same when this primary restarted (moving its epoch by one on its own) after
     * the map had promoted its backup to that very epoch.
     */
    void deposeIfReplaced(Shard s) {
        NodeRole now = roles.current();
        if (s.primary().equals(nodeId) || s.epoch() < now.epoch() || !(now instanceof NodeRole.Primary)) return;
        log.warn(
                "the cluster map names {} primary of shard {} at epoch {}, not older than this primary's {}: deposed",
                s.primary(),
                s.id(),
                s.epoch(),
                now.epoch());
        roles.demote(s.epoch());
    }
}
