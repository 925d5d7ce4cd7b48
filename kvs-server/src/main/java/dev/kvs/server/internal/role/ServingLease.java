package dev.kvs.server.internal.role;

import java.util.Map;

/**
 * A primary's right to acknowledge writes and serve reads, beyond being the primary: in a cluster
 * coordinated on ZooKeeper, its lease on its session (a volatile read: no I/O on the command path). A
 * node without coordination serves under {@link #ALWAYS}.
 */
@FunctionalInterface
public interface ServingLease {
    /**
     * The error a primary whose lease does not hold answers to data commands, writes and reads alike:
     * Redis Cluster's reply when a master's cluster state is {@code fail} (a master cut off from the
     * majority, which is this primary's situation: it cannot prove to ZooKeeper that it is alive, so its
     * backup may be promoted). A cluster-aware client retries it after refreshing its map, as it does
     * with Redis; {@code -TRYAGAIN} would tell it to retry the same node at once, for a resharding.
     */
    String REFUSAL = "CLUSTERDOWN The cluster is down";

    /** The primary of a pair without coordination: it always may. */
    ServingLease ALWAYS = () -> true;

    /** Whether the primary may serve now. Cheap: called for every data command. */
    boolean held();

    /**
     * What {@code INFO replication} shows about the lease, field by field in order ({@code
     * kvs_lease_held}...); none for {@link #ALWAYS}, so a node without coordination shows what it did.
     */
    default Map<String, Object> infoFields() {
        return Map.of();
    }
}
