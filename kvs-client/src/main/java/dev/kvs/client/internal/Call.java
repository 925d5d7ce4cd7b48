package dev.kvs.client.internal;

import dev.kvs.client.Acknowledgements;
import dev.kvs.client.ConnectionLostException;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.NoPrimaryException;
import dev.kvs.client.TooManyPendingRequestsException;
import dev.kvs.client.TooManyRedirectsException;
import dev.kvs.client.UnfinishedKeyException;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CompletableFuture;

/**
 * One request from the caller's point of view, across its attempts: it is sent to the endpoint the
 * {@link Router} picks, moved on when that endpoint refuses it or is unreachable, resent after a
 * connection loss only if it is a read, and retried with {@link Backoff} while it is answered
 * {@code -UNFINISHED}. In cluster mode a {@code -MOVED slot host:port} reply (nothing was executed)
 * moves it to the named node's shard, at most {@link Redirects#maxRedirects()} times. Attempts never
 * overlap, so its state needs no lock: each attempt is handed over through an event loop's task queue
 * or a completed future, which orders the accesses.
 */
final class Call<T> implements Connection.Listener {
    private final Dispatcher dispatcher;
    final Command<T> command;
    final CompletableFuture<T> result = new CompletableFuture<>();
    /** The endpoints this request may go to: the pair, or in cluster mode the shard of its slot. */
    private Router router;
    /** Indexed like the router's pools. */
    private boolean[] refused;

    private boolean[] droppedOnce;
    private final StringBuilder passedOver = new StringBuilder();
    private Throwable lastCause;
    private int hops;
    private int redirects;
    private EndpointPool at;
    /** When the current attempt was handed to its connection. */
    private long sentNanos;

    private int atIndex;
    /** The endpoint a {@code -NOTPRIMARY} or {@code -MOVED} reply named, for the next attempt; or -1. */
    private int named = -1;

    private int unfinishedRetries;
    private long unfinishedDeadlineNanos;

    Call(Dispatcher dispatcher, Router router, Command<T> command) {
        this.dispatcher = dispatcher;
        this.command = command;
        this.router = router;
        this.refused = new boolean[router.size()];
        this.droppedOnce = new boolean[refused.length];
    }

    /** Sends the request to the endpoint the router picks now. */
    void attempt() {
        if (result.isDone()) return;
        if (dispatcher.isClosed()) {
            fail(new KvsClientException("client is closed"));
            return;
        }
        // each endpoint may cost two hops (dropped once, then refused): a bound against a loop
        int i;
        if (++hops > 2 * refused.length + 2) {
            i = -1;
        } else if (named >= 0 && !refused[named]) {
            // a backup told us where the primary is, or -MOVED where the slot is: go there, even if passed over
            i = named;
        } else {
            i = router.select(refused);
        }
        named = -1;
        if (i < 0) {
            fail(new NoPrimaryException(
                    "no endpoint is up and primary for " + command.describe() + ":" + passedOver, lastCause));
            return;
        }
        EndpointPool p = router.pool(i);
        at = p;
        atIndex = i;
        sentNanos = System.nanoTime();
        if (!p.connection().send(command, this)) {
            fail(new TooManyPendingRequestsException(
                    dispatcher.maxPending + " requests already in flight on a connection to " + p.endpoint + "; "
                            + command.describe() + " was not sent"));
        }
    }

    @Override
    public void onValue(Object value) {
        router.served(at);
        @SuppressWarnings("unchecked")
        T t = (T) value;
        Acknowledgements heard = dispatcher.acknowledgements;
        if (heard != null && !command.readOnly && !result.isDone()) {
            heard.acknowledged(command.keys, at.endpoint.toString(), sentNanos, System.nanoTime());
        }
        if (result.complete(t)) dispatcher.done(this);
    }

    @Override
    public void onError(String text) {
        ServerErrors.Kind kind = ServerErrors.kind(text);
        if (kind == ServerErrors.Kind.NOTPRIMARY) {
            at.suspend(text);
            refuse(text, null);
            Endpoint primary = ServerErrors.primaryNamed(text);
            if (primary != null) named = router.find(primary);
            attempt();
            return;
        }
        if (kind == ServerErrors.Kind.CLUSTERDOWN) {
            // nothing was executed there: another node of the shard (its backup, promoted meanwhile
            // in the other datacenter) may serve it; the topology may be stale too
            at.suspend(text);
            refuse(text, null);
            if (dispatcher.redirects != null) dispatcher.redirects.unserved();
            attempt();
            return;
        }
        if (kind == ServerErrors.Kind.MOVED && dispatcher.redirects != null) {
            moved(text);
            return;
        }
        router.served(at);
        if (kind == ServerErrors.Kind.UNFINISHED || kind == ServerErrors.Kind.FENCED) {
            // both pass: a value still arriving; a switchover in progress or a restarted primary
            // waiting for its backup (nothing was written; then -NOTPRIMARY moves us on)
            retryUnfinished(text);
        } else {
            fail(ServerErrors.toException(text, command.keys));
        }
    }

