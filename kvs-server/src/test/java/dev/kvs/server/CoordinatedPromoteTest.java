package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.server.config.AdminConfig;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.testing.cluster.TwoDc;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * {@code POST /promote} on a coordinated node goes through the cluster map (a real ZooKeeper, {@link
 * TestingServer}): refused with 409 while the old primary's member znode exists, unless forced; otherwise
 * the map names this node primary at the next epoch and the node promotes itself with it.
 */
class CoordinatedPromoteTest {
    private static final Duration SESSION = Duration.ofMillis(1500);
    private static final String CLUSTER = "promote-test";

    private TestingServer zookeeper;
    private CuratorFramework observer;
    private TwoDc dc;
    private ClusterMapStore maps;
    private final ZkPaths paths = new ZkPaths(CLUSTER);

    @BeforeEach
    void start() throws Exception {
        zookeeper = new TestingServer(new InstanceSpec(null, -1, -1, -1, true, -1, 100, 100), true);
        observer = CuratorFrameworkFactory.builder()
                .connectString(zookeeper.getConnectString())
                .sessionTimeoutMs(10_000)
                .retryPolicy(new RetryOneTime(50))
                .build();
        observer.start();
        assertThat(observer.blockUntilConnected(10, TimeUnit.SECONDS)).isTrue();
        maps = new ClusterMapStore(observer, paths);
        String zk = zookeeper.getConnectString();
        dc = TwoDc.builder()
                .returnLink(Duration.ofMillis(1))
                .primary(b -> b.cluster(CLUSTER)
                        .coordination(new CoordinationConfig(zk, Optional.empty(), SESSION, "shard-0", "east")))
                .backup(b -> b.cluster(CLUSTER)
                        .admin(AdminConfig.defaults().withRespCommands(true))
                        .coordination(new CoordinationConfig(zk, Optional.empty(), SESSION, "shard-0", "west")))
                .start();
    }

    @AfterEach
    void stop() throws Exception {
        if (dc != null) dc.close();
        if (observer != null) observer.close();
        if (zookeeper != null) zookeeper.close();
    }

    private static String id(KvsNode node) {
        return node.config().nodeId();
    }

    /** The map with shard-0 = (primary, backup), the primary named, at {@code epoch}. */
    private void createMap(long epoch) throws Exception {
        Shard s = ClusterMap.evenly(List.of(List.of(id(dc.primary()), id(dc.backup()))))
                .shards()
                .get(0);
        maps.create(new ClusterMap(List.of(new Shard(s.id(), s.slots(), s.members(), s.primary(), epoch))));
        await("the backup reads the map")
                .atMost(Duration.ofSeconds(10))
                .until(() -> info(dc.backup()).contains("kvs_cluster_map_version:0"));
    }

    private record Answer(int status, String body) {}

