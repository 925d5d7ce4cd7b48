package dev.kvs.server.internal.coordination;

import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.server.internal.role.RoleChangeException;
import dev.kvs.server.internal.role.Successor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A switchover on a coordinated primary records its backup as the next primary in the cluster map, by
 * compare-and-set, before the primary steps down ({@link dev.kvs.server.internal.role.RoleMachine#handOver(
 * java.time.Duration, Successor)}). The primary writes the map while it still holds its lease and the map
 * still names it, so a write that fails (ZooKeeper unreachable, the map changed meanwhile, the znode not
 * writable) changes nothing: the old primary stays the primary at its epoch and the switchover answers
 * why. The backup then promotes itself by the map, at the epoch written there; the epoch moves once per
 * switchover. Thread-safe.
 */
final class MapSwitchover implements Successor {
    private static final Logger log = LoggerFactory.getLogger(MapSwitchover.class);

    private final ClusterMapStore maps;
    private final String nodeId;
    private final String shardId;

    MapSwitchover(ClusterMapStore maps, String nodeId, String shardId) {
        this.maps = maps;
        this.nodeId = nodeId;
        this.shardId = shardId;
    }

    /**
     * Names this primary's backup the primary of shard {@link #shardId} at {@code epoch}, if the map names
     * this node primary at {@code epoch - 1}.
     *
     * @throws RoleChangeException if the map does not name this node primary at the epoch before, the shard
     *     has not exactly one backup, the map changed meanwhile, or ZooKeeper could not be reached
     */
    @Override
    public synchronized void name(long epoch) {
        try {
            ClusterMapStore.Versioned map =
                    maps.read().orElseThrow(() -> refused("there is no cluster map in ZooKeeper"));
            Shard shard =
                    map.map().shard(shardId).orElseThrow(() -> refused("the cluster map has no shard " + shardId));
            if (!shard.primary().equals(nodeId) || shard.epoch() != epoch - 1) {
                throw refused("the cluster map names " + shard.primary() + " primary of shard " + shardId + " at epoch "
                        + shard.epoch() + ", not this node at epoch " + (epoch - 1));
            }
            if (shard.backups().size() != 1) {
                throw refused("shard " + shardId + " has " + shard.backups().size() + " backups, not one");
            }
            Shard next = shard.promote(shard.backups().get(0));
            if (!maps.compareAndSet(map, map.map().with(next))) {
                throw refused("the cluster map changed while it was being written (a coordinator or /promote)");
            }
            log.warn(
                    "switchover: the cluster map now names {} primary of shard {} at epoch {}",
                    next.primary(),
                    shardId,
                    next.epoch());
        } catch (RoleChangeException e) {
            throw e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw refused("interrupted while writing the cluster map");
        } catch (Exception e) {
            throw refused("the cluster map could not be read or written (ZooKeeper "
                    + e.getClass().getSimpleName() + ": " + e.getMessage() + ")");
        }
    }

    private static RoleChangeException refused(String why) {
        return new RoleChangeException("switchover not made: " + why + "; this node stays the primary, writes resume");
    }
}
