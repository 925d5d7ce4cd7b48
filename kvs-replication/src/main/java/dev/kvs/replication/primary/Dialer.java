package dev.kvs.replication.primary;

import dev.kvs.replication.Transports;
import dev.kvs.replication.wire.FrameCodec;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.epoll.EpollChannelOption;
import io.netty.channel.socket.SocketChannel;

/**
 * Opens a replication connection to the backup: TLS if configured, frame codec, the cluster secret
 * proof if configured, then {@code handler}.
 */
final class Dialer {
    /** DSCP Expedited Forwarding, shifted into the IP TOS byte: key packets. */
    static final int TOS_EF = 46 << 2;
    /** DSCP CS1 (lower effort), shifted into the IP TOS byte: values. */
    static final int TOS_CS1 = 8 << 2;

    /** What a connection carries, which decides its buffers and marks. */
    enum Kind {
        KEY(256 << 10, 1 << 20),
        VALUE(1 << 20, 4 << 20);

        final int lowWaterMark;
        final int highWaterMark;

        Kind(int lowWaterMark, int highWaterMark) {
            this.lowWaterMark = lowWaterMark;
            this.highWaterMark = highWaterMark;
        }
    }

    /** How long the backup may take to answer the authentication. */
    static final long AUTH_TIMEOUT_MILLIS = 10_000;

    private Dialer() {}

    static ChannelFuture dial(PrimaryLink link, EventLoopGroup group, Kind kind, ChannelHandler handler) {
        var flow = link.config().flowControl();
        Bootstrap b = new Bootstrap()
                .group(group)
                .channel(Transports.socketChannel(group))
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .option(
                        ChannelOption.WRITE_BUFFER_WATER_MARK,
                        new WriteBufferWaterMark(kind.lowWaterMark, kind.highWaterMark));
        if (flow.dscp()) b.option(ChannelOption.IP_TOS, kind == Kind.KEY ? TOS_EF : TOS_CS1);
        if (kind == Kind.VALUE && flow.enabled() && Transports.isEpoll(group)) {
            // unsent bytes stay in our window, not in the kernel, so a smaller window acts at once
            b.option(EpollChannelOption.TCP_NOTSENT_LOWAT, (long) flow.notSentLowWatermarkBytes());
        }
        return b.handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        link.security().addDiallerTls(ch, link.peer());
                        FrameCodec.install(ch.pipeline(), link.config().maxFrameBytes());
                        link.security().addDiallerAuth(ch, AUTH_TIMEOUT_MILLIS);
                        ch.pipeline().addLast(handler);
                    }
                })
                .connect(link.peer());
    }
}
