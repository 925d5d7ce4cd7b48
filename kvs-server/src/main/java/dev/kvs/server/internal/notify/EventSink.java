package dev.kvs.server.internal.notify;

/**
 * Where keyspace notifications go: the node's pub/sub. Called from any thread (event loops, the active
 * expiry thread, a running script), so an implementation must be thread-safe and must not block.
 */
@FunctionalInterface
public interface EventSink {
    /** A sink that drops every event: a node without pub/sub. */
    EventSink NONE = (channel, message) -> {};

    /** Publishes {@code message} on {@code channel}; both arrays are the caller's, not to be changed. */
    void publish(byte[] channel, byte[] message);
}
