package dev.kvs.replication.wire;

import static dev.kvs.replication.wire.Wire.LENGTH_BYTES;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.util.ReferenceCountUtil;

/**
 * Writes each frame's {@link FrameMac} tag right after it, once {@linkplain FrameCodec#startMacs
 * started}; before, it passes bytes on as they are (the cluster secret's challenge-response is not
 * tagged). Sits between the socket and the {@link FrameEncoder}, so it sees every frame as one buffer:
 * the encoder's and the chunk frames senders fill themselves alike. Not sharable: one per connection.
 */
final class FrameTagger extends ChannelOutboundHandlerAdapter {
    private FrameMac mac;

    /** From the next frame written on, every frame is followed by its tag. */
    void start(FrameMac mac) {
        this.mac = mac;
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (mac == null || !(msg instanceof ByteBuf frame) || !frame.isReadable()) {
            ctx.write(msg, promise);
            return;
        }
        if (frame.readableBytes() < LENGTH_BYTES || frame.getInt(frame.readerIndex()) != frame.readableBytes() - 4) {
            // a buffer that is not exactly one frame would desynchronise the tags: nothing is sent
            ReferenceCountUtil.release(msg);
            promise.setFailure(new IllegalStateException(
                    "a buffer of " + frame.readableBytes() + " bytes that is not one whole frame"));
            ctx.close();
            return;
        }
        ByteBuf tag = ctx.alloc().ioBuffer(FrameMac.TAG_BYTES);
        try {
            mac.tag(frame, tag);
        } catch (RuntimeException e) {
            tag.release();
            ReferenceCountUtil.release(msg);
            promise.setFailure(e);
            ctx.close();
            return;
        }
        // the caller's promise completes with the tag, its frame's last bytes
        ctx.write(frame, ctx.newPromise());
        ctx.write(tag, promise);
    }
}