    @Override
    public void onFailure(Connection.Failure failure, Throwable cause) {
        boolean maybeApplied = failure == Connection.Failure.LOST
                || failure == Connection.Failure.UNRESPONSIVE
                || failure == Connection.Failure.TIMEOUT;
        if (dispatcher.isClosed()) {
            fail(
                    maybeApplied && !command.readOnly
                            ? new ConnectionLostException(
                                    "client closed with " + command.describe()
                                            + " in flight: it may or may not have been applied",
                                    cause)
                            : new KvsClientException("client is closed", cause));
            return;
        }
        switch (failure) {
            case CONNECT_FAILED:
                at.suspend("cannot connect: " + EndpointPool.describe(cause));
                refuse("cannot connect: " + EndpointPool.describe(cause), cause);
                attempt();
                break;
            case NOT_SENT:
                dropped("connection closed before the request was sent", cause);
                attempt();
                break;
            case LOST:
                if (command.readOnly) {
                    dropped("connection lost", cause);
                    attempt();
                } else {
                    fail(new ConnectionLostException(
                            "connection to " + at.endpoint + " lost with " + command.describe()
                                    + " in flight: it may or may not have been applied",
                            cause));
                }
                break;
            case UNRESPONSIVE:
                at.suspend("sent nothing for a whole request timeout");
                if (command.readOnly) {
                    note("no reply in time", cause);
                    attempt();
                } else {
                    fail(cause);
                }
                break;
            default: // TIMEOUT, FATAL
                fail(cause);
        }
    }

    /** {@code -MOVED slot host:port}: the slot is served elsewhere; nothing was executed here. */
    private void moved(String text) {
        ServerErrors.Moved m = ServerErrors.moved(text);
        if (m == null) {
            fail(ServerErrors.toException(text, command.keys));
            return;
        }
        Redirects r = dispatcher.redirects;
        Router next = r.movedTo(m.slot(), m.node()); // counted, and the topology refreshed, even if not followed
        if (++redirects > r.maxRedirects()) {
            fail(new TooManyRedirectsException(
                    command.describe() + " was redirected " + r.maxRedirects() + " times, the last by " + at.endpoint
                            + ": " + text + " (the cluster's slots are moving, or its nodes disagree)"));
            return;
        }
        router = next;
        refused = new boolean[router.size()];
        droppedOnce = new boolean[refused.length];
        hops = 0;
        named = router.find(m.node());
        note(text, null);
        attempt();
    }

    private void retryUnfinished(String text) {
        long now = System.nanoTime();
        if (unfinishedRetries == 0) unfinishedDeadlineNanos = now + dispatcher.unfinishedRetryDeadlineNanos;
        long remaining = unfinishedDeadlineNanos - now;
        if (remaining <= 0 && ServerErrors.kind(text) == ServerErrors.Kind.FENCED) {
            fail(ServerErrors.toException(
                    unfinishedRetries == 0 ? text : text + " (still fenced after " + unfinishedRetries + " retries)",
                    command.keys));
            return;
        }
        if (remaining <= 0) {
            UnfinishedKeyException e = (UnfinishedKeyException) ServerErrors.toException(text, command.keys);
            fail(
                    unfinishedRetries == 0
                            ? e
                            : new UnfinishedKeyException(
                                    text + " (still unfinished after " + unfinishedRetries + " retries over "
                                            + Duration.ofNanos(dispatcher.unfinishedRetryDeadlineNanos) + ")",
                                    e.key(),
                                    e.txId()));
            return;
        }
        long delay = Math.min(Backoff.delayNanos(unfinishedRetries++), remaining);
        // a fresh start: the key is served by a primary, only not yet whole
        hops = 0;
        Arrays.fill(refused, false);
        Arrays.fill(droppedOnce, false);
        passedOver.setLength(0);
        lastCause = null;
        if (!dispatcher.schedule(this::attempt, delay)) fail(new KvsClientException("client is closed"));
    }

    /** A connection dropped: reconnecting once is worth it (the node may be fine), twice is not. */
    private void dropped(String why, Throwable cause) {
        if (droppedOnce[atIndex]) {
            at.suspend(why + " twice");
            refuse(why + " twice", cause);
        } else {
            droppedOnce[atIndex] = true;
            note(why, cause);
        }
    }

    private void refuse(String why, Throwable cause) {
        refused[atIndex] = true;
        note(why, cause);
    }

    private void note(String why, Throwable cause) {
        passedOver.append(' ').append(at.endpoint).append(" (").append(why).append(')');
        if (cause != null) lastCause = cause;
    }

    /** Fails the request unless it already completed. */
    void fail(Throwable e) {
        if (result.completeExceptionally(e)) dispatcher.done(this);
    }
}
