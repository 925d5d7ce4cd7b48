package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.core.StoreConfig;
import dev.kvs.core.TxId;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.cluster.ClusterLayout;
import dev.kvs.server.internal.cluster.ClusterMember;
import dev.kvs.server.internal.cluster.LatestClusterView;
import dev.kvs.server.internal.cluster.TestLayouts;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A read that waits in the read gate for a fenced key (unfinished after a promotion, the {@code block}
 * policy) is asked again, when the key's value arrives, whether this node may still serve it: meanwhile
 * its slot may have moved to another shard ({@code -MOVED}) or the primary's lease lapsed ({@code
 * -CLUSTERDOWN}). Node a1 of {@link TestLayouts#twoShards}; "bar" hashes to 5061.
 */
class WaitingReadTest {
    private static final byte[] BAR = "bar".getBytes(StandardCharsets.UTF_8);
    private static final TxId FENCED_BY = TxId.of(1, 50);

    @Test
    void aWaitingReadIsMovedWhenItsSlotMovedWhileItWaited() {
        LatestClusterView view = new LatestClusterView(TestLayouts.twoShards("a1", 7001, 7002, 7003));
        try (RespChannel a1 = RespChannel.clustered(config(), view)) {
            UnfinishedKeys unfinished = fence(a1);
            assertThat(a1.command("GET", "bar")).isEmpty(); // waits for the value
            view.update(slot5061MovedToB());
            unfinished.resolve(BAR, FENCED_BY);
            a1.channel.runPendingTasks();
            assertThat(a1.drain()).isEqualTo("-MOVED 5061 127.0.0.1:7003\r\n");
            assertThat(a1.command("GET", "bar")).isEqualTo("-MOVED 5061 127.0.0.1:7003\r\n");
        }
    }

    @Test
    void aWaitingReadIsRefusedWhenTheLeaseLapsedWhileItWaited() {
        AtomicBoolean leaseHeld = new AtomicBoolean(true);
        try (RespChannel primary = new RespChannel(config())) {
            primary.node.roles().serveUnder(leaseHeld::get);
            UnfinishedKeys unfinished = fence(primary);
            assertThat(primary.command("GET", "bar")).isEmpty();
            leaseHeld.set(false);
            unfinished.resolve(BAR, FENCED_BY);
            primary.channel.runPendingTasks();
            assertThat(primary.drain()).isEqualTo("-CLUSTERDOWN The cluster is down\r\n");
        }
    }

    @Test
    void aWaitingReadStillServedByThisNodeRunsWhenTheValueArrives() {
        LatestClusterView view = new LatestClusterView(TestLayouts.twoShards("a1", 7001, 7002, 7003));
        try (RespChannel a1 = RespChannel.clustered(config(), view)) {
            UnfinishedKeys unfinished = fence(a1);
            assertThat(a1.command("GET", "bar")).isEmpty();
            unfinished.resolve(BAR, FENCED_BY);
            a1.channel.runPendingTasks();
            assertThat(a1.drain()).isEqualTo("$-1\r\n");
        }
    }

    /** Fences "bar" as unfinished after a promotion; reads of it wait (the default {@code block} policy). */
    private static UnfinishedKeys fence(RespChannel node) {
        UnfinishedKeys unfinished = new UnfinishedKeys();
        unfinished.add(BAR, FENCED_BY, 1, 0);
        node.commands.gate().activate(unfinished);
        return unfinished;
    }

    /** {@link TestLayouts#twoShards} as a1 sees it once slot 5061 moved from shard a to shard b. */
    private static ClusterLayout slot5061MovedToB() {
        ClusterMap map = new ClusterMap(List.of(
                new Shard(
                        "a", List.of(new SlotRange(0, 5060), new SlotRange(5062, 8191)), List.of("a1", "a2"), "a1", 1),
                new Shard(
                        "b", List.of(new SlotRange(5061, 5061), new SlotRange(8192, 16383)), List.of("b1"), "b1", 2)));
        return new ClusterLayout(
                map,
                "a1",
                Map.of(
                        "a1", new ClusterMember(TestLayouts.nodeId("a1"), "127.0.0.1", 7001),
                        "a2", new ClusterMember(TestLayouts.nodeId("a2"), "127.0.0.1", 7002),
                        "b1", new ClusterMember(TestLayouts.nodeId("b1"), "127.0.0.1", 7003)));
    }

    private static NodeConfig config() {
        return NodeConfig.builder()
                .store(StoreConfig.builder()
                        .maxEntries(1000)
                        .maxBytes(64L << 20)
                        .build())
                .build();
    }
}
