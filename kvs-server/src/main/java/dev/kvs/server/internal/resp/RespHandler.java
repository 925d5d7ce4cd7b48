package dev.kvs.server.internal.resp;

import dev.kvs.core.KvsException;
import dev.kvs.server.internal.NodeContext;
import dev.kvs.server.internal.NodeMetrics;
import dev.kvs.server.internal.role.NodeRole;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.CodecException;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
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
 */
final class RespHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(RespHandler.class);

    private static final int CLOSE_GRACE_SECONDS = 2;

    private final NodeContext node;
    private final CommandTable table;
    private final ClientStats stats;
    private final NodeMetrics metrics;
    private final RespCommandDecoder decoder;
    private Session session;
    /** Replies not yet written because an earlier one is still pending; in request order. */
    private final ArrayDeque<CompletableFuture<RedisMessage>> pending = new ArrayDeque<>();

    private boolean writtenSinceFlush;
    /** Commands read while a write waits for replication room, in order; empty normally. */
    private final ArrayDeque<RespCommand> held = new ArrayDeque<>();

    private long holdDeadlineNanos;

    RespHandler(NodeContext node, CommandTable table, ClientStats stats, RespCommandDecoder decoder) {
        this.node = node;
        this.decoder = decoder;
        this.table = table;
        this.stats = stats;
        this.metrics = node.metrics();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        stats.connectionsReceived.increment();
        int now = stats.connected.incrementAndGet();
        metrics.connectionOpened();
        session = new Session(
                node.nextClientId(),
                String.valueOf(ctx.channel().remoteAddress()),
                node.config().requirepass().isEmpty());
        if (now > node.config().maxClients()) {
            stats.rejectedConnections.increment();
            ctx.writeAndFlush(Replies.error("ERR max number of clients reached"))
                    .addListener(ChannelFutureListener.CLOSE);
        }
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        stats.connected.decrementAndGet();
        metrics.connectionClosed();
        pending.clear();
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof RespCommand command)) {
            ReferenceCountUtil.release(msg);
            throw new IllegalStateException(
                    "not a RespCommand: " + msg.getClass().getName());
        }
        if (!held.isEmpty()) {
            held.add(command); // behind a write waiting for replication room: keep the order
            return;
        }
        handle(ctx, command);
        if (session.closeAfterReply) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    private void handle(ChannelHandlerContext ctx, RespCommand command) {
        if (command.error() != null) {
            stats.protocolErrors.increment();
            reply(ctx, Replies.error(command.error()));
        } else if (command.args().length > 0) {
            if (mustWaitForRoom(command)) {
                hold(ctx, command);
                return;
            }
            boolean wasAuthenticated = session.authenticated;
            reply(ctx, dispatch(command.args()));
            if (!wasAuthenticated && session.authenticated) decoder.authenticated();
        }
    }

    /**
     * A write finding replication's bounds full is held, with everything after it on this connection,
     * and reading pauses; it is retried every millisecond, never blocking the event loop, and refused
     * with BUSY once the write timeout has passed.
     */
    private boolean mustWaitForRoom(RespCommand command) {
        if (!session.authenticated
                || !(node.roles().current() instanceof NodeRole.Primary p)
                || p.writes().hasRoom()) return false;
        CommandSpec spec = table.lookup(command.args()[0]);
        return spec != null && spec.has(CommandSpec.WRITE);
    }

    /** How long a write may wait for replication room (0 unless this node is a replicating primary). */
    private long writeTimeoutMillis() {
        return node.roles().current() instanceof NodeRole.Primary p ? p.writes().writeTimeoutMillis() : 0;
    }

    private void hold(ChannelHandlerContext ctx, RespCommand command) {
        held.addFirst(command);
        holdDeadlineNanos = System.nanoTime() + writeTimeoutMillis() * 1_000_000;
        ctx.channel().config().setAutoRead(false);
        ctx.executor().schedule(() -> retryHeld(ctx), 1, TimeUnit.MILLISECONDS);
    }

    private void retryHeld(ChannelHandlerContext ctx) {
        if (!ctx.channel().isActive()) {
            held.clear();
            return;
        }
        while (!held.isEmpty()) {
            RespCommand next = held.peek();
            if (next.error() == null && next.args().length > 0 && mustWaitForRoom(next)) {
                if (System.nanoTime() < holdDeadlineNanos) {
                    ctx.executor().schedule(() -> retryHeld(ctx), 1, TimeUnit.MILLISECONDS);
                    flushIfWritten(ctx);
                    return;
                }
                held.poll();
                reply(
                        ctx,
                        Replies.error("BUSY replication to the backup is behind its bounds for " + writeTimeoutMillis()
                                + " ms; nothing was written"));
                holdDeadlineNanos = System.nanoTime() + writeTimeoutMillis() * 1_000_000;
                continue;
            }
            handle(ctx, held.poll());
        }
        flushIfWritten(ctx);
        ctx.channel().config().setAutoRead(ctx.channel().isWritable() && !session.closeAfterReply);
    }

    private void flushIfWritten(ChannelHandlerContext ctx) {
        if (writtenSinceFlush) {
            writtenSinceFlush = false;
            ctx.flush();
        }
    }

    private RedisMessage dispatch(byte[][] args) {
        CommandSpec spec = table.lookup(args[0]);
        if (spec == null) return unknown(args);
        if (!spec.arityOk(args.length)) return Replies.wrongArity(spec.name());
        if (!session.authenticated && !spec.has(CommandSpec.NOAUTH)) return Replies.NOAUTH;
        if (spec.has(CommandSpec.DATA)) {
            if (!(node.roles().current() instanceof NodeRole.Primary p)) {
                return Replies.error(
                        "NOTPRIMARY " + node.roles().peer() + " this node is a backup; write to the primary");
            }
            if (spec.has(CommandSpec.WRITE) && p.writeFence() != null) return Replies.error(p.writeFence());
        }
        long start = System.nanoTime();
        RedisMessage result;
        try {
            result = spec.command().execute(session, args);
        } catch (KvsException e) {
            result = DataCommands.storeError(e);
        }
        stats.commandsProcessed.increment();
        metrics.recordCommand(spec.name(), System.nanoTime() - start);
        return result;
    }

    private static RedisMessage unknown(byte[][] args) {
        StringBuilder b = new StringBuilder("ERR unknown command '")
                .append(printable(args[0]))
                .append("', with args beginning with: ");
        for (int i = 1; i < args.length && i < 4; i++)
            b.append('\'').append(printable(args[i])).append("' ");
        return Replies.error(b.toString().trim());
    }

    private static String printable(byte[] bytes) {
        String s = new String(bytes, 0, Math.min(bytes.length, 64), StandardCharsets.UTF_8);
        return s.replaceAll("[\\p{Cntrl}]", "?");
    }

    private void reply(ChannelHandlerContext ctx, RedisMessage result) {
        if (!(result instanceof LaterReply) && pending.isEmpty()) {
            write(ctx, result);
            return;
        }
        CompletableFuture<RedisMessage> f = result instanceof LaterReply later
                ? later.reply().toCompletableFuture()
                : CompletableFuture.completedFuture(result);
        pending.add(f);
        if (pending.size() == 1 || !f.isDone()) {
            f.whenComplete((r, e) -> {
                if (ctx.executor().inEventLoop()) drain(ctx);
                else ctx.executor().execute(() -> drain(ctx));
            });
        }
    }

    private void drain(ChannelHandlerContext ctx) {
        boolean wrote = false;
        while (!pending.isEmpty() && pending.peek().isDone()) {
            CompletableFuture<RedisMessage> f = pending.poll();
            RedisMessage m;
            try {
                m = f.join();
            } catch (RuntimeException e) {
                Throwable cause = e.getCause() != null ? e.getCause() : e;
                m = cause instanceof KvsException k
                        ? DataCommands.storeError(k)
                        : Replies.error("ERR " + cause.getMessage());
            }
            write(ctx, m);
            wrote = true;
        }
        if (wrote) {
            ctx.flush();
            writtenSinceFlush = false;
        }
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
        writtenSinceFlush = true;
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (writtenSinceFlush) {
            writtenSinceFlush = false;
            ctx.flush();
        }
        ctx.fireChannelReadComplete();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        // a client that pipelines without reading its replies is paused instead of growing our buffers
        ctx.channel().config().setAutoRead(ctx.channel().isWritable() && !session.closeAfterReply && held.isEmpty());
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
            stats.crossProtocolAttacks.increment();
            log.warn(
                    "Possible SECURITY ATTACK detected from client {}: it sent POST or Host: to the client port, as"
                            + " an HTTP request does (cross-protocol scripting?). Connection aborted.",
                    session.remoteAddress);
            ctx.close();
        } else if (cause instanceof DecoderException || cause instanceof CodecException) {
            // the byte stream cannot be resynchronised: say why, then close
            stats.protocolErrors.increment();
            Throwable root = cause.getCause() != null ? cause.getCause() : cause;
            String text = String.valueOf(root.getMessage()).replaceAll("[\\r\\n]", " ");
            ctx.writeAndFlush(Replies.error("ERR Protocol error: " + text)).addListener(f -> closeGracefully(ctx));
        } else if (cause instanceof IOException) {
            ctx.close(); // connection reset by the client: nothing to say
        } else {
            log.warn("closing client {} after unexpected error", session.remoteAddress, cause);
            ctx.close();
        }
    }
}
