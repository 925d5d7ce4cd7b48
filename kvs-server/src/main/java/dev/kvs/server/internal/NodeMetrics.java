package dev.kvs.server.internal;

/**
 * The node's Micrometer meters, exported as Prometheus text on the admin port. Thread-safe; the
 * record methods are on the client hot path and must not allocate in the common case.
 */
public final class NodeMetrics {
    public NodeMetrics(NodeContext node) {}

    /** One command executed, by upper-case command name, with its service time. */
    public void recordCommand(String command, long nanos) {}

    /** One error reply sent, by its first word (e.g. {@code ERR}, {@code WRONGTYPE}, {@code NOAUTH}). */
    public void recordError(String kind) {}

    public void connectionOpened() {}

    public void connectionClosed() {}

    /** Client connections open now. */
    public long connections() {
        return 0;
    }

    /** The Prometheus text exposition of every meter. */
    public String scrape() {
        return "";
    }
}