    private static Answer post(KvsNode node, String pathAndQuery) throws Exception {
        HttpResponse<String> r = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.adminPort() + pathAndQuery))
                                .header("X-Kvs-Admin", "1")
                                .POST(HttpRequest.BodyPublishers.noBody())
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        return new Answer(r.statusCode(), r.body());
    }

    private static String info(KvsNode node) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port())) {
            return jedis.info("replication");
        }
    }

    private static String reply(KvsNode node, String... command) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port())) {
            Object r = jedis.sendCommand(
                    () -> command[0].getBytes(StandardCharsets.UTF_8),
                    java.util.Arrays.copyOfRange(command, 1, command.length));
            return r instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(r);
        } catch (JedisDataException e) {
            return "-" + e.getMessage();
        }
    }

    private Shard shard() throws Exception {
        return maps.read().orElseThrow().map().shard("shard-0").orElseThrow();
    }

    @Test
    void promoteIsRefusedWhileTheOldPrimarysZnodeExistsAndGoesThroughTheMapOnceItIsGone() throws Exception {
        // shard epoch 5, the backup at 1: a coordinator never promotes it (not at the shard's epoch), an
        // operator may, accepting what it lacks
        createMap(5);

        Answer refused = post(dc.backup(), "/promote");
        assertThat(refused.status()).as(refused.body()).isEqualTo(409);
        assertThat(refused.body())
                .contains("the primary of shard shard-0 (" + id(dc.primary()) + ") still has its member znode")
                .contains("force=true");
        assertThat(maps.read().orElseThrow().version())
                .as("the map is unchanged")
                .isZero();
        assertThat(info(dc.backup())).contains("role:slave");
        assertThat(post(dc.backup(), "/promote?force=maybe").status()).isEqualTo(400);
        assertThat(post(dc.backup(), "/promote?forced=true").status()).isEqualTo(400);

        dc.stopPrimary(); // its znode goes with it
        await("the old primary's znode is gone")
                .atMost(Duration.ofSeconds(10))
                .until(() -> observer.checkExists().forPath(paths.member(id(dc.primary()))) == null);

        Answer promoted = post(dc.backup(), "/promote");
        assertThat(promoted.status()).as(promoted.body()).isEqualTo(200);
        assertThat(promoted.body()).contains("\"epoch\":6").contains("\"role\":\"primary\"");
        assertThat(shard()).extracting(Shard::primary, Shard::epoch).containsExactly(id(dc.backup()), 6L);
        assertThat(info(dc.backup())).contains("role:master").contains("kvs_epoch:6");
        await("the new primary serves")
                .atMost(Duration.ofSeconds(5))
                .until(() -> reply(dc.backup(), "SET", "k", "v").equals("OK"));
        Answer again = post(dc.backup(), "/promote");
        assertThat(again.status()).isEqualTo(409);
        assertThat(again.body()).contains("already the primary");
    }

    @Test
    void kvsPromoteGoesThroughTheMapAsPostPromoteDoes() throws Exception {
        createMap(1);
        await("the primary serves")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reply(dc.primary(), "SET", "k", "v").equals("OK"));

        assertThat(reply(dc.backup(), "KVS.PROMOTE"))
                .startsWith("-ERR ")
                .contains("the primary of shard shard-0 (" + id(dc.primary()) + ") still has its member znode");
        assertThat(maps.read().orElseThrow().version())
                .as("the map is unchanged")
                .isZero();
        assertThat(info(dc.backup())).contains("role:slave").contains("kvs_epoch:1");
        assertThat(reply(dc.backup(), "KVS.PROMOTE", "FORCE", "FORCE")).isEqualTo("-ERR syntax error");

        assertThat(reply(dc.backup(), "KVS.PROMOTE", "FORCE")).isEqualTo("OK promoted to primary in epoch 2");
        assertThat(shard()).extracting(Shard::primary, Shard::epoch).containsExactly(id(dc.backup()), 2L);
        await("the new primary serves under its lease")
                .atMost(Duration.ofSeconds(5))
                .until(() -> reply(dc.backup(), "SET", "k2", "v2").equals("OK"));
    }

    @Test
    void aSwitchoverGoesThroughTheMapSoThatTheNewPrimaryServes() throws Exception {
        createMap(1);
        await("the primary serves")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reply(dc.primary(), "SET", "k", "v").equals("OK"));

        Answer handed = post(dc.primary(), "/switchover?timeoutMs=10000");
        assertThat(handed.status()).as(handed.body()).isEqualTo(200);
        assertThat(handed.body()).contains("\"epoch\":2");
        await("the map names the new primary")
                .atMost(Duration.ofSeconds(5))
                .until(() -> shard().primary().equals(id(dc.backup())));
        assertThat(shard().epoch()).isEqualTo(2L);
        await("the new primary serves under its lease")
                .atMost(Duration.ofSeconds(5))
                .until(() -> reply(dc.backup(), "SET", "k2", "v2").equals("OK"));
        assertThat(reply(dc.backup(), "GET", "k")).isEqualTo("v");
        assertThat(info(dc.primary())).contains("role:slave").contains("kvs_epoch:2");
    }

    @Test
    void eachNodePublishesItsDatacenterAndShowsItAndTheCoordinator() throws Exception {
        createMap(1);
        assertThat(new String(observer.getData().forPath(paths.member(id(dc.backup()))), StandardCharsets.UTF_8))
                .contains("\"dc\":\"west\"");
        HttpResponse<String> status = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + dc.primary().adminPort() + "/status"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        assertThat(status.body())
                .contains("\"shard\":\"shard-0\",\"dc\":\"east\"")
                .containsPattern("\"coordinator\":\\{\"leader\":(true|false),\"rounds\":\\d+");
        assertThat(info(dc.primary())).contains("kvs_coordination_dc:east");
        await("one of the two coordinators leads")
                .atMost(Duration.ofSeconds(10))
                .until(() -> info(dc.primary()).contains("kvs_coordinator_leader:1")
                        || info(dc.backup()).contains("kvs_coordinator_leader:1"));
        await("the view is published")
                .atMost(Duration.ofSeconds(10))
                .until(() -> info(dc.backup()).contains("kvs_cluster_view:1"));
        String metrics = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(
                                        "http://127.0.0.1:" + dc.backup().adminPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        assertThat(metrics)
                .contains("kvs_cluster_map_version 0.0")
                .contains("kvs_cluster_view 1.0")
                .contains("kvs_cluster_view_problem 0.0")
                .contains("kvs_cluster_promotions_by_map_total 0.0")
                .containsPattern("kvs_coordinator_leader [01]\\.0")
                .containsPattern("kvs_coordinator_rounds_total \\d")
                .contains("kvs_coordinator_conflicts_total 0.0");
    }

    @Test
    void aForcedPromotionGoesThroughTheMapAndDeposesTheLiveOldPrimary() throws Exception {
        createMap(1);
        await("the primary serves")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reply(dc.primary(), "SET", "k", "v").equals("OK"));

        Answer forced = post(dc.backup(), "/promote?force=true");
        assertThat(forced.status()).as(forced.body()).isEqualTo(200);
        assertThat(forced.body()).contains("\"epoch\":2");
        assertThat(shard()).extracting(Shard::primary, Shard::epoch).containsExactly(id(dc.backup()), 2L);

        String moved = "-MOVED " + HashSlots.slot("k".getBytes(StandardCharsets.UTF_8)) + " 127.0.0.1:"
                + dc.backup().port();
        await("the old primary is deposed and sends clients to the new one")
                .atMost(Duration.ofSeconds(5))
                .until(() -> reply(dc.primary(), "SET", "k", "w").equals(moved));
        await("the new primary serves")
                .atMost(Duration.ofSeconds(5))
                .until(() -> reply(dc.backup(), "GET", "k").equals("v"));
    }
}
