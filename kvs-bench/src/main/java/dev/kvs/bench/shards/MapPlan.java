package dev.kvs.bench.shards;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.NodeIds;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.coordination.ZkPaths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A first cluster map as an operator states it, by node names: the shards, each with its members'
 * names (the primary first), the slots split evenly as redis-cli splits them, every shard at epoch 1.
 * The map itself names members by {@link NodeIds node id}, which {@link #map()} derives from the
 * names exactly as each node derives its own.
 *
 * @param cluster the cluster's name: the nodes' {@code cluster:}, and {@code /kvs/<cluster>} in ZooKeeper
 * @param shards the shards in slot order
 */
public record MapPlan(String cluster, List<PlannedShard> shards) {
    /** The most shards a plan may have: a few per machine is what the one-machine launcher runs. */
    public static final int MAX_SHARDS = 1024;

    /**
     * One shard of the plan.
     *
     * @param id the shard's id, the nodes' {@code coordination.shard}
     * @param members the members' node names, the first one the shard's primary
     */
    public record PlannedShard(String id, List<String> members) {
        public PlannedShard {
            members = List.copyOf(members);
        }
    }

    /**
     * @throws IllegalArgumentException quoting the value: a bad cluster or shard name, no shard or more
     *     than {@value #MAX_SHARDS}, a shard without members, or a name used twice
     */
    public MapPlan {
        new ZkPaths(cluster); // the cluster name's own check, with its message
        shards = List.copyOf(shards);
        if (shards.isEmpty() || shards.size() > MAX_SHARDS) {
            throw new IllegalArgumentException("shard count is not in 1.." + MAX_SHARDS + ": " + shards.size());
        }
        List<String> seen = new ArrayList<>();
        for (PlannedShard s : shards) {
            if (s.id() == null || !s.id().matches("[A-Za-z0-9_.-]{1,64}")) {
                throw new IllegalArgumentException("shard id must be 1-64 of [A-Za-z0-9_.-]: " + s.id());
            }
            if (s.members().isEmpty()) throw new IllegalArgumentException("shard " + s.id() + " has no members");
            for (String m : s.members()) {
                if (m == null || m.isBlank())
                    throw new IllegalArgumentException("shard " + s.id() + ": empty node name");
                if (seen.contains(m)) throw new IllegalArgumentException("node name used twice: " + m);
                seen.add(m);
            }
        }
    }

    /**
     * {@code count} shards {@code shard-0..count-1}, each with members {@code shard-i-a} (its primary,
     * in DC a) and {@code shard-i-b} (its backup, in DC b): the one-machine launcher's names.
     */
    public static MapPlan even(String cluster, int count) {
        if (count < 1 || count > MAX_SHARDS) {
            throw new IllegalArgumentException("shard count is not in 1.." + MAX_SHARDS + ": " + count);
        }
        List<PlannedShard> shards = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            String id = "shard-" + i;
            shards.add(new PlannedShard(id, List.of(id + "-a", id + "-b")));
        }
        return new MapPlan(cluster, shards);
    }

    /**
     * The shards as {@code ID=PRIMARY,BACKUP,...} texts, e.g. {@code shard-0=dc1-a,dc2-a}.
     *
     * @throws IllegalArgumentException quoting the text that is not of that form
     */
    public static MapPlan parse(String cluster, List<String> specs) {
        List<PlannedShard> shards = new ArrayList<>();
        for (String spec : specs) {
            int eq = spec.indexOf('=');
            if (eq < 1 || eq == spec.length() - 1) {
                throw new IllegalArgumentException(
                        "--shard is not ID=PRIMARY,BACKUP (e.g. shard-0=dc1-a,dc2-a): " + spec);
            }
            List<String> members = new ArrayList<>();
            for (String m : spec.substring(eq + 1).split(",", -1)) members.add(m.strip());
            shards.add(new PlannedShard(spec.substring(0, eq).strip(), members));
        }
        return new MapPlan(cluster, shards);
    }

    /** The node id of {@code name} in this cluster. */
    public String nodeId(String name) {
        return NodeIds.of(cluster, name);
    }

    /** Each member's name by its node id, in plan order. */
    public Map<String, String> namesById() {
        Map<String, String> names = new LinkedHashMap<>();
        for (PlannedShard s : shards) {
            for (String m : s.members()) names.put(nodeId(m), m);
        }
        return names;
    }

    /** The map: slots split evenly in shard order, members by id, the first member primary, epoch 1. */
    public ClusterMap map() {
        List<Shard> out = new ArrayList<>();
        for (int i = 0; i < shards.size(); i++) {
            PlannedShard s = shards.get(i);
            List<String> ids = s.members().stream().map(this::nodeId).toList();
            out.add(new Shard(s.id(), List.of(SlotRange.even(i, shards.size())), ids, ids.get(0), 1));
        }
        return new ClusterMap(out);
    }
}
