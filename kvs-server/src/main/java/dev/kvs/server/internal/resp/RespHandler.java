package dev.kvs.server.internal.resp;

import dev.kvs.core.WriteStages;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.server.internal.pubsub.PubSub;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.CodecException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.io.IOException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection: turns aggregated RESP arrays into commands and runs them, in order. Owns the
 * connection's {@link Session}, whether it is being closed, and its life in Netty (open, refused by
 * {@link ProtectedMode} or {@code maxClients}, read, closed for memory, failed); the rest is in its
 * parts, one per connection: {@link CommandDispatch} runs a command (after {@link CommandRefusals},
 * where permissions are checked for every command); {@link ReplyQueue} writes the replies in request
 * order even when some wait for replication; {@link HeldCommands} holds commands behind a write that
 * waits for replication room or behind unread replies; {@link SessionLimits} enforces the output
 * limits, timeouts and client memory. Measured hot path; flushes once per read batch.
 */
final class RespHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);

    private static final int CLOSE_GRACE_SECONDS = 2;

    private final CommandContext node;
    private final ClientStats stats;
    private final RespCommandDecoder decoder;
    private final ProtectedMode protectedMode;
    private final ClientWarnings warnings;
    /** Connections must log in ({@code requirepass} or {@code users}); else each is {@link Users#OPEN}. */
    private final boolean authRequired;

    /** Where a command's dispatch is marked for a benchmark ({@link WriteStages#OFF} otherwise). */
    private final WriteStages stages;

    private final CommandTable table;
    private final CommandDispatch dispatch;
    private final ReplyQueue replies;
    private final HeldCommands held;
    private final SessionLimits limits;
    /** Where this connection's subscriptions are kept and its messages come from. */
    private final PubSub pubSub;

    private Channel channel;
    private Session session;
    /** True once the connection is being closed on purpose: what it still sends is ignored. */
    private boolean closing;
    /** What {@link #prefetch} read, kept so that its reads are not dropped as unused; means nothing else. */
    private long prefetched;

    RespHandler(
            CommandContext node,
            CommandTable table,
            ClientStats stats,
            RespCommandDecoder decoder,
            ProtectedMode protectedMode,
            ClientWarnings warnings,
            CommandDispatch dispatch,
            ClientMemory.Account memory,
            PubSub pubSub,
            WriteStages stages) {
        this.node = node;
        this.pubSub = pubSub;
        this.stages = stages;
        this.warnings = warnings;
        this.authRequired = node.config().clientAuthRequired();
        this.stats = stats;
        this.decoder = decoder;
        this.protectedMode = protectedMode;
        this.table = table;
        this.dispatch = dispatch;
        this.replies = new ReplyQueue(this, stats, node.metrics(), stages);
        this.held = new HeldCommands(this, node.roles(), table);
        this.limits = new SessionLimits(this, node.config(), stats, warnings, memory);
        if (authRequired) decoder.requireAuthentication(); // also with users and no requirepass
    }

    Session session() {
        return session;
    }

    boolean closing() {
        return closing;
    }

    /** The connection is being closed on purpose: what it still sends is ignored. */
    void startClosing() {
        closing = true;
    }

    /** Adds the commands counted on this connection to the shared counters ({@link CommandDispatch#publishCounts}). */
    void publishCounts() {
        dispatch.publishCounts();
    }

    ReplyQueue replies() {
        return replies;
    }

    HeldCommands held() {
        return held;
    }

    SessionLimits limits() {
        return limits;
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
        node.metrics().connectionOpened();
        session = new Session(
                node.clientIds().getAsLong(),
                String.valueOf(ctx.channel().remoteAddress()),
                authRequired ? null : Users.OPEN);
        session.alloc = ctx.alloc();
        session.loop = ctx.executor();
        session.replyEncoder = ctx.pipeline().get(RespReplyEncoder.class);
        session.subscriber = new ConnectionSubscriber(this, ctx, pubSub);
        limits.opened(session.authenticated());
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
            limits.startTimeouts(ctx);
        }
        ctx.fireChannelActive();
    }

    /** Answers {@code error} to whatever the client sends, then closes. */
    void refuse(ChannelHandlerContext ctx, String error) {
        closing = true;
        ctx.channel().config().setAutoRead(false);
        ctx.writeAndFlush(Replies.error(error)).addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        dispatch.publishCounts();
        stats.connected.decrementAndGet();
        node.metrics().connectionClosed();
        limits.closed();
        if (session.subscriptions != null) session.subscriptions.clear(); // no more messages for it
        session.subscriber.discard();
        replies.drop();
        held.discard();
        limits.stopTimeouts();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof RespCommands batch) {
            channelReadAll(ctx, batch);
            return;
        }
        if (!(msg instanceof RespCommand command)) {
            ReferenceCountUtil.release(msg);
            throw new IllegalStateException(
                    "not a RespCommand: " + msg.getClass().getName());
        }
        if (closing) {
            command.discard();
            return;
        }
        limits.touch(ctx);
        if (!held.isEmpty() || session.script != null || limits.outputFull(ctx)) {
            // behind a write waiting for replication room, a script, or for the client to read: keep the order
            held.add(command);
            ctx.channel().config().setAutoRead(false); // before the flush: it may make the channel writable
            dispatch.publishCounts();
            replies.flushIfWritten(ctx);
            return;
        }
        run(ctx, command);
        if (session.closeAfterReply) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    /**
     * Each command of a read's {@code batch} in turn, as if each had come alone; a run of one command on
     * one key runs as one where it can ({@link CommandRuns}). If one throws, the rest are discarded (their
     * staged values closed) before the exception goes on.
     */
    private void channelReadAll(ChannelHandlerContext ctx, RespCommands batch) {
        if (session.authenticated()) prefetch(batch);
        int i = 0;
        try {
            while (i < batch.size()) {
                CommandSpec spec = CommandRuns.runsFrom(batch, i, table);
                int n = spec == null ? 1 : CommandRuns.length(batch, i, spec);
                if (n > 1 && runAll(ctx, batch, i, n, spec)) {
                    i += n;
                    continue;
                }
                for (int end = i + n; i < end; i++) channelRead(ctx, batch.command(i)); // each alone
            }
        } finally {
            for (i++; i < batch.size(); i++) batch.command(i).discard();
        }
    }

    /** Tells the store the keys {@code batch}'s commands are about to look up ({@link #keysToPrefetch}). */
    private void prefetch(RespCommands batch) {
        byte[][] keys = new byte[batch.size()][];
        int n = keysToPrefetch(batch, table, keys);
        if (n > 1) prefetched += node.store().prefetch(keys, n);
    }

    /**
     * Puts into {@code keys} the keys {@code batch}'s commands will look up first, for the store to bring
     * into cache at once ({@link dev.kvs.core.KvStore#prefetch}): so that their memory misses overlap
     * instead of coming one command after the other. That is the first key of each command that reads or
     * writes data, once where the next command repeats it. Returns how many it put.
     */
    static int keysToPrefetch(RespCommands batch, CommandTable table, byte[][] keys) {
        int k = 0;
        byte[] last = null;
        for (int i = 0; i < batch.size(); i++) {
            if (!(batch.get(i) instanceof RespCommand c) || c.error() != null) continue;
            byte[][] args = c.args();
            if (args.length < 2 || (last != null && Arrays.equals(last, args[1]))) continue;
            CommandSpec spec = table.lookup(args[0]);
            if (spec == null || spec.firstKey() != 1 || !spec.has(CommandSpec.DATA)) continue;
            keys[k++] = last = args[1];
        }
        return k;
    }

    /**
     * Runs {@code batch[from, from + n)}, a run of {@code spec} on one key, as one and queues each
     * command's reply; false if it did not run (nothing was done), and each must run alone: while the
     * connection holds commands or its replies are full, while a script runs or {@code CLIENT REPLY}
     * drops replies, while keyspace events are on (each command publishes its own) or keys are fenced,
     * and when {@link CommandDispatch#dispatchRun} does not run it.
     */
    private boolean runAll(ChannelHandlerContext ctx, RespCommands batch, int from, int n, CommandSpec spec) {
        if (!CommandRuns.mayRun(node)
                || closing
                || !held.isEmpty()
                || session.script != null
                || session.silencing()
                || limits.outputFull(ctx)
                || held.mustWaitForRoom(batch.command(from + n - 1))) return false;
        byte[][][] run = new byte[n][][];
        for (int k = 0; k < n; k++) run[k] = batch.command(from + k).args();
        limits.touch(ctx);
        stages.mark(WriteStages.Stage.DISPATCHED);
        RedisMessage[] results = dispatch.dispatchRun(session, spec, run, n);
        if (results == null) return false;
        for (RedisMessage result : results) replies.reply(ctx, result, dispatch.executed());
        return true;
    }

    /** Runs {@code command} (or holds it for replication room) and queues its reply; also for held commands. */
    void handle(ChannelHandlerContext ctx, RespCommand command) {
        run(ctx, command);
        dispatch.publishCounts(); // outside a read batch: no channelReadComplete follows
    }

    /** As {@link #handle(ChannelHandlerContext, RespCommand)}, in a read batch: its counts wait for the batch's end. */
    private void run(ChannelHandlerContext ctx, RespCommand command) {
        stages.mark(WriteStages.Stage.DISPATCHED);
        if (command.error() != null) {
            stats.protocolErrors.increment();
            replies.reply(ctx, Replies.error(command.error()), null);
        } else if (command.args().length > 0) {
            if (held.mustWaitForRoom(command)) {
                held.holdForRoom(ctx, command);
                return;
            }
            boolean wasAuthenticated = session.authenticated();
            RedisMessage result;
            session.staged = command.staged();
            try {
                result = dispatch.dispatch(session, command.args());
            } finally {
                session.staged = null;
                command.discard(); // nothing if the SET committed it
            }
            if (session.silenced() && !TypedReplies.isPush(result)) {
                drop(result); // CLIENT REPLY OFF or SKIP
            } else {
                replies.reply(ctx, result, dispatch.executed());
            }
            if (session.script != null) waitForScript(ctx);
            if (!wasAuthenticated && session.authenticated()) {
                decoder.authenticated();
                limits.loggedIn();
            } else if (wasAuthenticated && !session.authenticated()) {
                decoder.requireAuthentication(); // RESET logged it out
            }
        }
    }

    /** Releases a reply that is not written, once it is known. */
    private static void drop(RedisMessage result) {
        if (result instanceof LaterReply later) later.reply().thenAccept(ReferenceCountUtil::release);
        else ReferenceCountUtil.release(result);
    }

    /**
     * The command started a script on the scripts' thread ({@link ScriptCommands}): reading pauses and
     * later commands are held until it ends, then run in order, so that none runs before it.
     */
    private void waitForScript(ChannelHandlerContext ctx) {
        ctx.channel().config().setAutoRead(false);
        session.script.whenComplete((r, e) -> ctx.executor().execute(() -> {
            session.script = null;
            held.resumeLater(ctx);
        }));
    }

    /** Bytes of replies queued for this client: waiting their turn, plus written and not yet sent. */
    long queuedReplyBytes() {
        return limits.queuedReplyBytes(channel);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        dispatch.publishCounts(); // before the replies: a client that has its reply finds it counted
        replies.flushIfWritten(ctx);
        limits.repliesQueued(replies.pendingBytes());
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
        replies.drop();
        held.discard();
        ch.close();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // a client that pipelines without reading its replies is paused instead of growing our buffers
        if (ctx.channel().isWritable()) {
            limits.touch(ctx); // a slow reader took its replies: not idle
            held.resumeLater(ctx);
        } else {
            ctx.channel().config().setAutoRead(false);
        }
        limits.repliesQueued(replies.pendingBytes());
        ctx.fireChannelWritabilityChanged();
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
