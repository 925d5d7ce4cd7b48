package dev.kvs.coordination;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.kvs.cluster.ClusterMap;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Promotes a shard's backup when ZooKeeper has witnessed its primary's death ({@link Promotion} says
 * when). Runs inside every node; Curator's {@link LeaderSelector} lets one lead at a time, but a
 * hand-over can briefly give two (CURATOR-620), so every change is a compare-and-set of the map: the
 * second writer fails harmlessly and the epoch moves once. The coordinator only writes the map; each
 * node takes its role and epoch from it.
 *
 * <p>A round reads the map and the members, decides, and writes; the leader runs one at every change of
 * the members and at least every {@code interval}.
 */
public final class Coordinator implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Coordinator.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What one round read: the map at its version and the live members. */
    public record View(ClusterMapStore.Versioned map, Map<String, MemberStatus> members) {}

    private final CuratorFramework zk;
    private final ZkPaths paths;
    private final ClusterMapStore store;
    private final Duration interval;
    private final LeaderSelector selector;
    private final Object changes = new Object();
    private boolean changed;
    private final AtomicLong rounds = new AtomicLong();
    private final AtomicLong promotions = new AtomicLong();
    private final AtomicLong conflicts = new AtomicLong();

    public Coordinator(CuratorFramework zk, ZkPaths paths, Duration interval) {
        this.zk = zk;
        this.paths = paths;
        this.store = new ClusterMapStore(zk, paths);
        this.interval = interval;
        this.selector = new LeaderSelector(zk, paths.coordinator(), new LeaderSelectorListenerAdapter() {
            @Override
            public void takeLeadership(CuratorFramework client) throws Exception {
                lead();
            }
        });
        selector.autoRequeue();
    }

    /** Joins the election; while leading, runs rounds. */
    public void start() {
        selector.start();
    }

    public boolean isLeader() {
        return selector.hasLeadership();
    }

    /** Rounds run, promotions written, and writes refused because the map had changed. */
    public long rounds() {
        return rounds.get();
    }

    public long promotions() {
        return promotions.get();
    }

    public long conflicts() {
        return conflicts.get();
    }

    private void lead() throws Exception {
        log.info("coordinator of {} leading", paths.cluster());
        while (!Thread.currentThread().isInterrupted()) {
            round();
            synchronized (changes) {
                if (!changed) changes.wait(interval.toMillis());
                changed = false;
            }
        }
    }

    /** One round: read, decide, write. Returns what it promoted. */
    public List<Promotion> round() throws Exception {
        rounds.incrementAndGet();
        Optional<View> view = read();
        if (view.isEmpty()) return List.of();
        List<Promotion> decided =
                Promotion.decide(view.get().map().map(), view.get().members());
        return write(view.get(), decided) ? decided : List.of();
    }

    /** The map and the live members now; watches the members for the next change. */
    public Optional<View> read() throws Exception {
        Optional<ClusterMapStore.Versioned> map = store.read();
        if (map.isEmpty()) return Optional.empty();
        Map<String, MemberStatus> members = new HashMap<>();
        Watcher wake = event -> {
            synchronized (changes) {
                changed = true;
                changes.notifyAll();
            }
        };
        List<String> children;
        try {
            children = zk.getChildren().usingWatcher(wake).forPath(paths.members());
        } catch (KeeperException.NoNodeException none) {
            zk.create().creatingParentsIfNeeded().forPath(paths.members());
            children = zk.getChildren().usingWatcher(wake).forPath(paths.members());
        }
        for (String child : children) {
            try {
                byte[] data = zk.getData().forPath(paths.member(child));
                members.put(child, JSON.readValue(data, MemberStatus.class));
            } catch (KeeperException.NoNodeException goneMeanwhile) {
                // its session ended between the listing and the read: not alive
            }
        }
        return Optional.of(new View(map.get(), members));
    }

    /**
     * Writes {@code decided} onto the map {@code view} read, if the map has not changed since.
     *
     * @return false if another writer changed it first (nothing written)
     */
    public boolean write(View view, List<Promotion> decided) throws Exception {
        if (decided.isEmpty()) return true;
        ClusterMap next = view.map().map();
        for (Promotion p : decided) next = next.with(p.promoted());
        if (!store.compareAndSet(view.map(), next)) {
            conflicts.incrementAndGet();
            log.info("coordinator of {}: the map changed under a round; reading it again", paths.cluster());
            return false;
        }
        promotions.addAndGet(decided.size());
        for (Promotion p : decided) {
            log.warn(
                    "shard {}: primary {} is gone; {} promoted at epoch {}",
                    p.shard().id(),
                    p.shard().primary(),
                    p.member(),
                    p.shard().epoch() + 1);
        }
        return true;
    }

    @Override
    public void close() {
        selector.close();
    }
}
