package dev.kvs.client.internal;

import dev.kvs.client.KvsClientException;
import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.EventExecutor;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/** Runs {@link Call}s over the {@link Router}'s endpoints, and tracks them so that close fails every one. */
final class Dispatcher {
    final Router router;
    final int maxPending;
    final long unfinishedRetryDeadlineNanos;
    private final EventLoopGroup group;
    private final Set<Call<?>> calls = ConcurrentHashMap.newKeySet();
    private volatile boolean closed;

    Dispatcher(Router router, EventLoopGroup group, ClientConfig config) {
        this.router = router;
        this.group = group;
        this.maxPending = config.maxPending();
        this.unfinishedRetryDeadlineNanos = config.unfinishedRetryDeadline().toNanos();
    }

    <T> CompletableFuture<T> submit(Command<T> command) {
        Call<T> call = new Call<>(this, command);
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
        for (EndpointPool p : router.pools()) p.close();
        var terminated = group.shutdownGracefully(0, 2, TimeUnit.SECONDS);
        if (!inEventLoop()) terminated.awaitUninterruptibly(5, TimeUnit.SECONDS);
        // what was still waiting (a backoff, a connect) when the threads stopped
        for (Call<?> call : new ArrayList<>(calls)) call.fail(new KvsClientException("client is closed"));
    }

    List<EndpointPool> pools() {
        return router.pools();
    }
}
