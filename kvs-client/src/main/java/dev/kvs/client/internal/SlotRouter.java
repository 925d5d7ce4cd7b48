package dev.kvs.client.internal;

import dev.kvs.client.ClusterStatus;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.NoPrimaryException;
import dev.kvs.client.TooManyPendingRequestsException;
import dev.kvs.cluster.HashSlots;
import dev.kvs.cluster.SlotRange;
import io.netty.channel.EventLoopGroup;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Cluster mode's routing: the {@link Router} of each slot, from the last {@link Topology} read with
 * {@code CLUSTER SHARDS}, and the refreshes of that topology. A refresh asks the known nodes, then the
 * seeds, in turn until one answers; at most one is in flight, and two start at least {@code
 * refreshMinInterval} apart (a burst of {@code -MOVED} replies costs one refresh). The first request
 * waits for the first refresh; later ones use the topology they find, and a {@code -MOVED} reply
 * sends the request straight to the node it names while the refresh runs.
 */
final class SlotRouter implements Redirects {
    private static final Logger log = LoggerFactory.getLogger(SlotRouter.class);

    /** A topology and the router of each slot (null for a slot no shard serves). */
    private record Routes(Topology topology, List<Router> shards, Router[] bySlot, Instant readAt) {}

    private final List<Endpoint> seeds;
    private final NodePools nodes;
    private final EventLoopGroup group;
    private final boolean tls;
    private final int maxRedirects;
    private final long refreshMinIntervalNanos;
    private final int maxPending;
    private final AtomicLong refreshes = new AtomicLong();
    private final AtomicLong failedRefreshes = new AtomicLong();
    private final AtomicLong moved = new AtomicLong();
    private final AtomicLong clusterDown = new AtomicLong();
    private final AtomicInteger waiting = new AtomicInteger();
    private volatile Routes routes;
    private volatile String lastRefreshError;

    // guarded by this
    private CompletableFuture<Routes> refreshing;
    private long lastStartNanos;
    private boolean started;

    SlotRouter(NodePools nodes, EventLoopGroup group, ClientConfig config) {
        this.seeds = config.endpoints();
        this.nodes = nodes;
        this.group = group;
        this.tls = config.tls() != null;
        this.maxRedirects = config.cluster().maxRedirects();
        this.refreshMinIntervalNanos = config.cluster().refreshMinInterval().toNanos();
        this.maxPending = config.maxPending();
    }

