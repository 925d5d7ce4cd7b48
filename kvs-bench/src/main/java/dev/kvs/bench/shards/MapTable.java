package dev.kvs.bench.shards;

import dev.kvs.cluster.ClusterMap;
import dev.kvs.cluster.Shard;
import dev.kvs.cluster.SlotRange;
import dev.kvs.coordination.MemberStatus;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A cluster map as text, one line per member: shard, epoch, slots, role, node name where known, node id,
 * and, for a member whose ephemeral znode is there, its role and client address as it published them.
 */
final class MapTable {
    private MapTable() {}

    /**
     * @param names node names by id (empty where the map alone is known: ids are all it holds)
     * @param members the members online, by id (empty: none or not read)
     */
    static String format(ClusterMap map, int version, Map<String, String> names, Map<String, MemberStatus> members) {
        StringBuilder b = new StringBuilder();
        int slots = map.shards().stream()
                .flatMap(s -> s.slots().stream())
                .mapToInt(SlotRange::size)
                .sum();
        b.append(String.format(
                "%d shards, %d slots covered, map version %d%n", map.shards().size(), slots, version));
        String row = "%-10s %5s  %-13s %-7s %-14s %-40s %s%n";
        b.append(String.format(row, "SHARD", "EPOCH", "SLOTS", "ROLE", "NAME", "NODE ID", "ONLINE"));
        for (Shard s : map.shards()) {
            String ranges = s.slots().stream().map(SlotRange::toString).collect(Collectors.joining(","));
            for (String m : s.members()) {
                MemberStatus online = members.get(m);
                b.append(String.format(
                        row,
                        s.id(),
                        s.epoch(),
                        ranges,
                        m.equals(s.primary()) ? "primary" : "backup",
                        names.getOrDefault(m, "?"),
                        m,
                        online == null ? "-" : online.role() + " " + online.clientAddress()));
            }
        }
        return b.toString();
    }
}
