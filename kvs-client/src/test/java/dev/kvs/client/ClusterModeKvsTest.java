package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.kvs.cluster.HashSlots;
import dev.kvs.testing.cluster.ShardedNodes;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Cluster mode against kvs's own nodes: three in-process primaries, one per shard, answering as
 * members of one cluster map ({@link ShardedNodes}), so the client reads kvs's {@code CLUSTER SHARDS}
 * and meets kvs's {@code -MOVED} and {@code -CROSSSLOT}. The same scenarios as {@link
 * ClusterModeRedisTest}, plus every one of the 16,384 slots.
 */
class ClusterModeKvsTest {
    private static ShardedNodes nodes;

    @BeforeAll
    static void startNodes() {
        nodes = ShardedNodes.start(3);
    }

    @AfterAll
    static void stopNodes() {
        if (nodes != null) nodes.close();
    }

    private static KvsClient client() {
        return KvsClient.builder()
                .cluster(nodes.endpoint(1)) // one seed; the others are learned from CLUSTER SHARDS
                .clusterRefreshMinInterval(Duration.ofMillis(50))
                // 16,384 requests at once on cold nodes: room for a slow (shared, loaded) machine; the tests
                // here check where requests go, not how fast
                .requestTimeout(Duration.ofSeconds(30))
                .build();
    }

    @Test
    void readsKvsTopologyFromOneSeed() {
        try (KvsClient kvs = client()) {
            assertThat(kvs.ping()).isEqualTo("PONG");
            ClusterStatus s = kvs.clusterStatus().orElseThrow();
            assertThat(s.shards()).isEqualTo(3);
            assertThat(s.slotsCovered()).isEqualTo(HashSlots.SLOTS);
            assertThat(s.nodes()).isEqualTo(3);
            assertThat(s.refreshes()).isEqualTo(1);
            assertThat(s.lastRefreshError()).isNull();
        }
    }

    @Test
    void aKeyOfEverySlotLandsOnItsOwnerAndIsReadBack() {
        List<byte[]> keys = new ArrayList<>(HashSlots.SLOTS);
        for (int slot = 0; slot < HashSlots.SLOTS; slot++) keys.add(null);
        int found = 0;
        for (int i = 0; found < HashSlots.SLOTS; i++) {
            byte[] key = bytes("every-slot:{" + i + "}"); // the hash tag picks the slot
            int slot = HashSlots.slot(key);
            if (keys.get(slot) == null) {
                keys.set(slot, key);
                found++;
            }
        }
        try (KvsClient kvs = client()) {
            // the topology first: at most maxPending (10,000) requests may wait for it, and 16,384 are sent
            // at once below (a burst before it is read fails typed, by design: TooManyPendingRequests)
            assertThat(kvs.get(keys.get(0))).isNull();
            List<CompletableFuture<Void>> puts = new ArrayList<>();
            for (byte[] k : keys) puts.add(kvs.putAsync(k, k));
            CompletableFuture.allOf(puts.toArray(new CompletableFuture<?>[0])).join();
            int[] perNode = new int[nodes.size()];
            for (byte[] k : keys) {
                int owner = nodes.owner(k);
                perNode[owner]++;
                for (int n = 0; n < nodes.size(); n++) {
                    assertThat(nodes.holds(n, k))
                            .as("%s (slot %d) on n%d", text(k), HashSlots.slot(k), n)
                            .isEqualTo(n == owner);
                }
            }
            assertThat(perNode).containsExactly(5461, 5461, 5462);
            List<byte[]> got = kvs.getAll(keys);
            for (int slot = 0; slot < HashSlots.SLOTS; slot++) {
                assertThat(got.get(slot)).as("slot %d", slot).isEqualTo(keys.get(slot));
            }
            assertThat(kvs.clusterStatus().orElseThrow().movedReplies()).isZero();
        }
    }

