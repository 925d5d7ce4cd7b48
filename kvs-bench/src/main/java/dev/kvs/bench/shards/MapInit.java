package dev.kvs.bench.shards;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;

/**
 * Creates a cluster's first map in ZooKeeper, and never replaces one: once nodes run, the map is
 * changed only by compare-and-set (a promotion moves one shard's epoch by one), and a second {@code
 * init} writing epoch 1 over it would hand a shard back to a primary that was replaced.
 */
final class MapInit {
    private MapInit() {}

    /**
     * Creates {@code plan}'s map.
     *
     * @return the map as stored, with its znode version
     * @throws MapExistsException if the cluster has a map already (nothing is written)
     * @throws Exception if ZooKeeper refuses (e.g. {@code NoAuth}: other credentials own the cluster)
     */
    static ClusterMapStore.Versioned create(CuratorFramework zk, MapPlan plan) throws Exception {
        ZkPaths paths = new ZkPaths(plan.cluster());
        ClusterMapStore store = new ClusterMapStore(zk, paths);
        Optional<ClusterMapStore.Versioned> there = store.read();
        if (there.isPresent()) throw new MapExistsException(plan.cluster(), paths.map(), there.get());
        ClusterMap mine = plan.map();
        ClusterMapStore.Versioned stored = store.create(mine);
        // create() keeps a map another writer made between our read and our create: theirs stands
        if (!stored.map().equals(mine)) throw new MapExistsException(plan.cluster(), paths.map(), stored);
        return stored;
    }

    /** The cluster has a map already: {@code init} refuses to replace it. */
    static final class MapExistsException extends IllegalStateException {
        private final transient ClusterMapStore.Versioned existing;

        MapExistsException(String cluster, String path, ClusterMapStore.Versioned existing) {
            super("cluster '" + cluster + "' already has a map (" + path + ", version " + existing.version()
                    + "): init never replaces one, since nodes may be serving under it; 'kvs cluster show' prints"
                    + " it; to start over, choose another --cluster or delete " + path + " with zkCli.sh");
            this.existing = existing;
        }

        /** The map found. */
        ClusterMapStore.Versioned existing() {
            return existing;
        }
    }
}
