package dev.kvs.client.internal;

/** What a {@link Call} needs in cluster mode to follow a {@code -MOVED} reply and report a {@code -CLUSTERDOWN}. */
interface Redirects {
    /** How many {@code -MOVED} replies one request follows before it fails. */
    int maxRedirects();

    /**
     * Counts a {@code -MOVED slot node} reply, asks for a topology refresh, and returns the router of
     * the endpoints the request goes to next: the shard that has {@code node} in the current topology,
     * or {@code node} alone.
     */
    Router movedTo(int slot, Endpoint node);

    /**
     * Counts a {@code -CLUSTERDOWN} reply (a node that cannot serve now: its lease lapsed, or it has no
     * cluster map) and asks for a topology refresh; the request itself goes on to the shard's other nodes.
     */
    void unserved();
}
