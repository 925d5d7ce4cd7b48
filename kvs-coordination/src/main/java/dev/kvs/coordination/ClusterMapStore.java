package dev.kvs.coordination;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.cluster.ClusterMap;
import java.io.IOException;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * The cluster map in its znode, {@code /kvs/<cluster>/map}, as JSON. Every change is a compare-and-set on
 * the znode's version: a writer that read an older map (a second coordinator during a leadership
 * hand-over, see CURATOR-620) fails harmlessly and reads again.
 */
public final class ClusterMapStore {
    private static final ObjectMapper JSON = new ObjectMapper();

    /** A map and the znode version it was read at. */
    public record Versioned(ClusterMap map, int version) {}

    private final CuratorFramework zk;
    private final String path;

    public ClusterMapStore(CuratorFramework zk, ZkPaths paths) {
        this.zk = zk;
        this.path = paths.map();
    }

    /** The map now, or empty if none was created yet. */
    public Optional<Versioned> read() throws Exception {
        Stat stat = new Stat();
        try {
            byte[] data = zk.getData().storingStatIn(stat).forPath(path);
            return Optional.of(decode(data, stat.getVersion()));
        } catch (KeeperException.NoNodeException e) {
            return Optional.empty();
        }
    }

    /**
     * The map in {@code data}, the map znode's content at {@code version} (as a watch, e.g. a {@code
     * CuratorCache}, saw it).
     *
     * @throws IOException if {@code data} is not a valid map
     */
    public static Versioned decode(byte[] data, int version) throws IOException {
        return new Versioned(JSON.readValue(data, ClusterMap.class), version);
    }

    /** Creates the map if there is none; returns the map in the store either way. */
    public Versioned create(ClusterMap map) throws Exception {
        try {
            zk.create().creatingParentsIfNeeded().forPath(path, JSON.writeValueAsBytes(map));
        } catch (KeeperException.NodeExistsException alreadyThere) {
            // another node created it first: theirs stands
        }
        return read().orElseThrow();
    }

    /**
     * Replaces the map read at {@code expected}'s version with {@code next}.
     *
     * @return false if the map changed since it was read (nothing written)
     */
    public boolean compareAndSet(Versioned expected, ClusterMap next) throws Exception {
        try {
            zk.setData().withVersion(expected.version()).forPath(path, JSON.writeValueAsBytes(next));
            return true;
        } catch (KeeperException.BadVersionException changed) {
            return false;
        }
    }
}