    /**
     * The router of {@code slot}, once a topology is known; fails with {@link NoPrimaryException} if no
     * shard serves the slot (a refresh is started) or no node answers {@code CLUSTER SHARDS}.
     */
    CompletableFuture<Router> routerFor(int slot) {
        Routes r = routes;
        if (r == null) return firstRoutes().thenApply(loaded -> serving(loaded, slot));
        try {
            return CompletableFuture.completedFuture(serving(r, slot));
        } catch (NoPrimaryException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The router of the topology's first shard, for requests without a key ({@code PING}). */
    CompletableFuture<Router> anyRouter() {
        Routes r = routes;
        if (r != null && !r.shards().isEmpty())
            return CompletableFuture.completedFuture(r.shards().get(0));
        return firstRoutes().thenApply(loaded -> {
            if (loaded.shards().isEmpty()) throw new NoPrimaryException("the cluster has no shard serving slots", null);
            return loaded.shards().get(0);
        });
    }

    /**
     * The first topology, read once for every request that waits for it; at most {@code maxPending}
     * requests wait, one more fails at once.
     */
    private CompletableFuture<Routes> firstRoutes() {
        if (waiting.incrementAndGet() > maxPending) {
            waiting.decrementAndGet();
            return CompletableFuture.failedFuture(new TooManyPendingRequestsException(
                    maxPending + " requests already wait for the cluster's topology"));
        }
        return refresh().whenComplete((r, e) -> waiting.decrementAndGet());
    }

    private Router serving(Routes r, int slot) {
        Router router = r.bySlot()[slot];
        if (router != null) return router;
        refresh();
        throw new NoPrimaryException(
                "no shard serves slot " + slot + " in the topology read at " + r.readAt() + " (refreshing it)", null);
    }

    @Override
    public int maxRedirects() {
        return maxRedirects;
    }

    @Override
    public Router movedTo(int slot, Endpoint node) {
        moved.incrementAndGet();
        refresh();
        Routes r = routes;
        if (r != null) {
            for (Router shard : r.shards()) {
                if (shard.find(node) >= 0) return shard;
            }
        }
        return new Router(List.of(nodes.pool(node)));
    }

    @Override
    public void unserved() {
        clusterDown.incrementAndGet();
        refresh();
    }

    /** Starts a refresh unless one is in flight; the future completes with the topology it read. */
    private CompletableFuture<Routes> refresh() {
        CompletableFuture<Routes> f;
        long delay;
        synchronized (this) {
            if (refreshing != null) return refreshing;
            f = refreshing = new CompletableFuture<>();
            long now = System.nanoTime();
            delay = started ? Math.max(0, lastStartNanos + refreshMinIntervalNanos - now) : 0;
            lastStartNanos = now + delay;
            started = true;
        }
        f.whenComplete((r, e) -> {
            synchronized (this) {
                if (refreshing == f) refreshing = null;
            }
        });
        Runnable read = () -> ask(candidates(), 0, f, new StringBuilder());
        if (delay == 0) {
            read.run();
        } else {
            try {
                group.schedule(read, delay, TimeUnit.NANOSECONDS);
            } catch (RejectedExecutionException e) {
                f.completeExceptionally(new KvsClientException("client is closed"));
            }
        }
        return f;
    }

    /** The current topology's nodes, primaries first, then the seeds. */
    private List<Endpoint> candidates() {
        Set<Endpoint> out = new LinkedHashSet<>();
        Routes r = routes;
        if (r != null) {
            for (Topology.ShardNodes s : r.topology().shards())
                out.add(s.nodes().get(0));
            for (Topology.ShardNodes s : r.topology().shards()) out.addAll(s.nodes());
        }
        out.addAll(seeds);
        return new ArrayList<>(out);
    }

    private void ask(List<Endpoint> candidates, int i, CompletableFuture<Routes> f, StringBuilder why) {
        if (i == candidates.size()) {
            failedRefreshes.incrementAndGet();
            lastRefreshError = "no node answered CLUSTER SHARDS:" + why;
            log.warn("kvs cluster topology not refreshed: {}", lastRefreshError);
            f.completeExceptionally(new NoPrimaryException(
                    "cannot read the cluster's topology: no node answered CLUSTER SHARDS:" + why, null));
            return;
        }
        Endpoint node = candidates.get(i);
        Connection.Listener listener = new Connection.Listener() {
            @Override
            public void onValue(Object value) {
                f.complete(install((Topology) value, node));
            }

            @Override
            public void onError(String text) {
                next(text);
            }

            @Override
            public void onFailure(Connection.Failure failure, Throwable cause) {
                next(failure + ": " + EndpointPool.describe(cause));
            }

            private void next(String text) {
                why.append(' ').append(node).append(" (").append(text).append(')');
                ask(candidates, i + 1, f, why);
            }
        };
        if (!nodes.pool(node).connection().send(Command.clusterShards(tls), listener)) {
            listener.onError(maxPending + " requests already in flight");
        }
    }

    private Routes install(Topology topology, Endpoint from) {
        List<Router> shards = new ArrayList<>(topology.shards().size());
        Router[] bySlot = new Router[HashSlots.SLOTS];
        Set<Endpoint> keep = new LinkedHashSet<>();
        Routes previous = routes;
        for (Topology.ShardNodes s : topology.shards()) {
            List<EndpointPool> pools = new ArrayList<>(s.nodes().size());
            for (Endpoint e : s.nodes()) pools.add(nodes.pool(e));
            keep.addAll(s.nodes());
            Router router = sameNodes(previous, pools);
            shards.add(router);
            for (SlotRange range : s.slots()) {
                for (int slot = range.first(); slot <= range.last(); slot++) bySlot[slot] = router;
            }
        }
        Routes r = new Routes(topology, List.copyOf(shards), bySlot, Instant.now());
        routes = r;
        refreshes.incrementAndGet();
        nodes.retain(keep);
        if (previous == null || !previous.topology().equals(topology)) {
            log.info(
                    "kvs cluster topology from {}: {} shards, {} slots served",
                    from,
                    topology.shards().size(),
                    topology.slotsCovered());
        }
        return r;
    }

    /**
     * The previous topology's router of a shard with the same nodes in the same order, so a refresh
     * that changes nothing keeps which node serves; else a new one.
     */
    private static Router sameNodes(Routes previous, List<EndpointPool> pools) {
        if (previous != null) {
            for (Router old : previous.shards()) {
                if (old.pools().equals(pools)) return old;
            }
        }
        return new Router(pools);
    }

    /** Fails a refresh still in flight or waiting for its turn: the I/O threads that would run it stop. */
    void close() {
        CompletableFuture<Routes> f;
        synchronized (this) {
            f = refreshing;
        }
        if (f != null) f.completeExceptionally(new KvsClientException("client is closed"));
    }

    /** The endpoint that most recently served a request of the first shard, or the first seed. */
    String activeEndpoint() {
        Routes r = routes;
        return r == null || r.shards().isEmpty()
                ? seeds.get(0).toString()
                : r.shards().get(0).activeEndpoint();
    }

    ClusterStatus status() {
        Routes r = routes;
        return new ClusterStatus(
                r == null ? 0 : r.topology().shards().size(),
                r == null ? 0 : r.topology().slotsCovered(),
                nodes.size(),
                r == null ? null : r.readAt(),
                refreshes.get(),
                failedRefreshes.get(),
                moved.get(),
                clusterDown.get(),
                lastRefreshError,
                maxRedirects,
                Duration.ofNanos(refreshMinIntervalNanos),
                maxPending);
    }
}
