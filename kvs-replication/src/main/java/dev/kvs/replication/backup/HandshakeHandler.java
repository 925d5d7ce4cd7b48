package dev.kvs.replication.backup;

import dev.kvs.replication.failback.Handback;
import dev.kvs.replication.wire.Frame;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.util.ReferenceCountUtil;
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

    HandshakeHandler(RealReplicationServer server) {
        this.server = server;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (rejected) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (!(msg instanceof Frame.Hello hello)) {
            log.warn(
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
            ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        Channel ch = ctx.channel();
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
            ctx.writeAndFlush(reject).addListener(ChannelFutureListener.CLOSE);
            return;
        }
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
        server.channelClosed(ctx.channel());
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        log.warn(
                "replication connection from {} failed before its handshake: {}",
                ctx.channel().remoteAddress(),
                cause.toString());
        ctx.close();
    }
}
