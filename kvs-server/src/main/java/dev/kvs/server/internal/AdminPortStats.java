package dev.kvs.server.internal;

import dev.kvs.core.log.ThrottledLog;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.LoggerFactory;

/**
 * What the admin port's guards did since start: refused requests (whose WARN is {@link #refusals()},
 * rate-limited), connections closed for a request head or a next request that did not come in time,
 * and connections closed at the cap. Shown in {@code /status}, {@code INFO stats} and {@code /metrics}.
 * Thread-safe.
 */
public final class AdminPortStats {
    private final ThrottledLog refusals =
            new ThrottledLog(LoggerFactory.getLogger("dev.kvs.server.internal.admin.AdminGate"));
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder timedOut = new LongAdder();
    private final LongAdder droppedAtCap = new LongAdder();
    private final LongAdder refusedAtCap = new LongAdder();
    private volatile int maxConnections;

    /** The WARN of a refused admin request; its {@link ThrottledLog#events()} counts every refusal. */
    public ThrottledLog refusals() {
        return refusals;
    }

    /** Admin connections open now, as the port's cap counts them. */
    public AtomicInteger open() {
        return open;
    }

    /** A connection sent no request head (or body, or next request) in time and was closed. */
    public void timedOut() {
        timedOut.increment();
    }

    /** At the cap, the oldest connection waiting for a request was closed to let a new one in. */
    public void droppedAtCap() {
        droppedAtCap.increment();
    }

    /** At the cap, with every connection busy with a request, a new one was closed at once. */
    public void refusedAtCap() {
        refusedAtCap.increment();
    }

    /** Set by the admin server as it starts. */
    public void maxConnections(int max) {
        this.maxConnections = max;
    }

    /** A snapshot for {@code /status} and {@code INFO}. */
    public Snapshot snapshot() {
        return new Snapshot(
                open.get(), maxConnections, refusals.events(), timedOut.sum(), droppedAtCap.sum(), refusedAtCap.sum());
    }

    /**
     * The admin port's guards at one moment.
     *
     * @param connections admin connections open now
     * @param maxConnections the cap ({@code admin.maxConnections}); 0 before the port started
     * @param refusedRequests requests refused before their body was read (credential, loopback rule,
     *     Origin, Host, missing {@code X-Kvs-Admin}, a body over the limit)
     * @param timedOutConnections connections closed because a request head, body or next request did not
     *     come in time ({@code admin.headTimeoutMs}, {@code admin.idleTimeoutMs})
     * @param droppedAtCap connections waiting for a request closed to let a new one in at the cap
     * @param refusedAtCap new connections closed at once at the cap (every open one had a request in hand)
     */
    public record Snapshot(
            int connections,
            int maxConnections,
            long refusedRequests,
            long timedOutConnections,
            long droppedAtCap,
            long refusedAtCap) {}
}
