package dev.kvs.server.internal;

/**
 * How a command stops its node ({@code SHUTDOWN}): the same clean stop as SIGTERM, which the node
 * that owns this hands in. A node assembled without one (a test of one server) cannot be stopped this
 * way. Immutable.
 */
public final class NodeShutdown {
    private static final NodeShutdown UNAVAILABLE = new NodeShutdown(null);

    private final Runnable stop;

    /** {@code stop} starts stopping the node and returns at once. */
    public NodeShutdown(Runnable stop) {
        this.stop = stop;
    }

    /** One that cannot stop a node. */
    public static NodeShutdown unavailable() {
        return UNAVAILABLE;
    }

    /** True if {@link #request()} can stop the node. */
    public boolean available() {
        return stop != null;
    }

    /**
     * Starts stopping the node; returns at once.
     *
     * @return false if there is no node to stop
     */
    public boolean request() {
        if (stop == null) return false;
        stop.run();
        return true;
    }
}
