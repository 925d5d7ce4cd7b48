package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.cluster.TestLayouts.nodeId;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.cluster.ClusterLayout;
import dev.kvs.server.internal.cluster.ClusterMember;
import dev.kvs.server.internal.cluster.ClusterView;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What {@code CLUSTER} shows of members known to be down (a live Redis cluster would take its node
 * timeout to show them; the formats are Redis 7.0.15's: {@code fail} flag, {@code disconnected} link,
 * {@code health fail}, a failed replica left out of {@code CLUSTER SLOTS}). Replies for a healthy
 * cluster are compared with a live Redis in {@code ClusterRepliesTest}.
 */
class ClusterCommandsTest {
    @Test
    void downMembersAreFailedDisconnectedAndTheirSlotsNotOk() {
        // shard a: a1 (up, this node) and a2 (down); shard b: b1 (down)
        ClusterMap map = new ClusterMap(List.of(
                new Shard("a", List.of(new SlotRange(0, 8191)), List.of("a1", "a2"), "a1", 1),
                new Shard("b", List.of(new SlotRange(8192, 16383)), List.of("b1"), "b1", 2)));
        ClusterLayout layout = new ClusterLayout(
                map,
                "a1",
                Map.of(
                        "a1", new ClusterMember(nodeId("a1"), "127.0.0.1", 7001),
                        "a2", new ClusterMember(nodeId("a2"), "127.0.0.1", 7002, false, 0),
                        "b1", new ClusterMember(nodeId("b1"), "127.0.0.1", 7003, false, 0)));
        try (RespChannel a1 = RespChannel.clustered(
                NodeConfig.builder()
                        .store(StoreConfig.builder()
                                .maxEntries(100)
                                .maxBytes(16L << 20)
                                .build())
                        .build(),
                ClusterView.of(layout))) {
            assertThat(RespText.parse(a1.command("CLUSTER", "NODES")))
                    .isEqualTo(nodeId("a1") + " 127.0.0.1:7001@0 myself,master - 0 0 1 connected 0-8191\n"
                            + nodeId("a2") + " 127.0.0.1:7002@0 slave,fail " + nodeId("a1")
                            + " 0 0 1 disconnected\n"
                            + nodeId("b1") + " 127.0.0.1:7003@0 master,fail - 0 0 2 disconnected 8192-16383\n");
            assertThat(RespText.parse(a1.command("CLUSTER", "INFO")).toString())
                    .startsWith("cluster_state:fail\r\ncluster_slots_assigned:16384\r\ncluster_slots_ok:8192\r\n"
                            + "cluster_slots_pfail:0\r\ncluster_slots_fail:8192\r\ncluster_known_nodes:3\r\n"
                            + "cluster_size:2\r\ncluster_current_epoch:2\r\ncluster_my_epoch:1\r\n");
            assertThat(RespText.parse(a1.command("CLUSTER", "SLOTS")))
                    .isEqualTo(List.of(
                            List.of(0L, 8191L, List.of("127.0.0.1", 7001L, nodeId("a1"), List.of())),
                            List.of(8192L, 16383L, List.of("127.0.0.1", 7003L, nodeId("b1"), List.of()))));
            assertThat(a1.command("CLUSTER", "SHARDS"))
                    .contains("$6\r\nhealth\r\n$6\r\nonline\r\n")
                    .contains("$7\r\nreplica\r\n$18\r\nreplication-offset\r\n:0\r\n$6\r\nhealth\r\n$4\r\nfail\r\n");
            assertThat(a1.command("CLUSTER", "MEET", "127.0.0.1", "7004"))
                    .startsWith("-ERR CLUSTER MEET is not supported");
        }
    }
}
