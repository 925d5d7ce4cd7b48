package dev.kvs.bench.shards;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.bench.cluster.ChildProcesses;
import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Lettuce's cluster client ({@link RedisClusterClient}, 6.8, which reads {@code CLUSTER NODES}) with its
 * defaults against a whole 3-shard cluster on this machine ({@link LocalCluster}). kvs speaks RESP2 only:
 * Lettuce's default handshake sends {@code HELLO 3}, kvs answers {@code -NOPROTO}, and Lettuce goes on in
 * RESP2 by itself, so no option is set. Lettuce refreshes its topology only when asked (its periodic and
 * adaptive refreshes are off by default): after the kill the test asks once the map has a new primary,
 * as an application would on its own schedule. Each command is awaited for at most 10 s here (Lettuce's
 * own default timeout is 60 s), so the test stays bounded.
 */
class LettuceClusterTest {
    private static final long WAIT_S = 10;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void discoversTheTopologyFromClusterNodesAndOtherShardsKeepWorkingAfterAPrimaryIsKilled(@TempDir Path dir)
            throws Exception {
        try (ChildProcesses children = new ChildProcesses();
                LocalCluster cluster = JedisClusterTest.start(dir, children, "lettuce")) {
            List<RedisURI> seeds = new ArrayList<>();
            for (LocalCluster.Node n : cluster.nodes())
                seeds.add(RedisURI.create(n.ports().host(), n.ports().client()));
            RedisClusterClient client = RedisClusterClient.create(seeds);
            try (StatefulRedisClusterConnection<String, String> connection = client.connect()) {
                RedisAdvancedClusterAsyncCommands<String, String> redis = connection.async();
                Partitions topology = client.getPartitions();
                assertThat(upstreamPorts(topology))
                        .as("Lettuce's upstream nodes and their slots: %s", topology)
                        .isEqualTo(primaryPorts(cluster, cluster.map()));
                assertThat(slotsCovered(topology)).as("slots of %s", topology).isEqualTo(HashSlots.SLOTS);
                assertThat(topology.size()).as("nodes in %s", topology).isEqualTo(6);

                Map<String, List<String>> keysByShard = keysByShard(cluster.map(), 300);
                Errors errors = setGetAll(redis, keysByShard);
                assertThat(errors.total())
                        .as("errors of SET/GET before the kill: %s", errors)
                        .isZero();

                ClusterMap before = cluster.currentMap();
                long epoch = before.shard("shard-0").orElseThrow().epoch();
                cluster.nodes().get(0).process().kill(); // shard-0's primary, kill -9
                Map<String, List<String>> few = keysByShard(cluster.map(), 20);
                Map<String, List<String>> others = Map.of("shard-1", few.get("shard-1"), "shard-2", few.get("shard-2"));
                long otherErrors = 0;
                Errors lastOthers = null;
                long rounds = 0;
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                // the other shards under load until the map names shard-0's new primary
                while (cluster.currentMap().shard("shard-0").orElseThrow().epoch() == epoch
                        && System.nanoTime() < deadline) {
                    lastOthers = setGetAll(redis, others);
                    otherErrors += lastOthers.total();
                    rounds++;
                }
                ClusterMap after = cluster.currentMap();
                assertThat(after.shard("shard-0").orElseThrow().epoch())
                        .as("shard-0's epoch")
                        .isEqualTo(epoch + 1);
                assertThat(otherErrors)
                        .as(
                                "errors on shard-1 and shard-2 in %d rounds during the failover (the last: %s)",
                                rounds, lastOthers)
                        .isZero();

                client.refreshPartitions();
                Partitions refreshed = client.getPartitions();
                assertThat(upstreamPorts(refreshed))
                        .as("upstream nodes after the refresh: %s", refreshed)
                        .isEqualTo(primaryPorts(cluster, after));
                Errors afterErrors = setGetAll(redis, keysByShard);
                System.out.printf(
                        "LettuceClusterTest: %d rounds on the other shards during the failover, 0 errors; after the refresh %s%n",
                        rounds, afterErrors);
                assertThat(afterErrors.total())
                        .as("errors of SET/GET after the refresh: %s", afterErrors)
                        .isZero();
            } finally {
                client.shutdown();
            }
        }
    }

