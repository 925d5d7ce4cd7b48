package dev.kvs.coordination;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A primary's right to acknowledge writes and serve reads, proven by its ZooKeeper session and lost on
 * its own clock. The lease holds until two thirds of the session timeout after the <em>send</em> time of
 * the last round trip that proved the session alive (the node's ephemeral znode still owned by this
 * session). ZooKeeper expires a session a full session timeout after the last packet it received, which
 * is no earlier than that send time; so a primary cut off silently (its packets dropped, nothing reset)
 * stops by itself a third of a session timeout before ZooKeeper can let a coordinator promote its
 * backup. Curator's {@code SUSPENDED} (or {@code LOST}, {@code READ_ONLY}) revokes the lease at once,
 * whichever comes first.
 *
 * <p>A lease that does not hold is granted again only after the holder's {@link Entitlement} says it
 * still may (for a primary: the cluster map still names it, at its epoch), checked after the session has
 * been proven again. ZooKeeper stays off the write path: {@link #held()} is one volatile read and a
 * clock read; renewals run every sixth of the session timeout on a thread of their own.
 *
 * <p>Thread-safe.
 */
public final class Lease implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Lease.class);

    /**
     * What the holder checks, after its session was in doubt or its lease lapsed, before the lease holds
     * again. Runs on the renewal thread, after the session was proven; false (or a throw) keeps the lease
     * not held until the next renewal.
     */
    @FunctionalInterface
    public interface Entitlement {
        boolean stillEntitled() throws Exception;
    }

    /**
     * What the lease is doing, for {@code /status}, {@code INFO} and {@code /metrics}.
     *
     * @param held whether the lease holds now
     * @param millisLeft how long it holds without another renewal (0 if not held)
     * @param renewals renewals that proved the session
     * @param failedRenewals renewals that could not (ZooKeeper unreachable, an error, entitlement refused)
     * @param revocations times the lease was revoked at once (connection suspended or lost, znode not ours)
     * @param lastRevocation why the lease was last revoked; empty if never
     */
    public record Status(
            boolean held,
            long millisLeft,
            long renewals,
            long failedRenewals,
            long revocations,
            String lastRevocation) {}

    private final CuratorFramework zk;
    private final String path;
    private final Entitlement entitlement;
    private final LongSupplier nanos;
    private final Duration sessionTimeout;
    private final ScheduledExecutorService renewer;
    private final ConnectionStateListener listener = this::stateChanged;

    /** The lease holds while {@code nanos() - validUntil < 0}. */
    private volatile long validUntil;

    private volatile boolean closed;
    // Guarded by this: a revocation bumps the generation, so that a renewal sent before it cannot grant.
    private long generation;
    private long renewals;
    private long failedRenewals;
    private long revocations;
    private String lastRevocation = "";

    /**
     * A lease proven by {@code path}, an ephemeral znode that the holder creates (and re-creates) with
     * {@code zk}'s session. Not held until {@link #start()} has proven the session once.
     *
     * @param sessionTimeout the session timeout {@code zk} asked for: sets the renewal period; the deadline
     *     uses the timeout ZooKeeper negotiated
     */
    public Lease(CuratorFramework zk, String path, Duration sessionTimeout, Entitlement entitlement) {
        this(zk, path, sessionTimeout, entitlement, System::nanoTime);
    }

    Lease(CuratorFramework zk, String path, Duration sessionTimeout, Entitlement entitlement, LongSupplier nanos) {
        this.zk = requireNonNull(zk, "zk");
        this.path = requireNonNull(path, "path");
        this.entitlement = requireNonNull(entitlement, "entitlement");
        this.nanos = requireNonNull(nanos, "nanos");
        if (sessionTimeout.toMillis() < 60) {
            throw new IllegalArgumentException("sessionTimeout < 60 ms: " + sessionTimeout.toMillis() + " ms");
        }
        this.sessionTimeout = sessionTimeout;
        this.validUntil = nanos.getAsLong();
        this.renewer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "kvs-lease " + path);
            t.setDaemon(true);
            return t;
        });
    }

    /** Starts renewing; the lease holds after the first renewal that proves the session. */
    public void start() {
        zk.getConnectionStateListenable().addListener(listener);
        long period = sessionTimeout.toMillis() / 6;
        renewer.scheduleWithFixedDelay(this::renew, 0, period, TimeUnit.MILLISECONDS);
    }

    /**
     * Proves the session and checks the entitlement now rather than at the next period: for a holder that
     * has just become entitled (a backup the map has just named primary), so that it serves at once.
     */
    public void renewSoon() {
        try {
            renewer.execute(this::renew);
        } catch (RejectedExecutionException closedMeanwhile) {
            // close() ran: nothing to renew
        }
    }

    /** Whether the holder may acknowledge a write or serve a read now. Cheap: no I/O, no lock. */
    public boolean held() {
        return !closed && nanos.getAsLong() - validUntil < 0;
    }

    public synchronized Status status() {
        long left = validUntil - nanos.getAsLong();
        boolean held = !closed && left > 0;
        return new Status(
                held,
                held ? TimeUnit.NANOSECONDS.toMillis(left) : 0,
                renewals,
                failedRenewals,
                revocations,
                lastRevocation);
    }

    /** Proves the session once and extends the lease; runs on the renewal thread. */
    void renew() {
        long startedGeneration;
        synchronized (this) {
            if (closed) return;
            startedGeneration = generation;
        }
        long sentAt = nanos.getAsLong();
        try {
            if (!zk.getZookeeperClient().isConnected()) {
                failed();
                return;
            }
            long session = zk.getZookeeperClient().getZooKeeper().getSessionId();
            Stat stat = zk.checkExists().forPath(path);
            if (stat == null || stat.getEphemeralOwner() != session) {
                revoke(stat == null ? path + " is gone" : path + " belongs to another session");
                return;
            }
            if (!held() && !entitlement.stillEntitled()) {
                failed();
                return;
            }
            int negotiated = zk.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
            long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(negotiated > 0 ? negotiated : sessionTimeout.toMillis());
            grant(startedGeneration, sentAt + timeoutNanos * 2 / 3);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            log.debug("lease {}: renewal failed", path, e);
            failed();
        }
    }

    private synchronized void grant(long startedGeneration, long until) {
        if (closed || startedGeneration != generation) {
            failedRenewals++;
            return;
        }
        if (until - validUntil > 0) validUntil = until;
        renewals++;
    }

    private synchronized void failed() {
        failedRenewals++;
    }

    private synchronized void revoke(String why) {
        generation++;
        long now = nanos.getAsLong();
        if (validUntil - now > 0) {
            log.warn("lease {} revoked: {}", path, why);
        }
        validUntil = now;
        revocations++;
        lastRevocation = why;
    }

    private void stateChanged(CuratorFramework client, ConnectionState state) {
        switch (state) {
            case SUSPENDED, LOST, READ_ONLY -> revoke("connection to ZooKeeper " + state);
            case CONNECTED, RECONNECTED -> {
                try {
                    renewer.execute(this::renew);
                } catch (RejectedExecutionException closedMeanwhile) {
                    // close() ran: nothing to renew
                }
            }
        }
    }

    /** Revokes the lease and stops renewing it; the znode is the holder's to delete. */
    @Override
    public void close() {
        synchronized (this) {
            if (closed) return;
            closed = true;
            generation++;
            validUntil = nanos.getAsLong();
        }
        zk.getConnectionStateListenable().removeListener(listener);
        renewer.shutdownNow();
    }
}
