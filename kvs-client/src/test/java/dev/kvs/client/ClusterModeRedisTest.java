package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.kvs.cluster.HashSlots;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Cluster mode against a real Redis 7 cluster of three primaries ({@link RedisCluster}). The client
 * sends nothing kvs-only on connect unless asked ({@code KVS.MODE} only with {@code mode(...)}), so
 * these tests use the default mode and speak plain Redis. Run wherever {@code redis-server} is
 * installed (CI installs it).
 */
class ClusterModeRedisTest {
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        assumeTrue(RedisCluster.redisServer().isPresent(), RedisCluster.NOT_INSTALLED);
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) cluster.close();
    }

    private static KvsClient client() {
        return KvsClient.builder()
                .cluster(cluster.endpoint(1)) // one seed; the others are learned
                .clusterRefreshMinInterval(Duration.ofMillis(50))
                .requestTimeout(Duration.ofSeconds(5))
                .build();
    }

    @Test
    void readsTheTopologyFromOneSeed() {
        try (KvsClient kvs = client()) {
            assertThat(kvs.ping()).isEqualTo("PONG");
            ClusterStatus s = kvs.clusterStatus().orElseThrow();
            assertThat(s.shards()).isEqualTo(3);
            assertThat(s.slotsCovered()).isEqualTo(HashSlots.SLOTS);
            assertThat(s.refreshes()).isEqualTo(1);
            assertThat(s.lastRefresh()).isNotNull();
            assertThat(s.movedReplies()).isZero();
        }
    }

    @Test
    void aTransactionRunsOnTheNodeThatOwnsItsSlot() {
        try (KvsClient kvs = client()) {
            for (String tag : List.of("{user:1}", "{user:2}", "{user:3}", "{cart:9}")) {
                byte[] name = (tag + ":name").getBytes(StandardCharsets.UTF_8);
                byte[] visits = (tag + ":visits").getBytes(StandardCharsets.UTF_8);
                kvs.put(name, "alice".getBytes(StandardCharsets.UTF_8));
                try (KvsTransaction tx = kvs.transaction(List.of(name))) {
                    assertThat(tx.get(name)).isEqualTo("alice".getBytes(StandardCharsets.UTF_8));
                    tx.put(name, "bob".getBytes(StandardCharsets.UTF_8)).setAdd(visits, List.of(name));
                    assertThat(tx.commit())
                            .hasValueSatisfying(r -> assertThat(r).containsExactly(null, 1L));
                }
                int owner = RedisCluster.initialOwner(HashSlots.slot(name));
                try (RespProbe p = new RespProbe(cluster.port(owner))) {
                    assertThat(p.call("GET", tag + ":name")).as(tag).isEqualTo("bob");
                    assertThat(p.call("SCARD", tag + ":visits")).as(tag).isEqualTo(1L);
                }
            }
        }
    }

    @Test
    void everyKeyLandsOnTheNodeRedisSaysOwnsIt() {
        long seed = System.nanoTime();
        System.out.println("everyKeyLandsOnTheNodeRedisSaysOwnsIt seed=" + seed);
        Random random = new Random(seed);
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 300; i++) keys.add(randomKey(random, "route" + i));
        try (KvsClient kvs = client();
                RespProbe n0 = new RespProbe(cluster.port(0));
                RespProbe n1 = new RespProbe(cluster.port(1));
                RespProbe n2 = new RespProbe(cluster.port(2))) {
            RespProbe[] nodes = {n0, n1, n2};
            for (String k : keys) kvs.put(k, "v-" + k);
            for (String k : keys) {
                int slot = ((Long) n0.call("CLUSTER", "KEYSLOT", k)).intValue();
                assertThat(HashSlots.slot(k.getBytes(StandardCharsets.UTF_8)))
                        .as("seed %d key %s", seed, k)
                        .isEqualTo(slot);
                int owner = RedisCluster.initialOwner(slot);
                for (int i = 0; i < nodes.length; i++) {
                    Object reply = nodes[i].call("GET", k);
                    if (i == owner) {
                        assertThat(reply)
                                .as("seed %d key %s on its owner", seed, k)
                                .isEqualTo("v-" + k);
                    } else {
                        assertThat(reply)
                                .as("seed %d key %s elsewhere", seed, k)
                                .isEqualTo("-MOVED " + slot + " " + cluster.endpoint(owner));
                    }
                }
                assertThat(kvs.get(k)).isEqualTo("v-" + k);
            }
            for (int i = 0; i < keys.size(); i += 7) {
                String k = keys.get(i);
                int owner = RedisCluster.initialOwner(HashSlots.slot(k.getBytes(StandardCharsets.UTF_8)));
                assertThat(kvs.exists(k.getBytes(StandardCharsets.UTF_8))).isTrue();
                assertThat(kvs.delete(k)).as("seed %d key %s", seed, k).isTrue();
                assertThat(nodes[owner].call("EXISTS", k))
                        .as("seed %d key %s", seed, k)
                        .isEqualTo(0L);
            }
            // routed by slot from the start: no node had to redirect the client
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
            String k = randomKey(random, "multi" + i);
            keys.add(k.getBytes(StandardCharsets.UTF_8));
            values.add(("value-" + i).getBytes(StandardCharsets.UTF_8));
        }
        try (KvsClient kvs = client()) {
            kvs.putAll(keys, values);
            List<byte[]> asked = new ArrayList<>(keys);
            asked.add(3, "multi-never-written".getBytes(StandardCharsets.UTF_8));
            List<byte[]> got = kvs.getAll(asked);
            assertThat(got).hasSize(asked.size());
            assertThat(got.get(3)).isNull();
            for (int i = 0; i < keys.size(); i++) {
                int at = i < 3 ? i : i + 1;
                assertThat(new String(got.get(at), StandardCharsets.UTF_8))
                        .as("seed %d key %d", seed, i)
                        .isEqualTo("value-" + i);
            }
            // keys sharing a {hash tag} go as one MGET, which Redis would refuse across slots
            List<byte[]> tagged = List.of(bytes("{user:7}:name"), bytes("{user:7}:mail"), bytes("{user:7}:none"));
            kvs.putAll(tagged.subList(0, 2), List.of(bytes("ada"), bytes("ada@example.org")));
            assertThat(kvs.getAll(tagged))
                    .satisfiesExactly(
                            v -> assertThat(v).isEqualTo(bytes("ada")),
                            v -> assertThat(v).isEqualTo(bytes("ada@example.org")),
                            v -> assertThat(v).isNull());
        }
    }

    @Test
    void movedAfterASlotMovesIsFollowedAndTheTopologyRefreshed() {
        String key = keyInAnEmptySlot();
        int slot = HashSlots.slot(bytes(key));
        int from = RedisCluster.initialOwner(slot);
        int to = (from + 1) % 3;
        try (KvsClient kvs = client();
                RespProbe owner = new RespProbe(cluster.port(to))) {
            kvs.put("warm-up", "x"); // the topology is read: the slot is on `from`
            long refreshes = kvs.clusterStatus().orElseThrow().refreshes();

            cluster.moveSlot(slot, to);
            kvs.put(key, "after the move"); // sent to `from`, which answers -MOVED slot `to`

            assertThat(owner.call("GET", key)).isEqualTo("after the move");
            assertThat(kvs.clusterStatus().orElseThrow().movedReplies()).isEqualTo(1);
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> kvs.clusterStatus().orElseThrow().refreshes() > refreshes);
            // the refreshed topology sends the slot straight to its new owner
            assertThat(kvs.get(key)).isEqualTo("after the move");
            assertThat(kvs.clusterStatus().orElseThrow().movedReplies()).isEqualTo(1);
            owner.call("DEL", key);
        } finally {
            cluster.moveSlot(slot, from);
        }
    }

    /** A key whose slot holds no key yet (Redis moves only an empty slot with SETSLOT NODE). */
    private static String keyInAnEmptySlot() {
        for (int i = 0; ; i++) {
            String key = "moving-key-" + i;
            int slot = HashSlots.slot(bytes(key));
            try (RespProbe p = new RespProbe(cluster.port(RedisCluster.initialOwner(slot)))) {
                if (Long.valueOf(0).equals(p.call("CLUSTER", "COUNTKEYSINSLOT", "" + slot))) return key;
            }
        }
    }

    /** A key with, half the time, a {hash tag} (sometimes empty, which Redis ignores) somewhere in it. */
    static String randomKey(Random random, String base) {
        switch (random.nextInt(4)) {
            case 0:
                return base + ":{tag" + random.nextInt(20) + "}";
            case 1:
                return "{" + random.nextInt(1000) + "}" + base;
            case 2:
                return base + "{}" + random.nextInt(1000);
            default:
                return base + ":" + Long.toHexString(random.nextLong());
        }
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