    /** For each shard, {@code n} keys of its slots (from {@link SlotLoad#keyPerSlot}, spread over them). */
    static Map<String, List<String>> keysByShard(ClusterMap map, int n) {
        Map<String, List<String>> all = new TreeMap<>();
        for (String k : SlotLoad.keyPerSlot()) {
            all.computeIfAbsent(
                            map.shardOf(HashSlots.slot(k.getBytes(StandardCharsets.UTF_8)))
                                    .id(),
                            s -> new ArrayList<>())
                    .add(k);
        }
        Map<String, List<String>> picked = new TreeMap<>();
        all.forEach((s, keys) -> {
            List<String> some = new ArrayList<>();
            for (int i = 0; i < n; i++) some.add(keys.get(i * keys.size() / n));
            picked.put(s, some);
        });
        return picked;
    }

    /** Errors per shard, and the first error's text of each shard that had one. */
    record Errors(Map<String, Long> counts, Map<String, String> first) {
        long total() {
            return counts.values().stream().mapToLong(Long::longValue).sum();
        }

        @Override
        public String toString() {
            return counts + (first.isEmpty() ? "" : ", first errors " + first);
        }
    }

    /** SET then GET of each key, awaited; errors (a failure, a timeout or a wrong value) per shard. */
    static Errors setGetAll(RedisAdvancedClusterAsyncCommands<String, String> redis, Map<String, List<String>> keys)
            throws InterruptedException {
        Map<String, Long> errors = new TreeMap<>();
        Map<String, String> first = new TreeMap<>();
        for (Map.Entry<String, List<String>> e : keys.entrySet()) {
            long wrong = 0;
            for (String k : e.getValue()) {
                String value = k + "@" + System.nanoTime();
                String error = null;
                try {
                    String set = redis.set(k, value).get(WAIT_S, TimeUnit.SECONDS);
                    String got = redis.get(k).get(WAIT_S, TimeUnit.SECONDS);
                    if (!"OK".equals(set) || !value.equals(got)) error = k + ": SET " + set + ", GET " + got;
                } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
                    error = k + ": " + (ex.getCause() != null ? ex.getCause() : ex);
                }
                if (error != null) {
                    wrong++;
                    first.putIfAbsent(e.getKey(), error);
                }
            }
            errors.put(e.getKey(), wrong);
        }
        return new Errors(errors, first);
    }

    /** The client ports of the nodes the map names primary, sorted. */
    static List<Integer> primaryPorts(LocalCluster cluster, ClusterMap map) {
        List<Integer> ports = new ArrayList<>();
        for (LocalCluster.Node n : cluster.nodes()) {
            if (map.shard(n.shard()).orElseThrow().primary().equals(n.id()))
                ports.add(n.ports().client());
        }
        return ports.stream().sorted().toList();
    }

    /** The ports of the nodes Lettuce routes writes to (upstream, not failed, with slots), sorted. */
    static List<Integer> upstreamPorts(Partitions partitions) {
        List<Integer> ports = new ArrayList<>();
        for (RedisClusterNode n : partitions) {
            if (n.is(RedisClusterNode.NodeFlag.UPSTREAM) && !n.hasNoSlots())
                ports.add(n.getUri().getPort());
        }
        return ports.stream().sorted().toList();
    }

    /** How many distinct slots the upstream nodes of {@code partitions} hold. */
    static int slotsCovered(Partitions partitions) {
        BitSet slots = new BitSet(HashSlots.SLOTS);
        for (RedisClusterNode n : partitions) {
            if (n.is(RedisClusterNode.NodeFlag.UPSTREAM)) n.getSlots().forEach(slots::set);
        }
        return slots.cardinality();
    }
}
