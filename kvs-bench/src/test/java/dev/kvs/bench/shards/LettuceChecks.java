package dev.kvs.bench.shards;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.HashSlots;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * What {@link RedisClusterClientsTest} asks of Lettuce's cluster client ({@link
 * io.lettuce.core.cluster.RedisClusterClient}, 6.8, which reads {@code CLUSTER NODES}): SET/GET per shard
 * with each command awaited at most {@value #WAIT_S} s (Lettuce's own default is 60 s), and the topology
 * Lettuce holds.
 */
final class LettuceChecks {
    static final long WAIT_S = 10;

    private LettuceChecks() {}

    /**
     * For each shard, {@code n} keys of its slots: {@link SlotLoad#keyPerSlot}'s, spread over them, each
     * under a hash tag ({@code {k:N}:lettuce}) so that no key is one SlotLoad writes.
     */
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
            // "{k:N}:lettuce" hashes as k:N does (its hash tag), so it is in the same slot and shard, but it is
            // never one of SlotLoad's keys: JedisCluster's threads must not see Lettuce's values
            for (int i = 0; i < n; i++) some.add("{" + keys.get(i * keys.size() / n) + "}:lettuce");
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
