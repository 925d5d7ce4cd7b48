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
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.JedisCluster;

/**
 * JedisCluster, a cluster-aware client that routes by {@code CLUSTER SLOTS} and follows {@code -MOVED},
 * against three kvs nodes in-process, each owning a third of the slots and agreeing on the layout
 * (static views, published once every node's port is known).
 */
class JedisClusterTest {
    private static final int NODES = 3;

    @Test
    void jedisClusterSetsAndGetsKeysOfEverySlotRangeWithoutErrors() throws Exception {
        List<List<String>> shards = new ArrayList<>();
        for (int i = 0; i < NODES; i++) shards.add(List.of("n" + i));
        ClusterMap map = ClusterMap.evenly(shards);
        List<LatestClusterView> views = new ArrayList<>();
        List<LiveRespServer> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                // until every port is known: a layout naming port 1 for every member
                views.add(new LatestClusterView(layout(map, "n" + i, new int[] {1, 1, 1})));
                nodes.add(new LiveRespServer(
                        NodeConfig.builder()
                                .store(StoreConfig.builder()
                                        .maxEntries(10_000)
                                        .maxBytes(64L << 20)
                                        .build())
                                .build(),
                        views.get(i)));
            }
            int[] ports = nodes.stream().mapToInt(n -> n.port).toArray();
            for (int i = 0; i < NODES; i++) views.get(i).update(layout(map, "n" + i, ports));

            int errors = 0;
            Map<String, Integer> ownerOf = new HashMap<>();
            // one seed node: JedisCluster learns the others from CLUSTER SLOTS
            try (JedisCluster jedis = new JedisCluster(Set.of(new HostAndPort("127.0.0.1", ports[1])))) {
                for (int i = 0; i < 300; i++) {
                    String key = "key:" + i;
                    try {
                        assertThat(jedis.set(key, "v" + i)).isEqualTo("OK");
                        assertThat(jedis.get(key)).isEqualTo("v" + i);
                    } catch (RuntimeException e) {
                        errors++;
                    }
                    ownerOf.put(key, shards.indexOf(map.shardOf(slot(key)).members()));
                }
            }
            assertThat(errors).isZero();
            for (var e : ownerOf.entrySet()) {
                for (int n = 0; n < NODES; n++) {
                    boolean held =
                            nodes.get(n).commands.store().get(e.getKey().getBytes(StandardCharsets.UTF_8)) != null;
                    assertThat(held)
                            .as("%s (slot %d) on n%d", e.getKey(), slot(e.getKey()), n)
                            .isEqualTo(n == e.getValue());
                }
            }
            assertThat(ownerOf.values()).contains(0, 1, 2);
        } finally {
            for (LiveRespServer n : nodes) n.close();
        }
    }

    private static ClusterLayout layout(ClusterMap map, String me, int[] ports) {
        Map<String, ClusterMember> members = new HashMap<>();
        for (int i = 0; i < NODES; i++) {
            members.put("n" + i, new ClusterMember(TestLayouts.nodeId("n" + i), "127.0.0.1", ports[i]));
        }
        return new ClusterLayout(map, me, members);
    }

    private static int slot(String key) {
        return HashSlots.slot(key.getBytes(StandardCharsets.UTF_8));
    }
}
