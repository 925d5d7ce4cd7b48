package dev.kvs.server;

import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.Role;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.testing.cluster.TwoDc;
import dev.kvs.testing.zookeeper.Ensemble;
import dev.kvs.wan.WanLink;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A coordinated shard on a real three-server ensemble: a primary and its backup ({@link TwoDc}, the map's
 * shard-0), each reaching every ZooKeeper server through {@link WanLink}s of its own, replicating through
 * the pair's links, with no timer promotion (only the coordinators in the nodes promote, through the map).
 * A third node, alone in shard-1 and started first, runs a coordinator of its own that usually leads, so
 * that cutting the coordinator from ZooKeeper is a cut of its own, apart from the pair's.
 */
final class EnsembleShard implements AutoCloseable {
    /** What a partition pauses (silently: no connection is reset). */
    enum Cut {
        PRIMARY_ZK,
        BACKUP_ZK,
        /** the replication link and its return link, both ways between the datacenters */
        REPLICATION,
        /** whichever node's coordinator leads when the cut begins */
        COORDINATOR_ZK
    }

    /** A hash tag whose slot shard-0 owns (slots 0-8191 of two shards split evenly). */
    private static final String TAG = tagOfShardZero();

    final TwoDc dc;
    final ClusterMapStore maps;
    private final ZkPaths paths;
    private final List<WanLink> primaryZk;
    private final List<WanLink> backupZk;
    /** A node of another shard, started first so that its coordinator usually leads, and its links. */
    private final KvsNode other;

    private final List<WanLink> otherZk;

    private final Ensemble ensemble;
    private final CuratorFramework observer;

    EnsembleShard(Ensemble ensemble, CuratorFramework observer, String cluster, ReplicationMode mode) throws Exception {
        this(ensemble, observer, cluster, mode, 0);
    }

    /** With the replication link limited to {@code linkBitsPerSecond} (0: unlimited), so that values lag. */
    EnsembleShard(
            Ensemble ensemble, CuratorFramework observer, String cluster, ReplicationMode mode, long linkBitsPerSecond)
            throws Exception {
        this.ensemble = ensemble;
        this.observer = observer;
        paths = new ZkPaths(cluster);
        maps = new ClusterMapStore(observer, paths);
        primaryZk = linksToZooKeeper();
        backupZk = linksToZooKeeper();
        otherZk = linksToZooKeeper();
        // alone in shard-1, it never writes: its peer is a port nothing listens on
        other = KvsNode.start(NodeConfig.builder()
                .name("dc-other")
                .port(0)
                .adminPort(0)
                .replPort(0)
                .role(Role.PRIMARY)
                .peer(TwoDc.HOST + ":1")
                .cluster(cluster)
                .coordination(coordination(otherZk, "shard-1"))
                .build());
        dc = TwoDc.builder()
                .mode(mode)
                // no timer promotion: only the coordinator promotes, through the map
                .failover(new FailoverConfig(FailoverConfig.ReadPolicy.REJECT, Duration.ZERO, Duration.ZERO))
                .link(Duration.ofMillis(1), linkBitsPerSecond)
                .returnLink(Duration.ofMillis(1))
                .primary(b -> b.cluster(cluster).coordination(coordination(primaryZk, "shard-0")))
                .backup(b -> b.cluster(cluster).coordination(coordination(backupZk, "shard-0")))
                .start();
        maps.create(ClusterMap.evenly(List.of(List.of(id(dc.primary()), id(dc.backup())), List.of(id(other)))));
    }

    private List<WanLink> linksToZooKeeper() {
        return ensemble.clientPorts().stream()
                .map(port -> WanLink.builder().target(TwoDc.HOST, port).build())
                .toList();
    }

    private static CoordinationConfig coordination(List<WanLink> links, String shard) {
        List<String> through =
                links.stream().map(l -> TwoDc.HOST + ":" + l.port()).toList();
        return new CoordinationConfig(String.join(",", through), Optional.empty(), Ensemble.SESSION, shard);
    }

    static String id(KvsNode node) {
        return node.config().nodeId();
    }

