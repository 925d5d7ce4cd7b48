package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.cluster.ClusterLayout;
import dev.kvs.server.internal.cluster.ClusterMember;
import dev.kvs.server.internal.cluster.LatestClusterView;
import dev.kvs.server.internal.cluster.TestLayouts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * Cluster-aware clients against three kvs nodes in-process, each owning a third of the slots and
 * agreeing on the layout (static views, published once every node's port is known): JedisCluster,
 * which routes by {@code CLUSTER SLOTS} and follows {@code -MOVED}, and {@code redis-cli -c}, which
 * follows {@code -MOVED}.
 */
class ClusterClientsTest {
    private static final int NODES = 3;
    private static final List<List<String>> SHARDS = List.of(List.of("n0"), List.of("n1"), List.of("n2"));
    private static final ClusterMap MAP = ClusterMap.evenly(SHARDS);
    private static final List<LiveRespServer> nodes = new ArrayList<>();
    private static int[] ports;

    @BeforeAll
    static void start() throws InterruptedException {
        List<LatestClusterView> views = new ArrayList<>();
        for (int i = 0; i < NODES; i++) {
            // until every port is known: a layout naming port 1 for every member
            views.add(new LatestClusterView(layout("n" + i, new int[] {1, 1, 1})));
            nodes.add(new LiveRespServer(
                    NodeConfig.builder()
                            .store(StoreConfig.builder()
                                    .maxEntries(10_000)
                                    .maxBytes(64L << 20)
                                    .build())
                            .build(),
                    views.get(i)));
        }
        ports = nodes.stream().mapToInt(n -> n.port).toArray();
        for (int i = 0; i < NODES; i++) views.get(i).update(layout("n" + i, ports));
    }

    @AfterAll
    static void stop() {
        for (LiveRespServer n : nodes) n.close();
    }

    @Test
    void jedisClusterSetsAndGetsKeysOfEverySlotRangeWithoutErrors() {
        int errors = 0;
        List<String> keys = new ArrayList<>();
        // one seed node: JedisCluster learns the others from CLUSTER SLOTS
        try (JedisCluster jedis = new JedisCluster(Set.of(new HostAndPort("127.0.0.1", ports[1])))) {
            for (int i = 0; i < 300; i++) {
                String key = "jedis:" + i;
                keys.add(key);
                try {
                    assertThat(jedis.set(key, "v" + i)).isEqualTo("OK");
                    assertThat(jedis.get(key)).isEqualTo("v" + i);
                } catch (RuntimeException e) {
                    errors++;
                }
            }
        }
        assertThat(errors).isZero();
        List<Integer> owners = new ArrayList<>();
        for (String key : keys) {
            int owner = owner(key);
            owners.add(owner);
            for (int n = 0; n < NODES; n++) {
                assertThat(holds(n, key))
                        .as("%s (slot %d) on n%d", key, slot(key), n)
                        .isEqualTo(n == owner);
            }
        }
        assertThat(owners).contains(0, 1, 2);
    }

    @Test
    void redisCliInClusterModeFollowsMovedToTheOwningNode() throws Exception {
        Assumptions.assumeTrue(RedisCli.available(), "redis-cli is not installed");
        String key = "cli:foo"; // asked of a node that does not own it
        int asked = (owner(key) + 1) % NODES;
        assertThat(RedisCli.run(ports[asked], "-c", "SET", key, "bar")).isEqualTo("OK");
        assertThat(RedisCli.run(ports[asked], "-c", "GET", key)).isEqualTo("bar");
        assertThat(holds(owner(key), key)).isTrue();
        assertThat(holds(asked, key)).isFalse();
        // without -c redis-cli shows the redirect itself (no "(error)" prefix: not a terminal)
        assertThat(RedisCli.run(ports[asked], "GET", key))
                .isEqualTo("MOVED " + slot(key) + " 127.0.0.1:" + ports[owner(key)]);
    }

    private static ClusterLayout layout(String me, int[] ports) {
        Map<String, ClusterMember> members = new HashMap<>();
        for (int i = 0; i < NODES; i++) {
            members.put("n" + i, new ClusterMember(TestLayouts.nodeId("n" + i), "127.0.0.1", ports[i]));
        }
        return new ClusterLayout(MAP, me, members);
    }

    private static int owner(String key) {
        return SHARDS.indexOf(MAP.shardOf(slot(key)).members());
    }

    private static boolean holds(int node, String key) {
        return nodes.get(node).commands.store().get(key.getBytes(StandardCharsets.UTF_8)) != null;
    }

    private static int slot(String key) {
        return HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
    }

    /** The redis-cli binary, one command per process. */
    private static final class RedisCli {
        static boolean available() {
            try {
                return new ProcessBuilder("redis-cli", "--version").start().waitFor() == 0;
            } catch (IOException e) {
                return false;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }

        /** Its output, trimmed; fails if it has not ended in 30 s. */
        static String run(int port, String... args) throws IOException, InterruptedException {
            List<String> cmd = new ArrayList<>(List.of("redis-cli", "-h", "127.0.0.1", "-p", Integer.toString(port)));
            cmd.addAll(List.of(args));
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("%s ended", cmd).isTrue();
            return out.trim();
        }
    }
}
