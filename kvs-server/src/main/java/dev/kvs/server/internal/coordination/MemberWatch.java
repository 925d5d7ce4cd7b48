package dev.kvs.server.internal.coordination;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.coordination.MemberStatus;
import dev.kvs.coordination.ZkPaths;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster's members as this node sees them: a {@link CuratorCache} on {@code /kvs/<cluster>/members},
 * whose ephemeral children are the live members' {@link MemberStatus}es. It also remembers the last status
 * it saw of every member, so that a member whose znode is gone (dead, or cut off from ZooKeeper) keeps
 * its last known address in {@code CLUSTER} replies, marked disconnected. A member this node never saw
 * has no known address. Thread-safe.
 */
final class MemberWatch implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(MemberWatch.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String parent;
    private final CuratorCache cache;
    private final Map<String, MemberStatus> lastSeen = new ConcurrentHashMap<>();

    /** @param onChange run (on Curator's thread) after every change of a member znode */
    MemberWatch(CuratorFramework zk, ZkPaths paths, Runnable onChange) {
        this.parent = paths.members();
        this.cache = CuratorCache.build(zk, parent);
        cache.listenable().addListener((type, before, after) -> onChange.run());
    }

    void start() {
        cache.start();
    }

    /** The live members (those with a member znode now), by node id. */
    Map<String, MemberStatus> live() {
        Map<String, MemberStatus> live = new HashMap<>();
        cache.stream().forEach(child -> {
            String node = nodeOf(child);
            if (node == null) return;
            MemberStatus s = parse(child);
            if (s == null) return;
            live.put(node, s);
            lastSeen.put(node, s);
        });
        return live;
    }

    /** The last status seen of {@code node}, live or not; empty if this node never saw it. */
    Optional<MemberStatus> lastSeen(String node) {
        return Optional.ofNullable(lastSeen.get(node));
    }

    private String nodeOf(ChildData child) {
        String path = child.getPath();
        if (!path.startsWith(parent + "/")) return null;
        String node = path.substring(parent.length() + 1);
        return node.isEmpty() || node.contains("/") ? null : node;
    }

    private static MemberStatus parse(ChildData child) {
        byte[] data = child.getData();
        if (data == null || data.length == 0) return null;
        try {
            return JSON.readValue(data, MemberStatus.class);
        } catch (IOException e) {
            log.warn("member znode {} does not hold a member status: {}", child.getPath(), e.getMessage());
            return null;
        }
    }

    @Override
    public void close() {
        cache.close();
    }
}
