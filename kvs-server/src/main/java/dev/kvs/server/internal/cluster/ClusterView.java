package dev.kvs.server.internal.cluster;

import java.util.Objects;

/**
 * Where the RESP port reads the cluster's layout from, once per command: {@link #NONE} when clustering
 * is off (every node's default), a fixed layout ({@link #of}), or the latest layout a node learned
 * ({@link LatestClusterView}). Implementations are thread-safe and answer without locks or allocation.
 */
public interface ClusterView {
    /** Clustering off: no slot checks, and {@code CLUSTER} answers that cluster support is disabled. */
    ClusterView NONE = () -> null;

    /** The layout to answer by now, or {@code null} when clustering is off or no layout is known yet. */
    ClusterLayout layout();

    /**
     * This node as a cluster node before it has a layout, or {@code null} when clustering is off. A
     * clustered node without a layout yet (no map in ZooKeeper, or not read yet) answers as a Redis
     * Cluster node that has no slots assigned: every key's slot is not served, and {@code CLUSTER} lists
     * this node alone.
     */
    default Unplaced unplaced() {
        return null;
    }

    /** True if clustering is on: this node has a layout, or answers as a cluster node without one yet. */
    default boolean enabled() {
        return layout() != null || unplaced() != null;
    }

    /**
     * A clustered node that no layout places yet.
     *
     * @param id its node id, as {@code CLUSTER MYID} answers
     * @param port its client port, as {@code CLUSTER NODES} and {@code SHARDS} show it; 0 until known
     */
    record Unplaced(String id, int port) {
        public Unplaced {
            Objects.requireNonNull(id, "id");
        }
    }

    /** A view that never changes: {@code layout} for ever (tests, a static cluster). */
    static ClusterView of(ClusterLayout layout) {
        Objects.requireNonNull(layout, "layout");
        return () -> layout;
    }
}
