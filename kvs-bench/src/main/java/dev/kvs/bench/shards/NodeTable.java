package dev.kvs.bench.shards;

import dev.kvs.cluster.SlotRange;
import java.util.List;
import java.util.stream.Collectors;

/** The nodes of a {@link LocalCluster} as a table: what an operator needs to reach each one. */
final class NodeTable {
    private NodeTable() {}

    static String format(List<LocalCluster.Node> nodes) {
        String row = "%-10s %-8s %-3s %-8s %6s %6s %6s  %-40s %s%n";
        StringBuilder b = new StringBuilder(
                String.format(row, "NAME", "SHARD", "DC", "ROLE", "CLIENT", "ADMIN", "REPL", "NODE ID", "SLOTS"));
        for (LocalCluster.Node n : nodes) {
            b.append(String.format(
                    row,
                    n.name(),
                    n.shard(),
                    n.dc(),
                    n.role(),
                    n.ports().client(),
                    n.ports().admin(),
                    n.ports().repl(),
                    n.id(),
                    n.slots().stream().map(SlotRange::toString).collect(Collectors.joining(","))));
        }
        return b.toString();
    }
}
