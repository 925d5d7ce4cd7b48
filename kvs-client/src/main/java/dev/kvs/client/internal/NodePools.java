package dev.kvs.client.internal;

import io.netty.bootstrap.Bootstrap;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * In cluster mode, the {@link EndpointPool} of each node the client talks to, shared by the routers
 * of successive topologies so that a refresh keeps the connections (and what each pool knows about
 * its node being down or a backup). Bounded by the topology: {@link #retain} closes the pools of nodes
 * a refresh no longer lists (seeds and {@code -MOVED} targets included), so only the current nodes,
 * plus those named since the last refresh, hold connections.
 */
final class NodePools {
    private final Bootstrap bootstrap;
    private final List<Command<?>> handshake;
    private final ClientConfig config;
    private final Map<Endpoint, EndpointPool> pools = new ConcurrentHashMap<>();

    NodePools(Bootstrap bootstrap, List<Command<?>> handshake, ClientConfig config) {
        this.bootstrap = bootstrap;
        this.handshake = handshake;
        this.config = config;
    }

    /** The pool of {@code node}, created (without connecting) on first use. */
    EndpointPool pool(Endpoint node) {
        return pools.computeIfAbsent(node, e -> new EndpointPool(e, bootstrap, handshake, config));
    }

    /** Closes and forgets the pools of nodes not in {@code keep}. */
    void retain(Set<Endpoint> keep) {
        for (Map.Entry<Endpoint, EndpointPool> e : pools.entrySet()) {
            if (!keep.contains(e.getKey()) && pools.remove(e.getKey(), e.getValue()))
                e.getValue().close();
        }
    }

    int size() {
        return pools.size();
    }

    Collection<EndpointPool> all() {
        return pools.values();
    }

    void close() {
        for (EndpointPool p : pools.values()) p.close();
    }
}
