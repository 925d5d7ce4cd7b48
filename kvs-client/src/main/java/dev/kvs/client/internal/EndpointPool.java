package dev.kvs.client.internal;

import io.netty.bootstrap.Bootstrap;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connections to one endpoint, opened lazily and used in turn, and whether the endpoint is
 * currently passed over ("suspended") because it was unreachable or not primary. A suspension lasts
 * the recheck interval; then the endpoint is eligible again at once if a connection to it is open (a
 * backup: the next request finds out whether it was promoted), or once a background connect to it
 * succeeds, so that no request waits on a connect to an endpoint that was just down.
 */
final class EndpointPool {
    private static final Logger log = LoggerFactory.getLogger(EndpointPool.class);

    final Endpoint endpoint;
    private final Bootstrap bootstrap;
    private final List<Command<?>> handshake;
    private final int maxPending;
    private final long requestTimeoutNanos;
    private final ConnectionTls tls;
    private final long recheckNanos;
    private final AtomicReferenceArray<Connection> slots;
    private final AtomicInteger nextSlot = new AtomicInteger();
    private final AtomicBoolean probing = new AtomicBoolean();
    private volatile boolean suspended;
    private volatile long suspendedUntilNanos;

    EndpointPool(Endpoint endpoint, Bootstrap bootstrap, List<Command<?>> handshake, ClientConfig config) {
        this.endpoint = endpoint;
        this.bootstrap = bootstrap;
        this.handshake = handshake;
        this.maxPending = config.maxPending();
        this.requestTimeoutNanos = config.requestTimeout().toNanos();
        this.tls = config.tls() == null ? null : new ConnectionTls(config.tls(), config.connectTimeout());
        this.recheckNanos = config.endpointRecheckInterval().toNanos();
        this.slots = new AtomicReferenceArray<>(config.connectionsPerEndpoint());
    }

    /** The next connection in turn, opening a new one in its slot if it is closed or was never opened. */
    Connection connection() {
        int i = slots.length() == 1 ? 0 : Math.floorMod(nextSlot.getAndIncrement(), slots.length());
        while (true) {
            Connection c = slots.get(i);
            if (c != null && c.isOpen()) return c;
            Connection fresh = new Connection(endpoint, maxPending, requestTimeoutNanos, tls);
            if (slots.compareAndSet(i, c, fresh)) {
                fresh.open(bootstrap, handshake);
                return fresh;
            }
        }
    }

    /** Idle connections kept for transactions, at most this many per endpoint; more are closed. */
    static final int IDLE_DEDICATED = 4;

    private final ConcurrentLinkedDeque<Connection> idleDedicated = new ConcurrentLinkedDeque<>();
    private final AtomicInteger idleDedicatedCount = new AtomicInteger();

    /**
     * A connection of its own to this endpoint, with the client's handshake, outside the pool: for a
     * transaction, whose {@code WATCH ... EXEC} must not share a connection with other requests. An idle
     * one given back with {@link #giveBack} if there is one, else a new one. The caller gives it back
     * (clean: no watched key, no open {@code MULTI}) or closes it.
     */
    Connection dedicated() {
        Connection idle;
        while ((idle = idleDedicated.pollFirst()) != null) {
            idleDedicatedCount.decrementAndGet();
            if (idle.isOpen()) return idle;
        }
        Connection c = new Connection(endpoint, maxPending, requestTimeoutNanos, tls);
        c.open(bootstrap, handshake);
        return c;
    }

    /** Keeps a clean {@link #dedicated} connection for the next transaction, or closes it if enough are kept. */
    void giveBack(Connection c) {
        if (c.isOpen() && idleDedicatedCount.incrementAndGet() <= IDLE_DEDICATED) {
            idleDedicated.addFirst(c);
        } else {
            if (c.isOpen()) idleDedicatedCount.decrementAndGet();
            c.close();
        }
    }

    /** Whether requests may go here now; may start a background connect when a suspension ends. */
    boolean eligible(long nowNanos) {
        if (!suspended) return true;
        if (nowNanos - suspendedUntilNanos < 0) return false;
        if (hasReadyConnection()) {
            suspended = false;
            return true;
        }
        probe();
        return false;
    }

    /** Passes this endpoint over for the recheck interval. */
    void suspend(String why) {
        suspendedUntilNanos = System.nanoTime() + recheckNanos;
        if (!suspended) {
            suspended = true;
            log.info("kvs endpoint {} passed over for now: {}", endpoint, why);
        }
    }

    /** It answered as a primary (or a background connect succeeded): eligible again. */
    void available() {
        suspended = false;
    }

    boolean isSuspended() {
        return suspended;
    }

    void close() {
        Connection idle;
        while ((idle = idleDedicated.pollFirst()) != null) idle.close();
        for (int i = 0; i < slots.length(); i++) {
            Connection c = slots.get(i);
            if (c != null) c.close();
        }
    }

    private boolean hasReadyConnection() {
        for (int i = 0; i < slots.length(); i++) {
            Connection c = slots.get(i);
            if (c != null && c.isReady()) return true;
        }
        return false;
    }

    private void probe() {
        if (!probing.compareAndSet(false, true)) return;
        connection().ready().whenComplete((c, e) -> {
            probing.set(false);
            if (e == null) {
                available();
            } else {
                suspend(describe(e));
            }
        });
    }

    static String describe(Throwable e) {
        Throwable t = e instanceof CompletionException && e.getCause() != null ? e.getCause() : e;
        return t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
    }

    @Override
    public String toString() {
        return endpoint.toString();
    }
}
