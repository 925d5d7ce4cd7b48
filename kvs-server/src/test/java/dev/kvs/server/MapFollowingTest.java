package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.FailoverConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.testing.cluster.TwoDc;
import dev.kvs.testing.zookeeper.QuietPorts;
import dev.kvs.wan.WanLink;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisConnectionException;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * A coordinated pair takes its roles and its view of the cluster from the cluster map on a real ZooKeeper
 * (a three-server {@link TestingCluster}, 100 ms tick, 1.5 s sessions, its ports from {@link QuietPorts}): {@code CLUSTER SLOTS}/{@code SHARDS} and {@code
 * -MOVED} follow the map; a backup that the map names primary promotes itself with the map's epoch; and
 * the coordinator running in the nodes replaces a primary whose session ZooKeeper expired. The primary's
 * ZooKeeper traffic goes through a {@link WanLink} that a test pauses (a silent partition).
 */
class MapFollowingTest {
    private static final Duration SESSION = Duration.ofMillis(1500);
    private static final String CLUSTER = "follow-test";

    private TestingCluster zookeeper;
    private CuratorFramework observer;
    /** The primary's traffic to each ZooKeeper server. */
    private final List<WanLink> primaryToZk = new ArrayList<>();

    private TwoDc dc;
    private ClusterMapStore maps;
    private final ZkPaths paths = new ZkPaths(CLUSTER);

    @TempDir
    Path primaryData;

