package dev.kvs.server.internal.cluster;

import java.util.Objects;

/**
 * The layout a clustered node learned last: whoever watches the cluster map (ZooKeeper) {@link
 * #update}s it, and each command reads it with one volatile read.
 *
 * <p>Before the first layout ({@link #LatestClusterView()}: no map in ZooKeeper yet, or a member's address
 * not yet known) {@link #layout()} is {@code null}, so {@code CLUSTER} answers that cluster support is
 * disabled and no slot is checked. That does not make a coordinated primary serve as an unclustered one:
 * its lease needs a map that names it, and until then it answers {@code -CLUSTERDOWN}.
 */
public final class LatestClusterView implements ClusterView {
    private volatile ClusterLayout layout;

    /** No layout until the first {@link #update}. */
    public LatestClusterView() {}

    public LatestClusterView(ClusterLayout first) {
        this.layout = Objects.requireNonNull(first, "first");
    }

    @Override
    public ClusterLayout layout() {
        return layout;
    }

    /** Answers by {@code next} from the next command on. */
    public void update(ClusterLayout next) {
        this.layout = Objects.requireNonNull(next, "next");
    }
}
