package dev.kvs.client.internal;

import dev.kvs.client.Acknowledgements;
import dev.kvs.client.KvsClientException;
import dev.kvs.cluster.HashSlots;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Runs {@link Call}s over the {@link Router}'s endpoints (in cluster mode, over the router of each
 * request's slot), and tracks them so that close fails every one.
 */
final class Dispatcher {
    /** The pair's router; null in cluster mode. */
    final Router router;
    /** Cluster mode's routing; null for a pair. */
    final SlotRouter slots;
    /** {@link #slots}, as what a call needs to follow {@code -MOVED}; null for a pair. */
    final Redirects redirects;

    private final NodePools nodes;
    final int maxPending;
    final long unfinishedRetryDeadlineNanos;
    /** Hears acknowledged writes; null if no one listens. */
    final Acknowledgements acknowledgements;

    private final EventLoopGroup group;
    private final Set<Call<?>> calls = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    /** A pair's dispatcher. */
    Dispatcher(Router router, EventLoopGroup group, ClientConfig config) {
        this(router, null, null, group, config);
    }

    /** A cluster's dispatcher. */
    Dispatcher(SlotRouter slots, NodePools nodes, EventLoopGroup group, ClientConfig config) {
        this(null, slots, nodes, group, config);
    }

    private Dispatcher(Router router, SlotRouter slots, NodePools nodes, EventLoopGroup group, ClientConfig config) {
        this.router = router;
        this.slots = slots;
        this.redirects = slots;
        this.nodes = nodes;
        this.group = group;
        this.maxPending = config.maxPending();
        this.unfinishedRetryDeadlineNanos = config.unfinishedRetryDeadline().toNanos();
        this.acknowledgements = config.acknowledgements();
    }

    <T> CompletableFuture<T> submit(Command<T> command) {
        if (slots == null) return start(router, command);
        // every key of a command sent here is in one slot: the client split it by slot before
        CompletableFuture<Router> routed =
                command.keys.isEmpty() ? slots.anyRouter() : slots.routerFor(HashSlots.slot(command.keys.get(0)));
        if (routed.isDone() && !routed.isCompletedExceptionally()) return start(routed.join(), command);
        CompletableFuture<T> result = new CompletableFuture<>();
        routed.whenComplete((r, e) -> {
            if (e != null) {
                result.completeExceptionally(
                        e instanceof CompletionException && e.getCause() != null ? e.getCause() : e);
            } else if (closed) {
                result.completeExceptionally(new KvsClientException("client is closed"));
            } else {
                start(r, command).whenComplete((v, f) -> {
                    if (f != null) {
                        result.completeExceptionally(f);
                    } else {
                        result.complete(v);
                    }
                });
            }
        });
        return result;
    }

    /**
     * The endpoint serving {@code key} as a primary now: found by a read of it ({@code EXISTS}, which
     * follows redirects and passes over backups as any request does), then the router's active one.
     */
    CompletableFuture<EndpointPool> primaryFor(byte[] key) {
        return submit(Command.exists(key))
                .thenCompose(found -> slots == null
                        ? CompletableFuture.completedFuture(router)
                        : slots.routerFor(HashSlots.slot(key))) // after the read: it may have moved
                .thenApply(Router::active);
    }

    private <T> CompletableFuture<T> start(Router r, Command<T> command) {
        Call<T> call = new Call<>(this, r, command);
        calls.add(call);
        call.attempt();
        return call.result;
    }

    boolean isClosed() {
        return closed;
    }

    void done(Call<?> call) {
        calls.remove(call);
    }

    /** Runs {@code task} after {@code delayNanos} on an I/O thread; false if the client is closing. */
    boolean schedule(Runnable task, long delayNanos) {
        try {
            group.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
            return true;
        } catch (RejectedExecutionException e) {
            return false;
        }
    }

    /** Whether the current thread is one of the client's I/O threads. */
    boolean inEventLoop() {
        for (EventExecutor e : group) {
            if (e.inEventLoop()) return true;
        }
        return false;
    }

    void close() {
        closed = true;
        if (router != null) {
            for (EndpointPool p : router.pools()) p.close();
        } else {
            slots.close();
            nodes.close();
        }
        var terminated = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        if (!inEventLoop()) terminated.awaitUninterruptibly(5, TimeUnit.SECONDS);
        // what was still waiting (a backoff, a connect) when the threads stopped
        for (Call<?> call : new ArrayList<>(calls)) call.fail(new KvsClientException("client is closed"));
    }
}
