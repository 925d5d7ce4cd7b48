package dev.kvs.server.internal.coordination;

import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleChangeException;
import dev.kvs.server.internal.role.RoleMachine;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's {@code POST /promote} on a coordinated node: it goes through the cluster map. The map is
 * changed by compare-and-set to name this node its shard's primary at the next epoch, and the node then
 * promotes itself with that epoch, as when a coordinator writes the map ({@link MapFollower}).
 *
 * <p>Refused while the shard's primary still has its member znode: its session is alive, so its lease may
 * hold and it may still acknowledge writes; promoting now could give the shard two primaries. The operator
 * waits until ZooKeeper expires that session (at most the session timeout after the primary was cut off:
 * by then a coordinator has usually promoted this node already), or forces it, knowing the old primary is
 * stopped. A forced promotion still deposes a live old primary as soon as it reads the new map. Thread-safe.
 */
public final class MapPromotion {
    private static final Logger log = LoggerFactory.getLogger(MapPromotion.class);

    private final CuratorFramework zk;
    private final ZkPaths paths;
    private final ClusterMapStore maps;
    private final String nodeId;
    private final String shardId;
    private final RoleMachine roles;
    private final NodeCoordination.Promoter promoter;

    MapPromotion(
            CuratorFramework zk,
            ZkPaths paths,
            String nodeId,
            String shardId,
            RoleMachine roles,
            NodeCoordination.Promoter promoter) {
        this.zk = zk;
        this.paths = paths;
        this.maps = new ClusterMapStore(zk, paths);
        this.nodeId = nodeId;
        this.shardId = shardId;
        this.roles = roles;
        this.promoter = promoter;
    }

    /**
     * Names this node its shard's primary in the map at the next epoch, then promotes it with that epoch.
     *
     * @param force promote even though the old primary's member znode exists (its lease may hold)
     * @return the epoch this node is now the primary of
     * @throws RoleChangeException if this node is the primary, is not a member of its shard in the map,
     *     the old primary's znode exists and {@code force} is false, the map changed meanwhile, or
     *     ZooKeeper could not be reached
     */
    public synchronized long promote(boolean force) {
        if (roles.current() instanceof NodeRole.Primary) {
            throw new RoleChangeException("this node is already the primary");
        }
        try {
            ClusterMapStore.Versioned map = maps.read()
                    .orElseThrow(() -> new RoleChangeException(
                            "there is no cluster map in ZooKeeper yet: create it (kvs cluster init) first"));
            Shard shard = map.map()
                    .shard(shardId)
                    .orElseThrow(() -> new RoleChangeException("the cluster map has no shard " + shardId));
            if (!shard.members().contains(nodeId)) {
                throw new RoleChangeException(
                        "this node (" + nodeId + ") is not a member of shard " + shardId + " in the cluster map");
            }
            if (shard.primary().equals(nodeId)) return promoteAt(shard.epoch()); // named already
            if (!force && zk.checkExists().forPath(paths.member(shard.primary())) != null) {
                throw new RoleChangeException("the primary of shard " + shardId + " (" + shard.primary()
                        + ") still has its member znode: its ZooKeeper session is alive, so its lease may hold"
                        + " and it may still acknowledge writes. Wait until ZooKeeper expires its session (a"
                        + " coordinator then promotes this node), or add force=true if it is known to be stopped");
            }
            Shard next = shard.promote(nodeId);
            if (!maps.compareAndSet(map, map.map().with(next))) {
                throw new RoleChangeException("the cluster map changed while this node was being promoted (a"
                        + " coordinator or another /promote): see GET /status and try again");
            }
            log.warn(
                    "promote{}: the cluster map now names this node primary of shard {} at epoch {}",
                    force ? " (forced)" : "",
                    shardId,
                    next.epoch());
            return promoteAt(next.epoch());
        } catch (RoleChangeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RoleChangeException("interrupted while reading the cluster map");
        } catch (Exception e) {
            throw new RoleChangeException("the cluster map could not be read or written (ZooKeeper "
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + "): nothing changed");
        }
    }

    /** Promotes this node at {@code epoch}, unless the map's watch already did. */
    private long promoteAt(long epoch) {
        try {
            return promoter.promoteAt(epoch);
        } catch (RoleChangeException e) {
            NodeRole now = roles.current();
            if (now instanceof NodeRole.Primary && now.epoch() == epoch) return epoch; // the watch was first
            throw e;
        }
    }
}
