package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.testing.cluster.TwoDc;
import dev.kvs.testing.zookeeper.Ensemble;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.ZooDefs;
import org.apache.zookeeper.data.ACL;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;

/**
 * A switchover on a coordinated pair ({@link TwoDc}) on a real three-server ensemble ({@link Ensemble})
 * whose cluster-map write fails: the map's znode is made read-only with an ACL, so ZooKeeper refuses
 * every write of it ({@code NoAuth}) while sessions, member znodes and leases go on as before. The
 * switchover must answer why and leave the shard with exactly one primary, the old one at its epoch;
 * once the map can be written again, a switchover moves the map's epoch exactly once.
 */
class SwitchoverMapWriteTest {
    private static final String CLUSTER = "switchover-test";

    private Ensemble ensemble;
    private CuratorFramework observer;
    private TwoDc dc;
    private ClusterMapStore maps;
    private final ZkPaths paths = new ZkPaths(CLUSTER);

    @BeforeEach
    void start() throws Exception {
        ensemble = new Ensemble();
        observer = ensemble.client();
        maps = new ClusterMapStore(observer, paths);
        String zk = ensemble.connectString();
        dc = TwoDc.builder()
                .returnLink(Duration.ofMillis(1))
                .primary(b -> b.cluster(CLUSTER).coordination(coordination(zk)))
                .backup(b -> b.cluster(CLUSTER).coordination(coordination(zk)))
                .start();
        maps.create(ClusterMap.evenly(List.of(List.of(id(dc.primary()), id(dc.backup())))));
        await("the primary serves")
                .atMost(Duration.ofSeconds(15))
                .until(() -> EnsembleShard.set(dc.primary(), "k", "v").equals("OK"));
        await("the backup is streaming")
                .atMost(Duration.ofSeconds(15))
                .until(() -> new String(observer.getData().forPath(paths.member(id(dc.backup()))))
                        .contains("\"streaming\":true"));
    }

    private static CoordinationConfig coordination(String zk) {
        return new CoordinationConfig(zk, Optional.empty(), Ensemble.SESSION, "shard-0");
    }

    @AfterEach
    void stop() throws Exception {
        if (dc != null) dc.close();
        if (observer != null) observer.close();
        if (ensemble != null) ensemble.close();
    }

    private static String id(KvsNode node) {
        return node.config().nodeId();
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

    private Shard shard() throws Exception {
        return maps.read().orElseThrow().map().shard("shard-0").orElseThrow();
    }

    /** The map's znode: everyone may read it (and change its ACL back), nobody may write it. */
    private void mapReadOnly(boolean readOnly) throws Exception {
        List<ACL> acl = readOnly
                ? List.of(new ACL(ZooDefs.Perms.READ | ZooDefs.Perms.ADMIN, ZooDefs.Ids.ANYONE_ID_UNSAFE))
                : ZooDefs.Ids.OPEN_ACL_UNSAFE;
        observer.setACL().withACL(acl).forPath(paths.map());
    }

    @Test
    void aSwitchoverWhoseMapWriteFailsLeavesTheOldPrimaryServingAtItsEpoch() throws Exception {
        mapReadOnly(true);

        Answer refused = post(dc.primary(), "/switchover?timeoutMs=10000");
        assertThat(refused.status()).as(refused.body()).isEqualTo(409);
        assertThat(refused.body()).contains("switchover not made").contains("NoAuth");
        assertThat(maps.read().orElseThrow().version())
                .as("the map is unchanged")
                .isZero();
        assertThat(shard()).extracting(Shard::primary, Shard::epoch).containsExactly(id(dc.primary()), 1L);
        // exactly one primary: the old one, at its epoch, taking writes; the backup still its backup
        assertThat(EnsembleShard.set(dc.primary(), "k2", "v2")).isEqualTo("OK");
        assertThat(EnsembleShard.info(dc.primary())).contains("role:master").contains("kvs_epoch:1");
        assertThat(EnsembleShard.info(dc.backup())).contains("role:slave").contains("kvs_epoch:1");
        await("the backup still receives the primary's writes")
                .atMost(Duration.ofSeconds(10))
                .until(() -> readOnBackup("k2").equals("v2"));

        mapReadOnly(false);
        Answer handed = post(dc.primary(), "/switchover?timeoutMs=10000");
        assertThat(handed.status()).as(handed.body()).isEqualTo(200);
        assertThat(handed.body()).contains("\"epoch\":2");
        assertThat(maps.read().orElseThrow().version()).as("one map write").isEqualTo(1);
        assertThat(shard()).extracting(Shard::primary, Shard::epoch).containsExactly(id(dc.backup()), 2L);
        await("the new primary serves under its lease")
                .atMost(Duration.ofSeconds(10))
                .until(() -> EnsembleShard.set(dc.backup(), "k3", "v3").equals("OK"));
        assertThat(EnsembleShard.info(dc.backup())).contains("role:master").contains("kvs_epoch:2");
        await("the old primary serves as the backup")
                .atMost(Duration.ofSeconds(10))
                .until(() -> EnsembleShard.info(dc.primary()).contains("role:slave"));
        assertThat(EnsembleShard.info(dc.primary())).contains("kvs_epoch:2");
        assertThat(maps.read().orElseThrow().version())
                .as("still one map write")
                .isEqualTo(1);
    }

    private String readOnBackup(String key) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, dc.backup().port(), 1000)) {
            jedis.readonly();
            return String.valueOf(jedis.get(key));
        }
    }
}
