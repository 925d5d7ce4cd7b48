package dev.kvs.server.internal.resp;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.redis.BulkStringHeaderRedisMessage;
import io.netty.handler.codec.redis.BulkStringRedisContent;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.LastBulkStringRedisContent;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.util.List;

/**
 * Enforces the configured bulk-string limit between the decoder and the aggregators (whose own limit
 * is fixed at 512 MiB). An oversized bulk string is read and discarded as it streams in, never
 * buffered, and replaced by an {@link Oversized} marker so the array aggregator still completes the
 * command: the stream stays in sync and the command handler answers an error for that one command.
 */
final class BulkLimitFilter extends MessageToMessageDecoder<RedisMessage> {
    private final int maxBulkBytes;
    private long discarding = -1; // declared length of the bulk being discarded, or -1

    BulkLimitFilter(int maxBulkBytes) {
        super(RedisMessage.class);
        this.maxBulkBytes = maxBulkBytes;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, RedisMessage msg, List<Object> out) {
        if (discarding >= 0) {
            if (msg instanceof BulkStringRedisContent) {
                // the base class releases msg after decode: discarding means not passing it on
                if (msg instanceof LastBulkStringRedisContent) {
                    out.add(new Oversized(discarding));
                    discarding = -1;
                }
                return;
            }
        }
        if (msg instanceof BulkStringHeaderRedisMessage header && header.bulkStringLength() > maxBulkBytes) {
            discarding = header.bulkStringLength();
            return;
        }
        out.add(ReferenceCountUtil.retain(msg));
    }

    /** The argument a command receives in place of an oversized bulk string. */
    static final byte[] OVERSIZED_ARG = new byte[0];

    /** Stands in for a bulk string longer than the limit; the command that holds it is refused. */
    static final class Oversized extends FullBulkStringRedisMessage {
        final long declaredLength;

        Oversized(long declaredLength) {
            super(Unpooled.EMPTY_BUFFER);
            this.declaredLength = declaredLength;
        }
    }
}
