package dev.kvs.replication.backup;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.concurrent.atomic.LongAdder;

/** Counts the bytes read from replication connections, before any decoding. */
@ChannelHandler.Sharable
final class ReceivedBytes extends ChannelInboundHandlerAdapter {
    private final LongAdder bytes;

    ReceivedBytes(LongAdder bytes) {
        this.bytes = bytes;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf buf) bytes.add(buf.readableBytes());
        ctx.fireChannelRead(msg);
    }
}
