package dev.kvs.server.internal.resp;

import dev.kvs.core.KvsException;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.WriteOrder;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.NodeMetrics;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.write.Writes;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundBuffer;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.CodecException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: turns aggregated RESP arrays into commands, runs them, and writes replies in
 * request order even when some replies wait for replication. Measured hot path; flushes once per read
 * batch.
 *
 * <p>Bounds (see {@link NodeConfig}): the bytes of replies queued for the client, computed but not
 * sent (held behind a reply still waiting for replication, or written to a client that does not
 * read), are counted; above {@link #REPLY_SOFT_LIMIT} its next commands wait, and reading pauses,
 * until they drain; above {@code clientOutputBufferLimit} the connection is closed. A connection is
 * closed when it has not authenticated within {@code authTimeoutSeconds} (with {@code requirepass}
 * or {@code users}), or has been idle for {@code timeoutSeconds}. {@link ProtectedMode} refuses
 * clients from other hosts when no password protects a port open to them.
 *
 * <p>Permissions are checked here, in {@link #dispatch}, for every command: the session's user's role
 * must permit the command's flags (see {@link CommandSpec#permits}); else {@code -NOPERM}.
 */
final class RespHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);

    private static final int CLOSE_GRACE_SECONDS = 2;

    /**
     * Above this many bytes of replies queued for a client, its next commands wait until they drain.
     * The same as the client channels' write-buffer high-water mark (see {@link RespServer}).
     */
    static final long REPLY_SOFT_LIMIT = 4 << 20;

    private final CommandContext node;
    private final CommandTable table;
    private final ClientStats stats;
    private final NodeMetrics metrics;
    private final RespCommandDecoder decoder;
    private final ProtectedMode protectedMode;
    private final ClientWarnings warnings;
    private final AclLog aclLog;
    /** This connection's share of the node-wide bound on client memory. */
    private final ClientMemory.Account memory;
    /** Connections must log in ({@code requirepass} or {@code users}); else each is {@link Users#OPEN}. */
    private final boolean authRequired;
    /** {@code clientOutputBufferLimit}; 0: none. */
    private final long outputLimit;

    private Channel channel;
    private Session session;
    /** True once the connection is being closed on purpose: what it still sends is ignored. */
    private boolean closing;

    /** Replies not yet written because an earlier one is still pending; in request order. */
    private final ArrayDeque<QueuedReply> pending = new ArrayDeque<>();
    /** Bytes of the replies in {@link #pending} that are known (their futures are done). */
    private long pendingBytes;

    private boolean writtenSinceFlush;
    /**
     * Commands read but not run yet, in order; empty normally. They wait behind a write that waits for
     * replication room, or for the client's queued replies to drain.
     */
    private final ArrayDeque<RespCommand> held = new ArrayDeque<>();

    private long holdDeadlineNanos;
    /** When the write at the head of {@link #held} began to wait for room; 0 if it does not. */
    private long roomWaitSinceNanos;

    private boolean roomRetryScheduled;
    private boolean resumeScheduled;
    private boolean runningHeld;

    /**
     * When the client last sent a command, was last answered after a wait, or last took replies it was
     * slow to read; on the executor's ticker.
     */
    private long lastActivityNanos;

    private ScheduledFuture<?> idleCheck;
    private ScheduledFuture<?> authCheck;

    /**
     * The counters of the command {@link #dispatch} last ran, or {@code null} if it ran none (it was
     * rejected): which command an error reply failed.
     */
    private CommandCounters executed;

    /** A reply in {@link #pending}; {@code bytes} counts in {@link #pendingBytes} once known. */
    private static final class QueuedReply {
        final CompletableFuture<RedisMessage> reply;
        /** The command's counters if the reply came later (an error then counts as failed); else null. */
        final CommandCounters counters;

        long bytes;
        boolean written;
        /** Dropped unwritten (the connection closed); its reply is released once known. */
        boolean dropped;

        boolean released;

        QueuedReply(CompletableFuture<RedisMessage> reply, CommandCounters counters) {
            this.reply = reply;
            this.counters = counters;
        }
    }

    RespHandler(
            CommandContext node,
            CommandTable table,
            ClientStats stats,
            RespCommandDecoder decoder,
            ProtectedMode protectedMode,
            ClientWarnings warnings,
            AclLog aclLog,
            ClientMemory.Account memory) {
        this.node = node;
        this.warnings = warnings;
        this.aclLog = aclLog;
        this.memory = memory;
        this.authRequired = node.config().clientAuthRequired();
        this.table = table;
        this.stats = stats;
        this.metrics = node.metrics();
        this.decoder = decoder;
        this.protectedMode = protectedMode;
        this.outputLimit = node.config().clientOutputBufferLimit();
        if (authRequired) decoder.requireAuthentication(); // also with users and no requirepass
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        channel = ctx.channel();
    }

    /** The replication mode of this connection's writes now: its {@code KVS.MODE}, else the node's. */
    ReplicationMode mode() {
        Session s = session;
        return s != null && s.mode != null ? s.mode : node.mode();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        stats.connectionsReceived.increment();
        int now = stats.connected.incrementAndGet();
        metrics.connectionOpened();
        session = new Session(
                node.clientIds().getAsLong(),
                String.valueOf(ctx.channel().remoteAddress()),
                authRequired ? null : Users.OPEN);
        session.alloc = ctx.alloc();
        memory.authenticated = session.authenticated();
        if (protectedMode.refuses(ctx.channel().remoteAddress())) {
            stats.protectedModeDenials.increment();
            warnings.protectedMode.warn(
                    "refused client {}: protected mode serves only loopback clients", session.remoteAddress);
            refuse(ctx, ProtectedMode.DENIED);
        } else if (now > node.config().maxClients()) {
            stats.rejectedConnections.increment();
            warnings.refusedConnections.warn(
                    "refused client {}: {} client connections open, over maxClients {}",
                    session.remoteAddress,
                    now,
                    node.config().maxClients());
            refuse(ctx, "ERR max number of clients reached");
        } else {
            startTimeouts(ctx);
        }
        ctx.fireChannelActive();
    }

    /** Answers {@code error} to whatever the client sends, then closes. */
    private void refuse(ChannelHandlerContext ctx, String error) {
        closing = true;
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(Replies.error(error)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stats.connected.decrementAndGet();
        metrics.connectionClosed();
        memory.close();
        dropPending();
        discardHeld();
        cancel(idleCheck);
        cancel(authCheck);
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RespCommand command)) {
            ReferenceCountUtil.release(msg);
            throw new IllegalStateException(
                    "not a RespCommand: " + msg.getClass().getName());
        }
        if (closing) {
            command.discard();
            return;
        }
        touch(ctx);
        if (!held.isEmpty() || outputFull(ctx)) {
            // behind a write waiting for replication room, or for the client to read: keep the order
            held.add(command);
            ctx.channel().config().setAutoRead(false); // before the flush: it may make the channel writable
            flushIfWritten(ctx);
            return;
        }
        handle(ctx, command);
        if (session.closeAfterReply) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    private void handle(ChannelHandlerContext ctx, RespCommand command) {
        WriteStages.mark(WriteStages.Stage.DISPATCHED);
        if (command.error() != null) {
            stats.protocolErrors.increment();
            reply(ctx, Replies.error(command.error()), null);
        } else if (command.args().length > 0) {
            if (mustWaitForRoom(command)) {
                holdForRoom(ctx, command);
                return;
            }
            boolean wasAuthenticated = session.authenticated();
            RedisMessage result;
            session.staged = command.staged();
            try {
                result = dispatch(command.args());
            } finally {
                session.staged = null;
                command.discard(); // nothing if the SET committed it
            }
            reply(ctx, result, executed);
            if (!wasAuthenticated && session.authenticated()) {
                decoder.authenticated();
                memory.authenticated = true;
                cancel(authCheck);
            }
        }
    }

    /**
     * A write finding replication's bounds full is held, with everything after it on this connection,
     * and reading pauses; it is retried every millisecond, never blocking the event loop, and refused
     * with BUSY once the write timeout has passed. Its arguments' bytes stand for its values' (the bound
     * in time holds large values before small ones).
     */
    private boolean mustWaitForRoom(RespCommand command) {
        if (!session.authenticated()
                || !(node.roles().current() instanceof NodeRole.Primary p)
                || p.writes().hasRoom(argumentBytes(command))) return false;
        CommandSpec spec = table.lookup(command.args()[0]);
        return spec != null
                && spec.has(CommandSpec.WRITE)
                && CommandSpec.permits(session.user.role(), spec.flags()); // else NOPERM at once
    }

    private static long argumentBytes(RespCommand command) {
        byte[][] args = command.args();
        long n = command.staged() == null ? 0 : command.staged().stage().length();
        for (int i = 1; i < args.length; i++) n += args[i].length;
        return n;
    }

    /** How long a write may wait for replication room (0 unless this node is a replicating primary). */
    private long writeTimeoutMillis() {
        return node.roles().current() instanceof NodeRole.Primary p ? p.writes().writeTimeoutMillis() : 0;
    }

    private void holdForRoom(ChannelHandlerContext ctx, RespCommand command) {
        held.addFirst(command);
        roomWaitSinceNanos = System.nanoTime();
        holdDeadlineNanos = roomWaitSinceNanos + writeTimeoutMillis() * 1_000_000;
        ctx.channel().config().setAutoRead(false);
        scheduleRoomRetry(ctx);
    }

    /** The held write at the head stops waiting for room (it runs, or is refused): replication counts the wait. */
    private void roomWaited() {
        if (roomWaitSinceNanos == 0) return;
        long waited = System.nanoTime() - roomWaitSinceNanos;
        roomWaitSinceNanos = 0;
        if (node.roles().current() instanceof NodeRole.Primary p) p.writes().heldForRoom(waited);
    }

    private void scheduleRoomRetry(ChannelHandlerContext ctx) {
        if (roomRetryScheduled) return;
        roomRetryScheduled = true;
        ctx.executor()
                .schedule(
                        () -> {
                            roomRetryScheduled = false;
                            runHeld(ctx);
                        },
                        1,
                        TimeUnit.MILLISECONDS);
    }

    /**
     * Runs the held commands in order until one must wait again: for replication room (retried in a
     * millisecond), or for the client's replies to drain (resumed by {@link #drain} or {@link
     * #channelWritabilityChanged}). Reading resumes once none is left.
     */
    private void runHeld(ChannelHandlerContext ctx) {
        if (runningHeld) return; // called back from inside a flush: the outer call goes on
        if (!ctx.channel().isActive() || closing) {
            discardHeld();
            return;
        }
        runningHeld = true;
        try {
            runHeldInOrder(ctx);
        } finally {
            runningHeld = false;
        }
    }

    private void runHeldInOrder(ChannelHandlerContext ctx) {
        while (!held.isEmpty()) {
            if (outputFull(ctx)) {
                flushIfWritten(ctx);
                if (outputFull(ctx)) return;
            }
            RespCommand next = held.peek();
            if (next.error() == null && next.args().length > 0 && mustWaitForRoom(next)) {
                if (roomWaitSinceNanos == 0) roomWaitSinceNanos = System.nanoTime(); // behind a refused one
                if (System.nanoTime() < holdDeadlineNanos) {
                    scheduleRoomRetry(ctx);
                    flushIfWritten(ctx);
                    return;
                }
                held.poll().discard();
                roomWaited();
                CommandSpec refused = table.lookup(next.args()[0]);
                if (refused != null) refused.counters().rejected.increment();
                reply(
                        ctx,
                        Replies.error("BUSY replication to the backup is behind its bounds for " + writeTimeoutMillis()
                                + " ms; nothing was written"),
                        null);
                holdDeadlineNanos = System.nanoTime() + writeTimeoutMillis() * 1_000_000;
                continue;
            }
            roomWaited();
            handle(ctx, held.poll());
            if (closing) return;
        }
        flushIfWritten(ctx);
        ctx.channel().config().setAutoRead(!session.closeAfterReply && !outputFull(ctx));
    }

    /** Drops the held commands, closing the stages of their staged values. */
    private void discardHeld() {
        for (RespCommand c : held) c.discard();
        held.clear();
    }

    private void flushIfWritten(ChannelHandlerContext ctx) {
        if (writtenSinceFlush) {
            writtenSinceFlush = false;
            ctx.flush();
        }
    }

    /** Runs the command {@code args} names, or says why not; sets {@link #executed}. */
    private RedisMessage dispatch(byte[][] args) {
        executed = null;
        CommandSpec spec = table.lookup(args[0]);
        if (spec == null) return unknown(args);
        RedisMessage refusal = refusal(spec, args);
        if (refusal != null) {
            spec.counters().rejected.increment();
            return refusal;
        }
        return execute(spec, args);
    }

    /** Why the command may not run now, or {@code null}. */
    private RedisMessage refusal(CommandSpec spec, byte[][] args) {
        if (!spec.arityOk(args.length)) return Replies.wrongArity(spec.name());
        if (!session.authenticated()) {
            if (!spec.has(CommandSpec.NOAUTH)) return Replies.NOAUTH;
        } else if (!CommandSpec.permits(session.user.role(), spec.flagsFor(args))) {
            stats.aclDeniedCommands.increment();
            aclLog.deniedCommand(
                    spec.permissionName(args), session.user.name(), ConnectionCommands.clientLine(session));
            return Replies.noPermission(spec.permissionName(args));
        }
        if (spec.has(CommandSpec.DATA)) {
            NodeRole role = node.roles().current();
            if (!(role instanceof NodeRole.Primary p)) {
                String refusal = BackupReadCommands.refusal(role, session, spec.has(CommandSpec.WRITE));
                if (refusal != null) return Replies.error(refusal);
            } else if (spec.has(CommandSpec.WRITE) && p.writeFence() != null) {
                return Replies.error(p.writeFence());
            }
        }
        return null;
    }

    private RedisMessage execute(CommandSpec spec, byte[][] args) {
        long start = System.nanoTime();
        RedisMessage result;
        try {
            result = spec.command().execute(session, args);
        } catch (KvsException e) {
            result = Replies.storeError(e);
        }
        if (spec.has(CommandSpec.WRITE)) {
            WriteOrder order = Writes.takeLastCommitted();
            if (order != null) session.lastWrite = order; // for WAIT
        }
        long nanos = System.nanoTime() - start;
        if (result == Replies.WRONGPASS) stats.aclDeniedAuth.increment();
        stats.commandsProcessed.increment();
        CommandCounters c = spec.counters();
        c.calls.increment();
        c.nanos.add(nanos);
        executed = c;
        if (!c.exposed) {
            metrics.exposeCommand(spec.name(), c, x -> x.calls.sum(), x -> x.nanos.sum());
            c.exposed = true;
        }
        return result;
    }

    private static RedisMessage unknown(byte[][] args) {
        StringBuilder b = new StringBuilder("ERR unknown command '")
                .append(printable(args[0]))
                .append("', with args beginning with: ");
        for (int i = 1; i < args.length && i < 4; i++)
            b.append('\'').append(printable(args[i])).append("' ");
        return Replies.error(b.toString()); // with Redis's trailing space
    }

    private static String printable(byte[] bytes) {
        String s = new String(bytes, 0, Math.min(bytes.length, 64), StandardCharsets.UTF_8);
        return s.replaceAll("[\\p{Cntrl}]", "?");
    }

    /**
     * Writes {@code result} in its turn.
     *
     * @param counters the counters of the command that produced it (an error counts as failed), or null
     */
    private void reply(ChannelHandlerContext ctx, RedisMessage result, CommandCounters counters) {
        if (counters != null && result instanceof ErrorRedisMessage) counters.failed.increment();
        if (!(result instanceof LaterReply) && pending.isEmpty()) {
            write(ctx, result);
            closeIfOverOutputLimit(ctx);
            return;
        }
        CompletableFuture<RedisMessage> f = result instanceof LaterReply later
                ? later.reply().toCompletableFuture()
                : CompletableFuture.completedFuture(result);
        QueuedReply q = new QueuedReply(f, result instanceof LaterReply ? counters : null);
        pending.add(q);
        if (f.isDone()) {
            count(q);
            if (pending.size() == 1) drain(ctx);
        } else {
            f.whenComplete((r, e) -> {
                if (ctx.executor().inEventLoop()) completed(ctx, q);
                else ctx.executor().execute(() -> completed(ctx, q));
            });
        }
        closeIfOverOutputLimit(ctx);
    }

    /**
     * Drops the replies waiting their turn (the connection is closing), releasing those known: a long
     * value's reply holds a pooled buffer. Those still unknown are released by {@link #completed}.
     */
    private void dropPending() {
        for (QueuedReply q : pending) {
            q.dropped = true;
            release(q);
        }
        pending.clear();
        pendingBytes = 0;
    }

    /** Releases a dropped reply's message once it is known; at most once. */
    private static void release(QueuedReply q) {
        if (q.released || !q.reply.isDone()) return;
        q.released = true;
        if (!q.reply.isCompletedExceptionally()) ReferenceCountUtil.release(q.reply.join());
    }

    /** A reply that waited for replication is known: count it while it waits its turn, and write what can be. */
    private void completed(ChannelHandlerContext ctx, QueuedReply q) {
        if (q.written) return;
        if (q.dropped || !ctx.channel().isActive()) {
            q.dropped = true; // still in pending if only inactive: channelInactive drops it, not twice
            release(q);
            return;
        }
        count(q);
        drain(ctx);
        closeIfOverOutputLimit(ctx);
    }

    private void count(QueuedReply q) {
        if (q.bytes == 0 && q.reply.isDone() && !q.reply.isCompletedExceptionally()) {
            q.bytes = Math.max(1, RespReplyEncoder.estimate(q.reply.join()));
            pendingBytes += q.bytes;
        }
    }

    private void drain(ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (!pending.isEmpty() && pending.peek().reply.isDone()) {
            QueuedReply q = pending.poll();
            q.written = true;
            pendingBytes -= q.bytes;
            RedisMessage m;
            try {
                m = q.reply.join();
            } catch (RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                m = cause instanceof KvsException k
                        ? Replies.storeError(k)
                        : Replies.error("ERR " + cause.getMessage());
            }
            if (q.counters != null && m instanceof ErrorRedisMessage) q.counters.failed.increment();
            write(ctx, m);
            wrote = true;
        }
        if (wrote) {
            touch(ctx);
            ctx.flush();
            writtenSinceFlush = false;
            memory.replies(pendingBytes);
            resumeLater(ctx);
        }
    }

    /**
     * Soon, on the event loop: runs the held commands if their wait may be over, and resumes reading
     * once none is left and the output allows. Deferred so as never to run commands re-entrantly (from
     * inside a flush or a reply); a no-op task is not even queued in the common case.
     */
    private void resumeLater(ChannelHandlerContext ctx) {
        if (resumeScheduled || (held.isEmpty() && ctx.channel().config().isAutoRead())) return;
        resumeScheduled = true;
        ctx.executor().execute(() -> {
            resumeScheduled = false;
            if (!held.isEmpty()) {
                if (!roomRetryScheduled) runHeld(ctx);
            } else if (ctx.channel().isActive() && !closing) {
                ctx.channel().config().setAutoRead(!session.closeAfterReply && !outputFull(ctx));
            }
        });
    }

    private void write(ChannelHandlerContext ctx, RedisMessage m) {
        if (m instanceof ErrorRedisMessage e) {
            stats.errorReplies.increment();
            metrics.recordError(Replies.kind(e));
        }
        if (session.closeAfterReply && pending.isEmpty()) {
            ctx.writeAndFlush(m).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.write(m, ctx.voidPromise());
        WriteStages.mark(WriteStages.Stage.REPLY_WRITTEN);
        writtenSinceFlush = true;
    }

    /** Bytes of replies queued for this client: waiting their turn, plus written and not yet sent. */
    long queuedReplyBytes() {
        return pendingBytes + unsentBytes(channel);
    }

    private static long unsentBytes(Channel channel) {
        ChannelOutboundBuffer out = channel.unsafe().outboundBuffer();
        return out == null ? 0 : out.totalPendingWriteBytes();
    }

    /** True while the client's next commands must wait for its queued replies to drain. */
    private boolean outputFull(ChannelHandlerContext ctx) {
        return pendingBytes > REPLY_SOFT_LIMIT || !ctx.channel().isWritable();
    }

    /** Closes the connection if more replies are queued for it than {@code clientOutputBufferLimit}. */
    private void closeIfOverOutputLimit(ChannelHandlerContext ctx) {
        if (outputLimit == 0 || closing) return;
        long queued = pendingBytes + unsentBytes(ctx.channel());
        if (queued <= outputLimit) return;
        closing = true;
        stats.outputBufferLimitDisconnections.increment();
        warnings.outputLimit.warn(
                "closing client id={} addr={}: {} bytes of replies queued for it, over clientOutputBufferLimit {}"
                        + " (it does not read its replies, or asked for too much at once)",
                session.id,
                session.remoteAddress,
                queued,
                outputLimit);
        dropPending();
        held.clear();
        ctx.close();
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (writtenSinceFlush) {
            writtenSinceFlush = false;
            ctx.flush();
        }
        memory.replies(pendingBytes);
        ctx.fireChannelReadComplete();
    }

    /**
     * Closes the connection because the node's client connections hold more than {@code
     * maxClientMemory} and this one is among the biggest unauthenticated or idle ones ({@link
     * ClientMemory}, which counts and logs it). Called on any thread; closes on the event loop, at once if
     * called on it.
     */
    void evictForMemory() {
        Channel ch = channel;
        if (ch == null) return;
        if (ch.eventLoop().inEventLoop()) {
            closeForMemory(ch); // at once: a task could wait behind a busy loop's reads, its bytes held
        } else {
            ch.eventLoop().execute(() -> closeForMemory(ch));
        }
    }

    private void closeForMemory(Channel ch) {
        if (closing || !ch.isActive()) return;
        closing = true;
        dropPending();
        discardHeld();
        ch.close();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // a client that pipelines without reading its replies is paused instead of growing our buffers
        if (ctx.channel().isWritable()) {
            touch(ctx); // a slow reader took its replies: not idle
            resumeLater(ctx);
        } else {
            ctx.channel().config().setAutoRead(false);
        }
        memory.replies(pendingBytes);
        ctx.fireChannelWritabilityChanged();
    }

    private void startTimeouts(ChannelHandlerContext ctx) {
        lastActivityNanos = ticker(ctx);
        NodeConfig c = node.config();
        if (!session.authenticated() && c.authTimeoutSeconds() > 0) {
            authCheck = ctx.executor().schedule(() -> authTimedOut(ctx), c.authTimeoutSeconds(), TimeUnit.SECONDS);
        }
        if (c.timeoutSeconds() > 0) {
            idleCheck = ctx.executor().schedule(() -> checkIdle(ctx), c.timeoutSeconds(), TimeUnit.SECONDS);
        }
    }

    private void authTimedOut(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive() || closing || session.authenticated()) return;
        stats.authTimeouts.increment();
        log.debug("closing client {}: not authenticated within authTimeoutSeconds", session.remoteAddress);
        refuse(
                ctx,
                "ERR authentication timeout: no AUTH within " + node.config().authTimeoutSeconds()
                        + " seconds of connecting (authTimeoutSeconds)");
    }

    /**
     * Closes the connection if it has been idle for {@code timeoutSeconds}. A client whose command
     * waits for replication is not idle; one that stopped reading its replies is.
     */
    private void checkIdle(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive() || closing) return;
        long timeout = TimeUnit.SECONDS.toNanos(node.config().timeoutSeconds());
        long idle = ticker(ctx) - lastActivityNanos;
        if (idle >= timeout && pending.isEmpty() && !roomRetryScheduled) {
            stats.idleTimeouts.increment();
            log.debug("closing client {}: idle for timeoutSeconds", session.remoteAddress);
            closing = true;
            ctx.close();
            return;
        }
        long next = idle >= timeout ? timeout : timeout - idle;
        idleCheck = ctx.executor().schedule(() -> checkIdle(ctx), next, TimeUnit.NANOSECONDS);
    }

    /** The client interacted now (only tracked with an idle timeout: it costs a clock read). */
    private void touch(ChannelHandlerContext ctx) {
        if (idleCheck != null) lastActivityNanos = ticker(ctx);
    }

    private static long ticker(ChannelHandlerContext ctx) {
        return ctx.executor().ticker().nanoTime();
    }

    private static void cancel(ScheduledFuture<?> f) {
        if (f != null) f.cancel(false);
    }

    /**
     * Half-closes, then closes once the client has gone or after a grace period. Closing at once while
     * the client's garbage is still unread would make the kernel send a reset, which can destroy the
     * error reply before the client reads it.
     */
    private static void closeGracefully(ChannelHandlerContext ctx) {
        if (ctx.channel() instanceof DuplexChannel duplex && duplex.isActive()) {
            duplex.shutdownOutput();
            ctx.executor().schedule(() -> ctx.close(), CLOSE_GRACE_SECONDS, TimeUnit.SECONDS);
        } else {
            ctx.close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof RespCommandDecoder.CrossProtocolException) {
            // as Redis: no reply (the attacker's page would see it), nothing run, the connection closed
            closing = true;
            stats.crossProtocolAttacks.increment();
            warnings.crossProtocol.warn(
                    "Possible SECURITY ATTACK detected from client {}: it sent POST or Host: to the client port, as"
                            + " an HTTP request does (cross-protocol scripting?). Connection aborted.",
                    session.remoteAddress);
            ctx.close();
        } else if (cause instanceof DecoderException || cause instanceof CodecException) {
            // the byte stream cannot be resynchronised: say why, then close
            stats.protocolErrors.increment();
            Throwable root = cause.getCause() != null ? cause.getCause() : cause;
            String text = String.valueOf(root.getMessage()).replaceAll("[\\r\\n]", " ");
            if (!session.authenticated()) {
                warnings.preAuthProtocolErrors.warn(
                        "closing unauthenticated client {}: protocol error: {}", session.remoteAddress, text);
            }
            ctx.writeAndFlush(Replies.error("ERR Protocol error: " + text)).addListener(f -> closeGracefully(ctx));
        } else if (cause instanceof IOException) {
            ctx.close(); // connection reset by the client: nothing to say
        } else {
            if (warnings.unexpectedErrors.warn(
                    "closing client {} after unexpected error: {}", session.remoteAddress, String.valueOf(cause))) {
                log.warn("the unexpected error", cause);
            }
            ctx.close();
        }
    }
}
