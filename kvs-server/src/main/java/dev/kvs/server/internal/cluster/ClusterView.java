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

    /** The layout to answer by now, or {@code null} when clustering is off. */
    ClusterLayout layout();

    /** A view that never changes: {@code layout} for ever (tests, a static cluster). */
    static ClusterView of(ClusterLayout layout) {
        Objects.requireNonNull(layout, "layout");
        return () -> layout;
    }
}
