package dev.kvs.client.internal;

import dev.kvs.client.AuthenticationException;
import dev.kvs.client.KvsClientException;
import dev.kvs.client.KvsTimeoutException;
import dev.kvs.client.KvsTlsException;
import dev.kvs.client.NoPermissionException;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FixedRedisMessagePool;
import io.netty.handler.codec.redis.RedisArrayAggregator;
import io.netty.handler.codec.redis.RedisBulkStringAggregator;
import io.netty.handler.codec.redis.RedisDecoder;
import io.netty.handler.codec.redis.RedisEncoder;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.ssl.NotSslRecordException;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.SslHandshakeTimeoutException;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.net.ssl.SSLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pipelined RESP connection to one endpoint. Requests are written in the order they are sent and
 * matched to replies in that order (a FIFO of {@link Exchange}s, touched only on the channel's event
 * loop); flushes are coalesced, one per batch of writes queued on the loop. Requests sent while the
 * connection is still opening (connect + AUTH, CLIENT SETNAME, KVS.MODE) wait, in order, and are
 * written once it is ready. Each request reaches its {@link Listener} exactly once.
 *
 * <p>With TLS, the handshake comes first: a failed one fails the connection as {@link Failure#FATAL}
 * with a {@link KvsTlsException}, and so does a TLS failure reported later (a server refusing the
 * client's certificate after a TLS 1.3 handshake).
 */
final class Connection extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(Connection.class);
    /** Longest simple string or error line accepted: an error may quote a key of up to 64 KiB. */
    private static final int MAX_INLINE_BYTES = 1 << 20;

    /** How a request failed to get a reply. */
    enum Failure {
        /** The connection could not be opened: nothing was sent; the endpoint looks down. */
        CONNECT_FAILED,
        /** The connection closed before the request was written: nothing was executed. */
        NOT_SENT,
        /** The connection closed after the request was written: it may have been executed. */
        LOST,
        /** No reply in time and nothing received at all meanwhile: the connection was closed. */
        UNRESPONSIVE,
        /** No reply in time, but the connection is alive (the server is slow on this request). */
        TIMEOUT,
        /** Not worth retrying anywhere: the cause is the exception to throw. */
        FATAL
    }

    /** Receives the outcome of one request, on the connection's event loop (or the sender's thread). */
    interface Listener {
        void onValue(Object value);

        void onError(String text);

        void onFailure(Failure failure, Throwable cause);
    }

    private enum State {
        CONNECTING,
        READY,
        CLOSED
    }

    private final Endpoint endpoint;
    private final int maxPending;
    private final long requestTimeoutNanos;
    private final ConnectionTls tls;
    private final AtomicInteger inFlight = new AtomicInteger();
    private final CompletableFuture<Connection> ready = new CompletableFuture<>();

    // guarded by this
    private State state = State.CONNECTING;
    private Channel channel;
    private final List<Waiting> waiting = new ArrayList<>();
    private Failure closedAs = Failure.NOT_SENT;
    private Throwable closedCause;

    // event loop only
    private final ArrayDeque<Exchange> pending = new ArrayDeque<>();
    private boolean flushScheduled;
    private long lastReadNanos;
    /** Why TLS failed on this connection, if it did: what its requests fail with. */
    private KvsTlsException tlsFailure;

    Connection(Endpoint endpoint, int maxPending, long requestTimeoutNanos) {
        this(endpoint, maxPending, requestTimeoutNanos, null);
    }

    /** @param tls how to speak TLS, or null for plain TCP */
    Connection(Endpoint endpoint, int maxPending, long requestTimeoutNanos, ConnectionTls tls) {
        this.endpoint = endpoint;
        this.maxPending = maxPending;
        this.requestTimeoutNanos = requestTimeoutNanos;
        this.tls = tls;
    }

    /** Starts connecting and then sends {@code handshake}; requests sent meanwhile wait. */
    void open(Bootstrap bootstrap, List<Command<?>> handshake) {
        Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<Channel>() {
            @Override
            protected void initChannel(Channel ch) {
                ChannelPipeline p = ch.pipeline();
                if (tls != null) p.addLast(tls.newHandler(ch, endpoint));
                p.addLast(new RedisDecoder(MAX_INLINE_BYTES, FixedRedisMessagePool.INSTANCE, false));
                p.addLast(new RedisBulkStringAggregator());
                p.addLast(new RedisArrayAggregator());
                p.addLast(new RedisEncoder());
                p.addLast(Connection.this);
            }
        });
        try {
            b.connect(endpoint.host(), endpoint.port()).addListener((ChannelFuture f) -> {
                if (f.isSuccess() && tls != null) {
                    f.channel()
                            .pipeline()
                            .get(SslHandler.class)
                            .handshakeFuture()
                            .addListener(h -> {
                                if (h.isSuccess()) {
                                    connected(f.channel(), handshake);
                                } else {
                                    openFailed(Failure.FATAL, tlsFailed(h.cause()));
                                }
                            });
                } else if (f.isSuccess()) {
                    connected(f.channel(), handshake);
                } else {
                    openFailed(Failure.CONNECT_FAILED, f.cause());
                }
            });
        } catch (RejectedExecutionException e) { // the client is closing
            openFailed(Failure.NOT_SENT, e);
        }
    }

    /** Completes when the connection is ready for requests, or fails with why it could not open. */
    CompletableFuture<Connection> ready() {
        return ready;
    }

    Endpoint endpoint() {
        return endpoint;
    }

    synchronized boolean isOpen() {
        return state != State.CLOSED;
    }

    synchronized boolean isReady() {
        return state == State.READY;
    }

    /**
     * Sends {@code command}; {@code listener} hears the outcome exactly once.
     *
     * @return false, with nothing sent and the listener not called, if {@code maxPending} requests are
     *     already in flight on this connection
     */
    boolean send(Command<?> command, Listener listener) {
        if (inFlight.incrementAndGet() > maxPending) {
            inFlight.decrementAndGet();
            return false;
        }
        Channel ch;
        Failure failure;
        Throwable cause;
        synchronized (this) {
            switch (state) {
                case CONNECTING:
                    waiting.add(new Waiting(command, listener));
                    return true;
                case READY:
                    ch = channel;
                    failure = null;
                    cause = null;
                    break;
                default:
                    ch = null;
                    failure = closedAs;
                    cause = closedCause;
            }
        }
        if (ch == null) {
            inFlight.decrementAndGet();
            listener.onFailure(failure, cause);
            return true;
        }
        try {
            ch.eventLoop().execute(() -> write(command, listener, true));
        } catch (RejectedExecutionException e) {
            inFlight.decrementAndGet();
            listener.onFailure(Failure.NOT_SENT, e);
        }
        return true;
    }

    /** Closes the connection; requests in flight fail as {@link Failure#LOST} or {@link Failure#NOT_SENT}. */
    void close() {
        Channel ch;
        synchronized (this) {
            ch = channel;
        }
        if (ch != null) {
            closing();
            ch.close();
        } else {
            openFailed(Failure.NOT_SENT, new ClosedChannelException());
        }
    }

    /** The channel is connected: handshake, then ready. Tests call it with an {@code EmbeddedChannel}. */
    void connected(Channel ch, List<Command<?>> handshake) {
        synchronized (this) {
            channel = ch;
            if (state == State.CLOSED) { // closed while connecting
                ch.close();
                return;
            }
        }
        lastReadNanos = System.nanoTime();
        if (handshake.isEmpty()) {
            becomeReady();
            return;
        }
        Handshake h = new Handshake(handshake.size());
        for (Command<?> c : handshake) {
            write(c, h.step(c), false); // not counted against maxPending: the caller did not send it
        }
    }

    private void becomeReady() {
        if (!channel.isActive()) { // closed during the handshake: fail what waited, write nothing
            openFailed(Failure.CONNECT_FAILED, new ClosedChannelException());
            return;
        }
        synchronized (this) {
            if (state != State.CONNECTING) return;
            state = State.READY;
            // still under the lock, so that nothing sent from now on overtakes what waited
            for (Waiting w : waiting) write(w.command, w.listener, true);
            waiting.clear();
        }
        ready.complete(this);
    }

    private void openFailed(Failure failure, Throwable cause) {
        List<Waiting> failed;
        Channel ch;
        synchronized (this) {
            if (state == State.CLOSED) return;
            state = State.CLOSED;
            closedAs = failure;
            closedCause = cause;
            failed = new ArrayList<>(waiting);
            waiting.clear();
            ch = channel;
        }
        if (ch != null) ch.close();
        ready.completeExceptionally(cause);
        for (Waiting w : failed) {
            inFlight.decrementAndGet();
            w.listener.onFailure(failure, cause);
        }
    }

    private void write(Command<?> command, Listener listener, boolean counted) {
        if (!channel.isActive()) {
            closing();
            if (counted) inFlight.decrementAndGet();
            listener.onFailure(Failure.NOT_SENT, new ClosedChannelException());
            return;
        }
        Exchange x = new Exchange(command, listener, System.nanoTime(), counted);
        pending.add(x);
        x.timeout = channel.eventLoop().schedule(() -> timedOut(x), requestTimeoutNanos, TimeUnit.NANOSECONDS);
        channel.write(command.toMessage()).addListener(f -> {
            if (f.isSuccess()) {
                x.written = true;
            } else {
                x.writeFailed = true; // never reached the server whole: it cannot have been executed
                closing();
                channel.close();
            }
        });
        if (!flushScheduled) {
            flushScheduled = true;
            channel.eventLoop().execute(this::flush);
        }
    }

    private void flush() {
        flushScheduled = false;
        channel.flush();
    }

    private void timedOut(Exchange x) {
        if (x.done) return;
        x.done = true; // stays in the FIFO: its reply may still come and must be matched, then dropped
        boolean silent = lastReadNanos - x.sentNanos <= 0; // nothing at all received since it was sent
        String ambiguity = x.command.readOnly ? "" : "; it may or may not have been applied";
        if (silent) {
            log.info("kvs endpoint {} sent nothing for {} ms; closing the connection", endpoint, millis());
            closing();
            x.listener.onFailure(
                    Failure.UNRESPONSIVE,
                    new KvsTimeoutException("no reply to " + x.command.describe() + " from " + endpoint + " within "
                            + millis() + " ms (the connection went silent and was closed)" + ambiguity));
            channel.close();
        } else {
            x.listener.onFailure(
                    Failure.TIMEOUT,
                    new KvsTimeoutException("no reply to " + x.command.describe() + " from " + endpoint + " within "
                            + millis() + " ms" + ambiguity));
        }
    }

    private long millis() {
        return TimeUnit.NANOSECONDS.toMillis(requestTimeoutNanos);
    }

    /**
     * The channel is (about to be) closed: from now on requests go to a new connection instead of
     * being queued behind the close, even before {@link #channelInactive} runs.
     */
    private void closing() {
        synchronized (this) {
            if (state == State.READY) {
                state = State.CLOSED;
                closedAs = Failure.NOT_SENT;
                closedCause = new ClosedChannelException();
            }
        }
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            Exchange x = pending.poll();
            if (x == null) {
                log.warn("kvs endpoint {} sent a reply with no request pending; closing the connection", endpoint);
                closing();
                ctx.close();
                return;
            }
            if (x.counted) inFlight.decrementAndGet();
            if (x.done) return;
            x.done = true;
            x.timeout.cancel(false);
            if (msg instanceof ErrorRedisMessage e) {
                x.listener.onError(e.content());
                return;
            }
            Object value;
            try {
                value = x.command.decoder.decode(x.command.name, (RedisMessage) msg);
            } catch (KvsClientException e) {
                x.listener.onFailure(Failure.FATAL, e);
                return;
            }
            x.listener.onValue(value);
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        lastReadNanos = System.nanoTime(); // also while a large reply streams in, before it is whole
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Throwable closed = tlsFailure != null ? tlsFailure : new ClosedChannelException();
        closing();
        Exchange x;
        while ((x = pending.poll()) != null) {
            if (x.counted) inFlight.decrementAndGet();
            if (x.done) continue;
            x.done = true;
            x.timeout.cancel(false);
            // a write whose promise has not failed may have reached the server: assume it did
            x.listener.onFailure(x.writeFailed ? Failure.NOT_SENT : Failure.LOST, closed);
        }
        // no-op unless it closed during the handshake
        openFailed(tlsFailure != null ? Failure.FATAL : Failure.CONNECT_FAILED, closed);
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        SSLException ssl = sslCause(cause);
        if (ssl != null) {
            if (tlsFailure == null) tlsFailure = tlsFailed(ssl);
            log.debug("kvs endpoint {}: {}", endpoint, ssl.toString());
        } else if (cause instanceof IOException) {
            log.debug("kvs endpoint {}: {}", endpoint, cause.toString());
        } else {
            log.warn("kvs endpoint {}: closing the connection", endpoint, cause);
        }
        closing();
        ctx.close();
    }

    private KvsTlsException tlsFailed(Throwable cause) {
        Throwable t = sslCause(cause) != null ? sslCause(cause) : cause;
        String why = t instanceof NotSslRecordException
                ? "the server answered in plain text (is tls.clients on for this node?)"
                : t instanceof SslHandshakeTimeoutException
                        ? t.getMessage() + " (does this port speak TLS?)"
                        : t.getMessage();
        return new KvsTlsException("TLS with " + endpoint + " failed: " + why, cause);
    }

    private static SSLException sslCause(Throwable t) {
        for (int depth = 0; t != null && depth < 5; depth++, t = t.getCause()) {
            if (t instanceof SSLException e) return e;
        }
        return null;
    }

    @Override
    public String toString() {
        return "Connection[" + endpoint + "]";
    }

    private record Waiting(Command<?> command, Listener listener) {}

    /** A request written on the connection, waiting for its reply. */
    private static final class Exchange {
        final Command<?> command;
        final Listener listener;
        final long sentNanos;
        /** Counted in {@code inFlight} (a caller's request, not a handshake step). */
        final boolean counted;

        ScheduledFuture<?> timeout;
        boolean written;
        boolean writeFailed;
        /** The listener has been told; a reply still to come is dropped. */
        boolean done;

        Exchange(Command<?> command, Listener listener, long sentNanos, boolean counted) {
            this.command = command;
            this.listener = listener;
            this.sentNanos = sentNanos;
            this.counted = counted;
        }
    }

    /** The commands sent right after connecting; the connection is ready when all answered OK. */
    private final class Handshake {
        private int remaining;

        Handshake(int steps) {
            remaining = steps;
        }

        Listener step(Command<?> command) {
            return new Listener() {
                @Override
                public void onValue(Object value) {
                    if (--remaining == 0) becomeReady();
                }

                @Override
                public void onError(String text) {
                    KvsClientException e = ServerErrors.toException(text, List.of());
                    if (!(e instanceof AuthenticationException
                            || e instanceof NoPermissionException
                            || e instanceof KvsTlsException)) {
                        e = new KvsClientException(command.name + " refused by " + endpoint + ": " + text);
                    }
                    openFailed(Failure.FATAL, e);
                }

                @Override
                public void onFailure(Failure failure, Throwable cause) {
                    boolean fatal = failure == Failure.FATAL || cause instanceof KvsTlsException;
                    openFailed(fatal ? Failure.FATAL : Failure.CONNECT_FAILED, cause);
                }
            };
        }
    }
}
