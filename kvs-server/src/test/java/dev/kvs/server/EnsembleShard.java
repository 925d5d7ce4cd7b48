package dev.kvs.server;

import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.testing.cluster.TwoDc;
import dev.kvs.testing.zookeeper.Ensemble;
import dev.kvs.wan.WanLink;
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

    final TwoDc dc;
    final ClusterMapStore maps;
    private final ZkPaths paths;
    private final List<WanLink> primaryZk;
    private final List<WanLink> backupZk;

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
        dc = TwoDc.builder()
                .mode(mode)
                // no timer promotion: only the coordinator promotes, through the map
                .failover(new FailoverConfig(FailoverConfig.ReadPolicy.REJECT, Duration.ZERO, Duration.ZERO))
                .link(Duration.ofMillis(1), linkBitsPerSecond)
                .returnLink(Duration.ofMillis(1))
                .primary(b -> b.cluster(cluster).coordination(coordination(primaryZk)))
                .backup(b -> b.cluster(cluster).coordination(coordination(backupZk)))
                .start();
        maps.create(ClusterMap.evenly(List.of(List.of(id(dc.primary()), id(dc.backup())))));
    }

    private List<WanLink> linksToZooKeeper() {
        return ensemble.clientPorts().stream()
                .map(port -> WanLink.builder().target(TwoDc.HOST, port).build())
                .toList();
    }

    private static CoordinationConfig coordination(List<WanLink> links) {
        List<String> through =
                links.stream().map(l -> TwoDc.HOST + ":" + l.port()).toList();
        return new CoordinationConfig(String.join(",", through), Optional.empty(), Ensemble.SESSION, "shard-0");
    }

    static String id(KvsNode node) {
        return node.config().nodeId();
    }

    void awaitServing() {
        await("the primary serves")
                .atMost(Duration.ofSeconds(15))
                .until(() -> "OK".equals(set(dc.primary(), "first", "v")));
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
            case COORDINATOR_ZK -> info(dc.backup()).contains("kvs_coordinator_leader:1") ? backupZk : primaryZk;
        };
    }

    void healAll() {
        primaryZk.forEach(WanLink::resume);
        backupZk.forEach(WanLink::resume);
        dc.link().resume();
        dc.returnLink().resume();
    }

    /** A thread that writes to {@code node} until interrupted, logging each OK as acknowledged by {@code name}. */
    Thread writer(KvsNode node, String name, AckLog log) {
        Thread t = new Thread(
                () -> {
                    Jedis jedis = null;
                    for (long i = 0; !Thread.currentThread().isInterrupted(); i++) {
                        try {
                            if (jedis == null) jedis = new Jedis(TwoDc.HOST, node.port(), 1000);
                            long sent = System.nanoTime();
                            String reply = jedis.set(name + "-" + i, "v" + i);
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

    @Override
    public void close() {
        dc.close();
        primaryZk.forEach(WanLink::close);
        backupZk.forEach(WanLink::close);
    }
}
