package dev.kvs.replication.backup;

import dev.kvs.replication.Handback;
import dev.kvs.replication.wire.Frame;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first handler of every replication connection: waits for the primary's {@code Hello}, answers
 * {@code Welcome} and hands the channel to a {@link KeyChannelHandler} or {@link
 * ValueChannelHandler}, or answers {@code Reject} and closes.
 */
final class HandshakeHandler extends ChannelInboundHandlerAdapter {
    static final String NAME = "replication-handshake";
    private static final Logger log = LoggerFactory.getLogger(HandshakeHandler.class);

    private final RealReplicationServer server;
    private boolean rejected;
    private boolean over;
    private ScheduledFuture<?> timeout;

    HandshakeHandler(RealReplicationServer server) {
        this.server = server;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        long ms = server.config.authDeadline().toMillis();
        timeout = ctx.executor()
                .schedule(
                        () -> {
                            if (!over) {
                                server.refusalLogs.deadline.warn(
                                        "replication connection from {} closed: no handshake within {} ms"
                                                + " (authDeadlineMs)",
                                        ctx.channel().remoteAddress(),
                                        ms);
                                ctx.close();
                            }
                        },
                        ms,
                        TimeUnit.MILLISECONDS);
    }

    /** The handshake is over: the connection no longer counts as one in its handshake. */
    private void over(ChannelHandlerContext ctx, boolean welcomed) {
        if (over) return;
        over = true;
        timeout.cancel(false);
        server.handshakeOver(ctx.channel(), welcomed);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (msg instanceof Frame.AuthInit) {
            // the peer has a cluster secret and this node has none: it could not prove it is ours either
            rejected = true;
            over(ctx, false);
            server.refusalLogs.unexpectedSecret.warn(
                    "refused a replication connection from {}: it authenticates with a cluster secret and this"
                            + " node has none configured",
                    ctx.channel().remoteAddress());
            ctx.writeAndFlush(new Frame.Reject(
                            Frame.RejectReason.AUTH,
                            server.node.epoch(),
                            "this node has no cluster secret configured: set the same one on both nodes"))
                    .addListener(ChannelFutureListener.CLOSE);
            return;
        }
        if (!(msg instanceof Frame.Hello hello)) {
            server.refusalLogs.notHello.warn(
                    "replication connection from {} did not start with Hello: {}",
                    ctx.channel().remoteAddress(),
                    msg);
            ReferenceCountUtil.release(msg);
            ctx.close();
            return;
        }
        if (hello.kind() == Frame.ChannelKind.HANDBACK) {
            handback(ctx, hello);
            return;
        }
        Frame answer = server.handshake(hello, ctx.channel());
        if (answer instanceof Frame.Reject) {
            rejected = true;
            over(ctx, false);
            ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        Channel ch = ctx.channel();
        over(ctx, true);
        if (hello.kind() == Frame.ChannelKind.KEY) {
            ctx.pipeline().replace(this, KeyChannelHandler.NAME, new KeyChannelHandler(server));
            ch.writeAndFlush(answer);
        } else {
            ctx.pipeline().replace(this, ValueChannelHandler.NAME, new ValueChannelHandler(server));
            // welcomed only once on its own loop: the primary sends nothing before the Welcome
            server.moveToValueLoop(ch, () -> ch.writeAndFlush(answer));
        }
        log.info(
                "{} channel {} from primary {} (epoch {}) at {}",
                hello.kind(),
                hello.stream(),
                hello.node(),
                hello.epoch(),
                ctx.channel().remoteAddress());
    }

    private void handback(ChannelHandlerContext ctx, Frame.Hello hello) {
        Object answer = server.handback(hello);
        if (answer instanceof Frame.Reject reject) {
            rejected = true;
            over(ctx, false);
            ctx.writeAndFlush(reject).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        over(ctx, true);
        HandbackHandler h = new HandbackHandler(server, (Handback) answer, hello.node());
        ctx.pipeline().replace(this, HandbackHandler.NAME, h);
        log.info(
                "handback from deposed primary {} (epoch {}) at {}",
                hello.node(),
                hello.epoch(),
                ctx.channel().remoteAddress());
        h.sendWants(ctx.pipeline().context(h));
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        over(ctx, false);
        server.channelClosed(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        server.refusalLogs.failed.warn(
                "replication connection from {} failed before its handshake: {}",
                ctx.channel().remoteAddress(),
                cause.toString());
        ctx.close();
    }
}
