package dev.kvs.server.internal.cluster;

import java.util.Objects;

/**
 * The layout a clustered node learned last: whoever watches the cluster map (ZooKeeper) {@link
 * #update}s it, and each command reads it with one volatile read. A node has a layout from the start
 * (it joins with the map it read), so a clustered node never answers as an unclustered one.
 */
public final class LatestClusterView implements ClusterView {
    private volatile ClusterLayout layout;

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
