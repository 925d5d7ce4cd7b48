package dev.kvs.replication.primary;

import dev.kvs.replication.wire.FrameCodec;
import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.WriteBufferWaterMark;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;

/** Opens a replication connection to the backup: frame codec, then {@code handler}. */
final class Dialer {
    private Dialer() {}

    static ChannelFuture dial(
            PrimaryLink link, EventLoopGroup group, int lowWaterMark, int highWaterMark, ChannelHandler handler) {
        return new Bootstrap()
                .group(group)
                .channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .option(ChannelOption.WRITE_BUFFER_WATER_MARK, new WriteBufferWaterMark(lowWaterMark, highWaterMark))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        FrameCodec.install(ch.pipeline(), link.config().maxFrameBytes());
                        ch.pipeline().addLast(handler);
                    }
                })
                .connect(link.peer());
    }
}
