package dev.kvs.server.internal.cluster;

import java.util.Objects;

/**
 * The layout a clustered node learned last: whoever watches the cluster map (ZooKeeper) {@link
 * #update}s it, and each command reads it with one volatile read.
 *
 * <p>Before the first layout (no map in ZooKeeper yet, or a member's address not yet known) {@link
 * #layout()} is {@code null} and the node is {@link #unplaced()}: it answers as a Redis Cluster node with
 * no slots assigned ({@code CLUSTER SLOTS} empty, {@code cluster_state:fail}, {@code -CLUSTERDOWN Hash
 * slot not served} for a key), not as a Redis without cluster support, so that a cluster-aware client
 * does not take it for a lone server.
 */
public final class LatestClusterView implements ClusterView {
    private volatile Unplaced unplaced;
    private volatile ClusterLayout layout;

    /** No layout until the first {@link #update}: this node ({@code myId}) answers as one with no slots. */
    public LatestClusterView(String myId) {
        this.unplaced = new Unplaced(Objects.requireNonNull(myId, "myId"), 0);
    }

    public LatestClusterView(ClusterLayout first) {
        this.layout = Objects.requireNonNull(first, "first");
        this.unplaced = new Unplaced(first.myId(), first.member(first.me()).port());
    }

    @Override
    public ClusterLayout layout() {
        return layout;
    }

    @Override
    public Unplaced unplaced() {
        return unplaced;
    }

    /** The client port this node answers on, shown before the first layout; once the port is bound. */
    public void clientPort(int port) {
        this.unplaced = new Unplaced(unplaced.id(), port);
    }

    /** Answers by {@code next} from the next command on. */
    public void update(ClusterLayout next) {
        this.layout = Objects.requireNonNull(next, "next");
    }
}
