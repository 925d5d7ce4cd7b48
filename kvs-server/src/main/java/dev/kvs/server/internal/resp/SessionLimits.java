package dev.kvs.server.internal.resp;

import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.pubsub.OutputLimit;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's bounds (see {@link NodeConfig}). The bytes of replies queued for the client,
 * computed but not sent (held behind a reply still waiting for replication, or written to a client that
 * does not read), are counted; above {@link #REPLY_SOFT_LIMIT} its next commands wait ({@link
 * HeldCommands}), and reading pauses, until they drain; above {@code clientOutputBufferLimit} the
 * connection is closed. A connection is closed when it has not authenticated within {@code
 * authTimeoutSeconds} (with {@code requirepass} or {@code users}), or has been idle for {@code
 * timeoutSeconds}. Owns those checks, the idle clock and the connection's share of the node-wide
 * bound on client memory ({@link ClientMemory.Account}). Confined to the connection's event loop.
 */
final class SessionLimits {
    /** The connection's log, as it was when these checks were part of {@link RespHandler}. */
    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);

    /**
     * Above this many bytes of replies queued for a client, its next commands wait until they drain.
     * The same as the client channels' write-buffer high-water mark (see {@link RespServer}).
     */
    static final long REPLY_SOFT_LIMIT = 4 << 20;

    private final RespHandler connection;
    private final NodeConfig config;
    private final ClientStats stats;
    private final ClientWarnings warnings;
    /** This connection's share of the node-wide bound on client memory. */
    private final ClientMemory.Account memory;
    /** {@code clientOutputBufferLimit}; 0: none. */
    private final long outputLimit;

    /**
     * When the client last sent a command, was last answered after a wait, or last took replies it was
     * slow to read; on the executor's ticker.
     */
    private long lastActivityNanos;

    private ScheduledFuture<?> idleCheck;
    private ScheduledFuture<?> authCheck;

    /** @param connection the connection these limits close */
    SessionLimits(
            RespHandler connection,
            NodeConfig config,
            ClientStats stats,
            ClientWarnings warnings,
            ClientMemory.Account memory) {
        this.connection = connection;
        this.config = config;
        this.stats = stats;
        this.warnings = warnings;
        this.memory = memory;
        this.outputLimit = config.clientOutputBufferLimit();
    }

    /** The connection is open; {@code authenticated}: it needs no login. */
    void opened(boolean authenticated) {
        memory.authenticated = authenticated;
    }

    /** The connection logged in: its memory counts as an authenticated client's, its login deadline ends. */
    void loggedIn() {
        memory.authenticated = true;
        cancel(authCheck);
    }

    /** The connection closed: its memory account closes. */
    void closed() {
        memory.close();
    }

    /** The connection closed: its timeouts stop. */
    void stopTimeouts() {
        cancel(idleCheck);
        cancel(authCheck);
    }

    /** The bytes of replies now queued for the client, waiting their turn, for the memory bound. */
    void repliesQueued(long pendingBytes) {
        memory.replies(pendingBytes);
    }

    /** Bytes of replies queued for this client: waiting their turn, plus written and not yet sent. */
    long queuedReplyBytes(Channel channel) {
        return connection.replies().pendingBytes() + unsentBytes(channel);
    }

    private static long unsentBytes(Channel channel) {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    /** True while the client's next commands must wait for its queued replies to drain. */
    boolean outputFull(ChannelHandlerContext ctx) {
        return connection.replies().pendingBytes() > REPLY_SOFT_LIMIT
                || !ctx.channel().isWritable();
    }

    /** Closes the connection if more replies are queued for it than {@code clientOutputBufferLimit}. */
    void closeIfOverOutputLimit(ChannelHandlerContext ctx) {
        if (outputLimit == 0 || connection.closing()) return;
        long queued = connection.replies().pendingBytes() + unsentBytes(ctx.channel());
        if (queued <= outputLimit) return;
        connection.startClosing();
        stats.outputBufferLimitDisconnections.increment();
        Session session = connection.session();
        warnings.outputLimit.warn(
                "closing client id={} addr={}: {} bytes of replies queued for it, over clientOutputBufferLimit {}"
                        + " (it does not read its replies, or asked for too much at once)",
                session.id,
                session.remoteAddress,
                queued,
                outputLimit);
        connection.replies().drop();
        connection.held().clear();
        ctx.close();
    }

    /**
     * Closes the connection because more messages are queued for it than the {@code pubsub} class's
     * {@code client-output-buffer-limit} allows ({@link ConnectionSubscriber} decided so on a publisher's
     * thread); counted with the other output-limit disconnections, as Redis counts them.
     */
    void closeForPubSubLimit(ChannelHandlerContext ctx, long queued, OutputLimit limit) {
        if (connection.closing()) return;
        connection.startClosing();
        stats.outputBufferLimitDisconnections.increment();
        Session session = connection.session();
        warnings.outputLimit.warn(
                "closing client id={} addr={}: {} bytes of pub/sub messages queued for it, over"
                        + " client-output-buffer-limit pubsub {} (it does not read its messages)",
                session.id,
                session.remoteAddress,
                queued,
                limit.text());
        connection.replies().drop();
        connection.held().clear();
        ctx.close();
    }

    void startTimeouts(ChannelHandlerContext ctx) {
        lastActivityNanos = ticker(ctx);
        if (!connection.session().authenticated() && config.authTimeoutSeconds() > 0) {
            authCheck = ctx.executor().schedule(() -> authTimedOut(ctx), config.authTimeoutSeconds(), TimeUnit.SECONDS);
        }
        if (config.timeoutSeconds() > 0) {
            idleCheck = ctx.executor().schedule(() -> checkIdle(ctx), config.timeoutSeconds(), TimeUnit.SECONDS);
        }
    }

    private void authTimedOut(ChannelHandlerContext ctx) {
        Session session = connection.session();
        if (!ctx.channel().isActive() || connection.closing() || session.authenticated()) return;
        stats.authTimeouts.increment();
        log.debug("closing client {}: not authenticated within authTimeoutSeconds", session.remoteAddress);
        connection.refuse(
                ctx,
                "ERR authentication timeout: no AUTH within " + config.authTimeoutSeconds()
                        + " seconds of connecting (authTimeoutSeconds)");
    }

    /**
     * Closes the connection if it has been idle for {@code timeoutSeconds}. A client whose command
     * waits for replication is not idle; one that stopped reading its replies is.
     */
    private void checkIdle(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive() || connection.closing()) return;
        long timeout = TimeUnit.SECONDS.toNanos(config.timeoutSeconds());
        long idle = ticker(ctx) - lastActivityNanos;
        if (idle >= timeout
                && connection.replies().isEmpty()
                && !connection.held().retryScheduled()) {
            stats.idleTimeouts.increment();
            log.debug("closing client {}: idle for timeoutSeconds", connection.session().remoteAddress);
            connection.startClosing();
            ctx.close();
            return;
        }
        long next = idle >= timeout ? timeout : timeout - idle;
        idleCheck = ctx.executor().schedule(() -> checkIdle(ctx), next, TimeUnit.NANOSECONDS);
    }

    /** The client interacted now (only tracked with an idle timeout: it costs a clock read). */
    void touch(ChannelHandlerContext ctx) {
        if (idleCheck != null) lastActivityNanos = ticker(ctx);
    }

    private static long ticker(ChannelHandlerContext ctx) {
        return ctx.executor().ticker().nanoTime();
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) f.cancel(false);
    }
}
