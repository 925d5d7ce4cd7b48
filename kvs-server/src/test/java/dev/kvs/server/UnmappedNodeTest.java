package dev.kvs.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.coordination.ClusterMapStore;
import dev.kvs.coordination.ZkPaths;
import dev.kvs.replication.Role;
import dev.kvs.server.config.CoordinationConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.testing.cluster.TwoDc;
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
 * A node started with {@code coordination:} on a real ZooKeeper ({@link TestingServer}) that has no
 * cluster map yet answers as a Redis Cluster node with no slots assigned, under its own node id and client
 * port, until the map is created; then as a member of the map.
 */
class UnmappedNodeTest {
    private static final String CLUSTER = "unmapped-test";

    private TestingServer zookeeper;
    private CuratorFramework observer;
    private KvsNode node;

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
        node = KvsNode.start(NodeConfig.builder()
                .name("alone")
                .port(0)
                .adminPort(0)
                .replPort(0)
                .role(Role.PRIMARY)
                .peer(TwoDc.HOST + ":1") // nothing listens there
                .cluster(CLUSTER)
                .coordination(new CoordinationConfig(
                        zookeeper.getConnectString(), Optional.empty(), Duration.ofMillis(1500), "shard-0"))
                .build());
    }

    @AfterEach
    void stop() throws Exception {
        if (node != null) node.close();
        if (observer != null) observer.close();
        if (zookeeper != null) zookeeper.close();
    }

    private String reply(String... command) {
        try (Jedis jedis = new Jedis(TwoDc.HOST, node.port())) {
            Object r = jedis.sendCommand(
                    () -> command[0].getBytes(StandardCharsets.UTF_8),
                    java.util.Arrays.copyOfRange(command, 1, command.length));
            if (r instanceof byte[] b) return new String(b, StandardCharsets.UTF_8);
            return r instanceof List<?> l ? "array of " + l.size() : String.valueOf(r);
        } catch (JedisDataException e) {
            return "-" + e.getMessage();
        }
    }

    @Test
    void withoutAMapItAnswersAsAClusterNodeWithNoSlotsThenAsAMemberOnceTheMapExists() throws Exception {
        String id = node.config().nodeId();
        assertThat(reply("CLUSTER", "SLOTS")).isEqualTo("array of 0");
        assertThat(reply("CLUSTER", "MYID")).isEqualTo(id);
        assertThat(reply("CLUSTER", "NODES"))
                .isEqualTo(id + " :" + node.port() + "@0 myself,master - 0 0 0 connected\n");
        assertThat(reply("CLUSTER", "INFO")).startsWith("cluster_state:fail\r\ncluster_slots_assigned:0\r\n");
        assertThat(reply("GET", "k")).isEqualTo("-CLUSTERDOWN Hash slot not served");
        assertThat(reply("PING")).isEqualTo("PONG");

        new ClusterMapStore(observer, new ZkPaths(CLUSTER)).create(ClusterMap.evenly(List.of(List.of(id))));
        await("the node answers by the map")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reply("CLUSTER", "SLOTS").equals("array of 1"));
        assertThat(reply("CLUSTER", "INFO")).startsWith("cluster_state:ok\r\ncluster_slots_assigned:16384\r\n");
        await("the primary serves reads of its slots under its lease")
                .atMost(Duration.ofSeconds(10))
                .until(() -> reply("GET", "k").equals("null"));
    }
}
