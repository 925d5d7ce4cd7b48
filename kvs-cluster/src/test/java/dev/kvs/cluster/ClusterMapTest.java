package dev.kvs.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ClusterMapTest {

    @ParameterizedTest
    @ValueSource(ints = {1, 2, 3, 7, 16384})
    void evenShardsOwnEverySlotOnce(int count) {
        List<List<String>> members = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) members.add(List.of("a" + i, "b" + i));
        ClusterMap map = ClusterMap.evenly(members);

        int owned = map.shards().stream()
                .flatMap(s -> s.slots().stream())
                .mapToInt(SlotRange::size)
                .sum();
        assertThat(owned).isEqualTo(HashSlots.SLOTS);
        assertThat(map.shardOf(0).id()).isEqualTo("shard-0");
        assertThat(map.shardOf(HashSlots.SLOTS - 1).id()).isEqualTo("shard-" + (count - 1));
    }

    @Test
    void threeShardsSplitAsRedisCliSplitsThem() {
        ClusterMap map = ClusterMap.evenly(List.of(List.of("a", "b"), List.of("c", "d"), List.of("e", "f")));
        assertThat(map.shards())
                .extracting(s -> s.slots().get(0).toString())
                .containsExactly("0-5460", "5461-10921", "10922-16383");
    }

    @Test
    void aHoleIsRefusedAndNamed() {
        Shard low = new Shard("low", List.of(SlotRange.parse("0-100")), List.of("a"), "a", 1);
        Shard high = new Shard("high", List.of(SlotRange.parse("200-16383")), List.of("b"), "b", 1);
        assertThatThrownBy(() -> new ClusterMap(List.of(low, high)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("slots owned by no shard: [101-199]");
    }

    @Test
    void anOverlapIsRefusedAndNamed() {
        Shard low = new Shard("low", List.of(SlotRange.parse("0-200")), List.of("a"), "a", 1);
        Shard high = new Shard("high", List.of(SlotRange.parse("200-16383")), List.of("b"), "b", 1);
        assertThatThrownBy(() -> new ClusterMap(List.of(low, high)))
                .hasMessage("slot 200 is owned by shards low and high");
    }

    @Test
    void aNodeInTwoShardsIsRefused() {
        Shard low = new Shard("low", List.of(SlotRange.parse("0-99")), List.of("a", "x"), "a", 1);
        Shard high = new Shard("high", List.of(SlotRange.parse("100-16383")), List.of("b", "x"), "b", 1);
        assertThatThrownBy(() -> new ClusterMap(List.of(low, high))).hasMessage("node x is a member of two shards");
    }

    @Test
    void promotionMovesTheEpochByOne() {
        ClusterMap map = ClusterMap.evenly(List.of(List.of("a", "b"), List.of("c", "d")));
        Shard promoted = map.shard("shard-1").orElseThrow().promote("d");
        ClusterMap next = map.with(promoted);

        assertThat(next.shard("shard-1").orElseThrow().primary()).isEqualTo("d");
        assertThat(next.shard("shard-1").orElseThrow().epoch()).isEqualTo(2);
        assertThat(next.shard("shard-0")).isEqualTo(map.shard("shard-0"));
        assertThat(next.shardWithMember("c").orElseThrow().backups()).containsExactly("c");
        assertThatThrownBy(() -> promoted.promote("a")).hasMessage("shard shard-1: a is not a member of [c, d]");
    }

    @Test
    void badRangesGetClearErrors() {
        assertThatThrownBy(() -> SlotRange.parse("5-2")).hasMessage("slot range ends before it starts: 5-2");
        assertThatThrownBy(() -> SlotRange.parse("16384")).hasMessage("slot out of 0..16383: 16384");
        assertThatThrownBy(() -> SlotRange.parse("a-b")).hasMessage("not a slot range (like 0-5460): a-b");
        assertThat(SlotRange.parse("42")).isEqualTo(new SlotRange(42, 42));
    }
}