    void awaitServing() {
        await("the primary serves")
                .atMost(Duration.ofSeconds(15))
                .until(() -> "OK".equals(set(dc.primary(), key("first"), "v")));
        await("the backup is streaming")
                .atMost(Duration.ofSeconds(15))
                .until(() -> new String(observer.getData().forPath(paths.member(id(dc.backup()))))
                        .contains("\"streaming\":true"));
    }

    long epoch() throws Exception {
        return maps.read()
                .orElseThrow()
                .map()
                .shard("shard-0")
                .map(Shard::epoch)
                .orElseThrow();
    }

    List<WanLink> links(Cut cut) {
        return switch (cut) {
            case PRIMARY_ZK -> primaryZk;
            case BACKUP_ZK -> backupZk;
            case REPLICATION -> List.of(dc.link(), dc.returnLink());
            case COORDINATOR_ZK -> leads(dc.primary()) ? primaryZk : leads(dc.backup()) ? backupZk : otherZk;
        };
    }

    private static boolean leads(KvsNode node) {
        return info(node).contains("kvs_coordinator_leader:1");
    }

    /** Which node's coordinator leads now: "primary", "backup", "other" or "none". */
    String coordinatorLeader() {
        return leads(dc.primary()) ? "primary" : leads(dc.backup()) ? "backup" : leads(other) ? "other" : "none";
    }

    void healAll() {
        primaryZk.forEach(WanLink::resume);
        backupZk.forEach(WanLink::resume);
        otherZk.forEach(WanLink::resume);
        dc.link().resume();
        dc.returnLink().resume();
    }

    /** How many keys each {@link #writer} cycles through (a {@link TwoDc} node's store takes 50,000). */
    static final int KEYS = 10_000;

    /** A thread that writes to {@code node} until interrupted, logging each OK as acknowledged by {@code name}. */
    Thread writer(KvsNode node, String name, AckLog log) {
        Thread t = new Thread(
                () -> {
                    Jedis jedis = null;
                    for (long i = 0; !Thread.currentThread().isInterrupted(); i++) {
                        try {
                            if (jedis == null) jedis = new Jedis(TwoDc.HOST, node.port(), 1000);
                            long sent = System.nanoTime();
                            // a bounded key space: the fast modes write tens of thousands of keys a run, more
                            // than the node's store takes, and a full store would refuse every later write
                            String reply = jedis.set(key(name + "-" + (i % KEYS)), "v" + i);
                            long received = System.nanoTime();
                            if ("OK".equals(reply)) log.add(name, sent, received);
                        } catch (JedisDataException refused) {
                            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(2)); // pacing, not waiting
                        } catch (JedisConnectionException timedOut) {
                            jedis.close();
                            jedis = null;
                        }
                    }
                    if (jedis != null) jedis.close();
                },
                "writer-" + name);
        t.setDaemon(true);
        return t;
    }

    private static String tagOfShardZero() {
        for (int i = 0; ; i++) {
            String tag = "{s" + i + "}";
            if (HashSlots.slot(tag.getBytes(StandardCharsets.UTF_8)) < HashSlots.SLOTS / 2) return tag;
        }
    }

    /** {@code name} as a key of shard-0. */
    static String key(String name) {
        return TAG + name;
    }

    static String set(KvsNode node, String key, String value) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port(), 1000)) {
            return jedis.set(key, value);
        } catch (JedisDataException | JedisConnectionException e) {
            return "-" + e.getMessage();
        }
    }

    static String info(KvsNode node) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port(), 1000)) {
            return jedis.info("replication");
        } catch (JedisConnectionException e) {
            return "";
        }
    }

    /**
     * Heals every link first: a node cut off from ZooKeeper waits a second for it on closing before it gives
     * up (CoordinatedPrimaryTest#aPrimaryCutOffFromZooKeeperClosesPromptly), time that tests nothing here.
     */
    @Override
    public void close() {
        healAll();
        dc.close();
        other.close();
        primaryZk.forEach(WanLink::close);
        backupZk.forEach(WanLink::close);
        otherZk.forEach(WanLink::close);
    }
}
