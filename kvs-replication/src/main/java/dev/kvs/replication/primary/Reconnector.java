package dev.kvs.replication.primary;

import dev.kvs.replication.ReplicatorConfig;
import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;

/** Exponential reconnect backoff: min, 2*min, ... up to max; reset by a successful handshake. */
final class Reconnector {
    private final long minNanos;
    private final long maxNanos;
    private long nextNanos;

    Reconnector(ReplicatorConfig config) {
        this.minNanos = config.reconnectMin().toNanos();
        this.maxNanos = config.reconnectMax().toNanos();
        this.nextNanos = minNanos;
    }

    synchronized void reset() {
        nextNanos = minNanos;
    }

    synchronized void schedule(EventLoop loop, Runnable connect) {
        long delay = nextNanos;
        nextNanos = Math.min(maxNanos, Math.max(1, nextNanos * 2));
        loop.schedule(connect, delay, TimeUnit.NANOSECONDS);
    }
}