    @BeforeEach
    void start() throws Exception {
        List<InstanceSpec> specs = new ArrayList<>();
        for (int id = 1; id <= 3; id++) {
            specs.add(new InstanceSpec(
                    null, QuietPorts.free(), QuietPorts.free(), QuietPorts.free(), true, id, 100, 100));
        }
        zookeeper = new TestingCluster(specs);
        zookeeper.start();
        observer = CuratorFrameworkFactory.builder()
                .connectString(zookeeper.getConnectString())
                .sessionTimeoutMs(10_000)
                .retryPolicy(new RetryOneTime(50))
                .build();
        observer.start();
        assertThat(observer.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        maps = new ClusterMapStore(observer, paths);
        List<String> throughLinks = new ArrayList<>();
        for (InstanceSpec spec : zookeeper.getInstances()) {
            WanLink link = WanLink.builder().target("127.0.0.1", spec.getPort()).build();
            primaryToZk.add(link);
            throughLinks.add("127.0.0.1:" + link.port());
        }
        String direct = zookeeper.getConnectString();
        String throughLink = String.join(",", throughLinks);
        dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                // a read of an unfinished key answers -UNFINISHED at once rather than wait for its value
                .failover(new FailoverConfig(FailoverConfig.ReadPolicy.REJECT, Duration.ZERO, Duration.ZERO))
                .returnLink(Duration.ofMillis(1))
                // the primary persists, so that a restart brings it back with its data in a new epoch
                .stores(
                        TwoDc.store().dataDir(primaryData).build(),
                        TwoDc.store().build())
                .primary(b -> b.cluster(CLUSTER).coordination(coordination(throughLink)))
                .backup(b -> b.cluster(CLUSTER).coordination(coordination(direct)))
                .start();
    }

    private static CoordinationConfig coordination(String zk) {
        return new CoordinationConfig(zk, Optional.empty(), SESSION, "shard-0");
    }

    private static String id(KvsNode node) {
        return node.config().nodeId();
    }

    @AfterEach
    void stop() throws Exception {
        // heals what a test left paused: a node cut off from ZooKeeper waits a second for it on closing
        // before it gives up (CoordinatedPrimaryTest#aPrimaryCutOffFromZooKeeperClosesPromptly), time that tests
        // nothing here
        primaryToZk.forEach(WanLink::resume);
        if (dc != null) {
            dc.link().resume();
            dc.returnLink().resume();
            dc.close();
        }
        primaryToZk.forEach(WanLink::close);
        if (observer != null) observer.close();
        if (zookeeper != null) zookeeper.close();
    }

    private void createMap() throws Exception {
        maps.create(ClusterMap.evenly(List.of(List.of(id(dc.primary()), id(dc.backup())))));
    }

    /** {@code CLUSTER SLOTS} on {@code node}: each range as "first-last master-port replica-ports...". */
    @SuppressWarnings("unchecked")
    private static List<String> slots(KvsNode node) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port())) {
            List<String> out = new ArrayList<>();
            for (Object range : (List<Object>) jedis.sendCommand(() -> "CLUSTER".getBytes(), "SLOTS")) {
                List<Object> r = (List<Object>) range;
                StringBuilder b =
                        new StringBuilder().append(r.get(0)).append('-').append(r.get(1));
                for (Object n : r.subList(2, r.size())) b.append(' ').append(((List<Object>) n).get(1));
                out.add(b.toString());
            }
            return out;
        }
    }

    /** The id of the master in {@code CLUSTER SHARDS} on {@code node} (one shard). */
    @SuppressWarnings("unchecked")
    private static String masterOfShards(KvsNode node) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port())) {
            List<Object> shards = (List<Object>) jedis.sendCommand(() -> "CLUSTER".getBytes(), "SHARDS");
            assertThat(shards).hasSize(1);
            List<Object> shard = (List<Object>) shards.get(0);
            for (Object n : (List<Object>) shard.get(3)) {
                List<Object> fields = (List<Object>) n;
                String id = null;
                String role = null;
                for (int i = 0; i + 1 < fields.size(); i += 2) {
                    String name = new String((byte[]) fields.get(i), StandardCharsets.UTF_8);
                    Object v = fields.get(i + 1);
                    if (name.equals("id")) id = new String((byte[]) v, StandardCharsets.UTF_8);
                    if (name.equals("role")) role = new String((byte[]) v, StandardCharsets.UTF_8);
                }
                if ("master".equals(role)) return id;
            }
            return null;
        }
    }

    private static String reply(KvsNode node, String... command) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port())) {
            Object r = jedis.sendCommand(
                    () -> command[0].getBytes(), java.util.Arrays.copyOfRange(command, 1, command.length));
            return r instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(r);
        } catch (JedisDataException e) {
            return "-" + e.getMessage();
        } catch (JedisConnectionException e) {
            // a write waiting for a backup that is not attached yet (id-first): no answer within Jedis's timeout
            return "(no answer: " + e.getMessage() + ")";
        }
    }

    private static String info(KvsNode node) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port())) {
            return jedis.info("replication");
        }
    }

    @Test
    void clusterSlotsAndMovedFollowTheMapAndItsMembers() throws Exception {
        assertThat(reply(dc.backup(), "CLUSTER", "SLOTS"))
                .as("before there is a map: a cluster node with no slots")
                .isEqualTo("[]");
        assertThat(reply(dc.backup(), "GET", "k")).isEqualTo("-CLUSTERDOWN Hash slot not served");
        createMap();
        int p = dc.primary().port();
        int b = dc.backup().port();
        String primaryFirst = "0-16383 " + p + " " + b;
        await("both nodes answer CLUSTER SLOTS by the map")
                .atMost(Duration.ofSeconds(10))
                .until(() -> slots(dc.primary()).equals(List.of(primaryFirst))
                        && slots(dc.backup()).equals(List.of(primaryFirst)));
        int slot = HashSlots.slot("k".getBytes(StandardCharsets.UTF_8));
        assertThat(reply(dc.backup(), "GET", "k")).isEqualTo("-MOVED " + slot + " 127.0.0.1:" + p);
        assertThat(masterOfShards(dc.backup())).isEqualTo(id(dc.primary()));

        // an epoch the backup could not guess (current + 1 is 2): it takes the map's
        ClusterMapStore.Versioned before = maps.read().orElseThrow();
        Shard shard = before.map().shard("shard-0").orElseThrow();
        Shard named = new Shard(shard.id(), shard.slots(), shard.members(), id(dc.backup()), 3);
        assertThat(maps.compareAndSet(before, before.map().with(named))).isTrue();

        String backupFirst = "0-16383 " + b + " " + p;
        await("both nodes answer CLUSTER SLOTS by the new map")
                .atMost(Duration.ofSeconds(10))
                .until(() -> slots(dc.primary()).equals(List.of(backupFirst))
                        && slots(dc.backup()).equals(List.of(backupFirst)));
        assertThat(reply(dc.primary(), "GET", "k")).isEqualTo("-MOVED " + slot + " 127.0.0.1:" + b);
        assertThat(masterOfShards(dc.primary())).isEqualTo(id(dc.backup()));
        await("the backup, named primary, serves")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reply(dc.backup(), "SET", "k", "v").equals("OK"));
        assertThat(info(dc.backup())).contains("role:master").contains("kvs_epoch:3");
        assertThat(info(dc.backup()))
                .contains("kvs_cluster_map_version:1")
                .contains("kvs_cluster_view:1")
                .contains("kvs_cluster_promotions_by_map:1");
    }

    @Test
    void aPrimaryCutOffFromZooKeeperIsReplacedByItsBackupAtTheNextEpochWithNoWriteSilentlyLost() throws Exception {
        createMap();
        List<String> acknowledged = new ArrayList<>();
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port())) {
            await().atMost(Duration.ofSeconds(10)).until(() -> {
                try {
                    return "OK".equals(jedis.set("first", "v"));
                } catch (JedisDataException notYet) {
                    return false;
                }
            });
            acknowledged.add("first");
            await("the backup is streaming")
                    .atMost(Duration.ofSeconds(10))
                    .until(() -> new String(observer.getData().forPath(paths.member(id(dc.backup()))))
                            .contains("\"streaming\":true"));
            for (int i = 0; i < 200; i++) {
                if ("OK".equals(jedis.set("key-" + i, "value-" + i))) acknowledged.add("key-" + i);
            }
        }
        long pausedAt = System.nanoTime();
        primaryToZk.forEach(WanLink::pause); // the primary's session expires on the ensemble after SESSION

        await("the backup is promoted and serves")
                .pollInterval(Duration.ofMillis(10))
                .atMost(SESSION.plusSeconds(5))
                .until(() -> info(dc.backup()).contains("role:master")
                        && reply(dc.backup(), "SET", "probe", "p").equals("OK"));
        long promotedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pausedAt);
        System.out.println("MapFollowingTest: backup promoted " + promotedAfterMs + " ms after the pause");
        assertThat(promotedAfterMs).isLessThanOrEqualTo(SESSION.toMillis() + 2000);
        assertThat(info(dc.backup())).contains("kvs_epoch:2");
        Stat stat = new Stat();
        observer.getData().storingStatIn(stat).forPath(paths.map());
        assertThat(stat.getVersion()).as("the map was written once").isEqualTo(1);
        assertThat(maps.read().orElseThrow().map().shard("shard-0").orElseThrow())
                .extracting(Shard::primary, Shard::epoch)
                .containsExactly(id(dc.backup()), 2L);

        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.backup().port())) {
            for (String key : acknowledged) {
                String got;
                try {
                    got = jedis.get(key);
                } catch (JedisDataException fenced) {
                    got = "-" + fenced.getMessage();
                }
                String expected = key.equals("first") ? "v" : "value-" + key.substring(4);
                assertThat(got)
                        .as("acknowledged %s: complete or fenced, never missing", key)
                        .satisfiesAnyOf(
                                g -> assertThat(g).isEqualTo(expected),
                                g -> assertThat(g).startsWith("-UNFINISHED " + key),
                                g -> assertThat(g).startsWith("-LOST " + key));
            }
        }

        primaryToZk.forEach(WanLink::resume);
        await("the old primary hands back and serves as the backup; the new primary replicates to it")
                .atMost(Duration.ofSeconds(20))
                .until(() -> info(dc.primary()).contains("role:slave")
                        && reply(dc.backup(), "SET", "after", "x").equals("OK")
                        && readOnlyGet(dc.primary(), "after").equals("x"));
        assertThat(info(dc.primary())).contains("kvs_epoch:2");
    }

    @Test
    void aPrimaryThatGoesSilentMidWritesIsReplacedAndEveryAcknowledgedWriteIsCompleteOrFenced() throws Exception {
        createMap();
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port())) {
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> reply(dc.primary(), "SET", "first", "v").equals("OK"));
        }
        await("the backup is streaming")
                .atMost(Duration.ofSeconds(10))
                .until(() -> new String(observer.getData().forPath(paths.member(id(dc.backup()))))
                        .contains("\"streaming\":true"));
        List<String> acknowledged = new java.util.concurrent.CopyOnWriteArrayList<>(List.of("first"));
        Thread writer = new Thread(() -> {
            try (Jedis jedis = new Jedis(TwoDc.HOST, dc.primary().port())) {
                for (int i = 0; !Thread.currentThread().isInterrupted(); i++) {
                    if ("OK".equals(jedis.set("key-" + i, "value-" + i))) acknowledged.add("key-" + i);
                }
            } catch (RuntimeException stoppedAnswering) {
                // the primary went silent: its in-flight write is not acknowledged
            }
        });
        writer.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> acknowledged.size() > 200);
        // as a killed machine: nothing more from the primary, to ZooKeeper or to its backup, mid-writes
        long silentAt = System.nanoTime();
        primaryToZk.forEach(WanLink::pause);
        dc.link().pause();
        dc.returnLink().pause();

        await("the backup is promoted and serves")
                .pollInterval(Duration.ofMillis(10))
                .atMost(SESSION.plusSeconds(5))
                .until(() -> info(dc.backup()).contains("role:master")
                        && reply(dc.backup(), "SET", "probe", "p").equals("OK"));
        long promotedAfterMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - silentAt);
        writer.interrupt();
        writer.join(10_000);
        assertThat(promotedAfterMs).isLessThanOrEqualTo(SESSION.toMillis() + 2000);
        assertThat(info(dc.backup())).contains("kvs_epoch:2");
        Stat stat = new Stat();
        observer.getData().storingStatIn(stat).forPath(paths.map());
        assertThat(stat.getVersion()).as("the map was written once").isEqualTo(1);

        int complete = 0;
        int fenced = 0;
        for (String key : acknowledged) {
            String got = reply(dc.backup(), "GET", key);
            String expected = key.equals("first") ? "v" : "value-" + key.substring(4);
            if (got.equals(expected)) {
                complete++;
            } else {
                assertThat(got)
                        .as("acknowledged %s: complete or fenced, never missing", key)
                        .startsWith("-UNFINISHED " + key + " ");
                fenced++;
            }
        }
        System.out.println("MapFollowingTest: silent primary replaced " + promotedAfterMs + " ms after; "
                + acknowledged.size() + " acknowledged writes: " + complete + " complete, " + fenced + " fenced");
    }

    @Test
    void aRestartedPrimaryThatTheMapReplacedMeanwhileIsDeposedAndServesAsTheBackup() throws Exception {
        createMap();
        await("the primary serves")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reply(dc.primary(), "SET", "k", "v").equals("OK"));
        await("the backup is streaming")
                .atMost(Duration.ofSeconds(10))
                .until(() -> new String(observer.getData().forPath(paths.member(id(dc.backup()))))
                        .contains("\"streaming\":true"));
        NodeConfig primaryConfig = dc.primary().config();
        dc.stopPrimary(); // its znode goes with it: a coordinator promotes the backup to epoch 2
        await("the map names the backup")
                .atMost(SESSION.plusSeconds(5))
                .until(() -> maps.read()
                                .orElseThrow()
                                .map()
                                .shard("shard-0")
                                .orElseThrow()
                                .epoch()
                        == 2);
        // back with its data; it would move to epoch 2 too (known + 1) without reading the map first
        try (KvsNode restarted = KvsNode.start(primaryConfig)) {
            await("the restarted primary is deposed and serves as the backup of the new one")
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> info(restarted).contains("role:slave")
                            && reply(dc.backup(), "SET", "after", "x").equals("OK")
                            && readOnlyGet(restarted, "after").equals("x"));
            assertThat(maps.read().orElseThrow().map().shard("shard-0").orElseThrow())
                    .extracting(Shard::primary, Shard::epoch)
                    .containsExactly(id(dc.backup()), 2L);
            assertThat(info(restarted)).contains("kvs_epoch:2");
            assertThat(reply(dc.backup(), "GET", "k")).isEqualTo("v");
        }
    }

    @Test
    void aRestartedPrimaryThatTheMapStillNamesRecordsItsNewEpochInTheMap() throws Exception {
        // the primary alone in its shard's map: no backup for a coordinator to promote while it restarts
        maps.create(ClusterMap.evenly(List.of(List.of(id(dc.primary())))));
        await("the primary serves")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reply(dc.primary(), "SET", "k", "v").equals("OK"));
        dc.restartPrimaryEmpty(); // persisted: it comes back with its data, in epoch 2

        await("the map follows the restarted primary's epoch, so that a backup streaming in it is promotable")
                .atMost(Duration.ofSeconds(10))
                .until(() -> maps.read()
                                .orElseThrow()
                                .map()
                                .shard("shard-0")
                                .orElseThrow()
                                .epoch()
                        == 2);
        assertThat(maps.read()
                        .orElseThrow()
                        .map()
                        .shard("shard-0")
                        .orElseThrow()
                        .primary())
                .isEqualTo(id(dc.primary()));
        assertThat(reply(dc.primary(), "GET", "k")).isEqualTo("v");
        assertThat(info(dc.primary())).contains("kvs_epoch:2");
    }

    private static String readOnlyGet(KvsNode node, String key) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port())) {
            jedis.readonly();
            return String.valueOf(jedis.get(key));
        } catch (JedisDataException e) {
            return "-" + e.getMessage();
        }
    }
}
