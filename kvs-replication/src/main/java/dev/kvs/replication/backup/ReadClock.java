package dev.kvs.replication.backup;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;

/**
 * Notes when bytes were last read from the socket, ahead of the frame decoder, so every frame decoded
 * from one read is stamped with the time it arrived rather than the time the frames before it in the
 * same read were done being applied. One per channel.
 */
final class ReadClock extends ChannelInboundHandlerAdapter {
    static final String NAME = "read-clock";
    private long lastReadNanos = System.nanoTime();

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBuf) lastReadNanos = System.nanoTime();
        ctx.fireChannelRead(msg);
    }

    /** When the last bytes arrived ({@link System#nanoTime()}). */
    long lastReadNanos() {
        return lastReadNanos;
    }
}
