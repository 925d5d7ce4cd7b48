package dev.kvs.server.internal.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ClusterLayoutTest {
    @Test
    void aPrimaryServesItsShardsSlotsAndRedirectsOthersToTheirPrimary() {
        ClusterLayout a1 = TestLayouts.twoShards("a1", 7001, 7002, 7003);
        assertThat(a1.redirect(0, false)).isNull();
        assertThat(a1.redirect(8191, false)).isNull();
        assertThat(a1.redirect(8192, false)).isEqualTo("127.0.0.1:7003");
        assertThat(a1.redirect(16383, true)).isEqualTo("127.0.0.1:7003");
    }

    @Test
    void aBackupServesItsShardsSlotsToBackupReadsOnlyAndSendsTheRestToThePrimary() {
        ClusterLayout a2 = TestLayouts.twoShards("a2", 7001, 7002, 7003);
        assertThat(a2.redirect(100, true)).isNull();
        assertThat(a2.redirect(100, false)).isEqualTo("127.0.0.1:7001");
        assertThat(a2.redirect(9000, true)).isEqualTo("127.0.0.1:7003");
        assertThat(a2.isPrimary()).isFalse();
        assertThat(a2.myId()).isEqualTo(TestLayouts.nodeId("a2"));
    }

    @Test
    void neighbouringRangesOfAShardAreListedAsOne() {
        ClusterMap map = new ClusterMap(List.of(
                new Shard(
                        "a",
                        List.of(new SlotRange(0, 99), new SlotRange(100, 199), new SlotRange(300, 16383)),
                        List.of("n"),
                        "n",
                        3),
                new Shard("b", List.of(new SlotRange(200, 299)), List.of("m"), "m", 5)));
        ClusterLayout layout = new ClusterLayout(
                map,
                "n",
                Map.of(
                        "n", new ClusterMember(TestLayouts.nodeId("n"), "h", 1),
                        "m", new ClusterMember(TestLayouts.nodeId("m"), "h", 2)));
        assertThat(layout.ranges(map.shards().get(0)))
                .containsExactly(new SlotRange(0, 199), new SlotRange(300, 16383));
        assertThat(layout.currentEpoch()).isEqualTo(5);
    }

    @Test
    void aLayoutWithoutThisNodeOrAnAddressIsRefused() {
        ClusterMap map = ClusterMap.evenly(List.of(List.of("n")));
        ClusterMember n = new ClusterMember(TestLayouts.nodeId("n"), "h", 1);
        assertThatThrownBy(() -> new ClusterLayout(map, "other", Map.of("n", n)))
                .hasMessage("this node (other) is a member of no shard");
        assertThatThrownBy(() -> new ClusterLayout(map, "n", Map.of()))
                .hasMessage("no address for member n of shard-0");
        assertThatThrownBy(() -> new ClusterMember("ABC", "h", 1))
                .hasMessage("node id is not 40 lower-case hex characters: ABC");
    }
}