    @Test
    void everyKeyLandsOnTheNodeKvsSaysOwnsIt() {
        long seed = System.nanoTime();
        System.out.println("everyKeyLandsOnTheNodeKvsSaysOwnsIt seed=" + seed);
        Random random = new Random(seed);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 300; i++) keys.add(ClusterModeRedisTest.randomKey(random, "route" + i));
        try (KvsClient kvs = client();
                RespProbe n0 = new RespProbe(nodes.port(0));
                RespProbe n1 = new RespProbe(nodes.port(1));
                RespProbe n2 = new RespProbe(nodes.port(2))) {
            RespProbe[] probes = {n0, n1, n2};
            for (String k : keys) kvs.put(k, "v-" + k);
            for (String k : keys) {
                int slot = ((Long) n0.call("CLUSTER", "KEYSLOT", k)).intValue();
                assertThat(HashSlots.slot(bytes(k)))
                        .as("seed %d key %s", seed, k)
                        .isEqualTo(slot);
                int owner = nodes.owner(bytes(k));
                for (int i = 0; i < probes.length; i++) {
                    Object reply = probes[i].call("GET", k);
                    if (i == owner) {
                        assertThat(reply)
                                .as("seed %d key %s on its owner", seed, k)
                                .isEqualTo("v-" + k);
                    } else {
                        assertThat(reply)
                                .as("seed %d key %s elsewhere", seed, k)
                                .isEqualTo("-MOVED " + slot + " " + nodes.endpoint(owner));
                        assertThat(nodes.holds(i, bytes(k))).isFalse();
                    }
                }
                assertThat(kvs.get(k)).isEqualTo("v-" + k);
            }
            for (int i = 0; i < keys.size(); i += 7) {
                String k = keys.get(i);
                assertThat(kvs.exists(bytes(k))).isTrue();
                assertThat(kvs.delete(k)).as("seed %d key %s", seed, k).isTrue();
                assertThat(nodes.holds(nodes.owner(bytes(k)), bytes(k)))
                        .as("seed %d key %s", seed, k)
                        .isFalse();
            }
            assertThat(kvs.clusterStatus().orElseThrow().movedReplies())
                    .as("seed %d", seed)
                    .isZero();
        }
    }

    @Test
    void getAllAndPutAllSplitBySlotAndKeepTheCallersOrder() {
        long seed = System.nanoTime();
        System.out.println("getAllAndPutAllSplitBySlotAndKeepTheCallersOrder seed=" + seed);
        Random random = new Random(seed);
        List<byte[]> keys = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            keys.add(bytes(ClusterModeRedisTest.randomKey(random, "multi" + i)));
            values.add(bytes("value-" + i));
        }
        try (KvsClient kvs = client()) {
            kvs.putAll(keys, values);
            for (byte[] k : keys)
                assertThat(nodes.holds(nodes.owner(k), k)).as("seed %d", seed).isTrue();
            List<byte[]> asked = new ArrayList<>(keys);
            asked.add(3, bytes("multi-never-written"));
            List<byte[]> got = kvs.getAll(asked);
            assertThat(got).hasSize(asked.size());
            assertThat(got.get(3)).isNull();
            for (int i = 0; i < keys.size(); i++) {
                assertThat(text(got.get(i < 3 ? i : i + 1)))
                        .as("seed %d key %d", seed, i)
                        .isEqualTo("value-" + i);
            }
            // keys sharing a {hash tag} are one slot: one MGET, which kvs would refuse across slots
            List<byte[]> tagged = List.of(bytes("{user:7}:name"), bytes("{user:7}:mail"), bytes("{user:7}:none"));
            kvs.putAll(tagged.subList(0, 2), List.of(bytes("ada"), bytes("ada@example.org")));
            assertThat(kvs.getAll(tagged))
                    .satisfiesExactly(
                            v -> assertThat(v).isEqualTo(bytes("ada")),
                            v -> assertThat(v).isEqualTo(bytes("ada@example.org")),
                            v -> assertThat(v).isNull());
            assertThat(kvs.clusterStatus().orElseThrow().movedReplies())
                    .as("seed %d", seed)
                    .isZero();
        }
    }

    @Test
    void movedAfterTheNodesViewsChangeIsFollowedAndTheTopologyRefreshed() {
        String key = "moving-key";
        int slot = HashSlots.slot(bytes(key));
        int from = nodes.owner(bytes(key));
        int to = (from + 1) % nodes.size();
        try (KvsClient kvs = client()) {
            kvs.put("warm-up", "x"); // the topology is read: the slot is on `from`
            long refreshes = kvs.clusterStatus().orElseThrow().refreshes();

            nodes.moveSlot(slot, to);
            kvs.put(key, "after the move"); // sent to `from`, which answers -MOVED slot `to`

            assertThat(nodes.holds(to, bytes(key))).isTrue();
            assertThat(nodes.holds(from, bytes(key))).isFalse();
            assertThat(kvs.clusterStatus().orElseThrow().movedReplies()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> kvs.clusterStatus().orElseThrow().refreshes() > refreshes);
            // the refreshed topology sends the slot straight to its new owner
            assertThat(kvs.get(key)).isEqualTo("after the move");
            assertThat(kvs.delete(key)).isTrue();
            assertThat(kvs.clusterStatus().orElseThrow().movedReplies()).isEqualTo(1);
        } finally {
            nodes.moveSlot(slot, from);
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }
}
