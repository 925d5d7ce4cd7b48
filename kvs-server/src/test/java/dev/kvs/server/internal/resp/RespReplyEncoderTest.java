package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The replies of one read batch leave in one buffer, in order, at the flush. */
class RespReplyEncoderTest {
    private static List<String> outbound(EmbeddedChannel ch) {
        List<String> out = new ArrayList<>();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            out.add(b.toString(StandardCharsets.UTF_8));
            b.release();
        }
        return out;
    }

    @Test
    void smallRepliesBetweenFlushesLeaveAsOneBufferInOrder() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespReplyEncoder());
        ch.write(Replies.OK, ch.voidPromise());
        ch.write(Replies.integer(42), ch.voidPromise());
        ch.write(Replies.bulk("v".getBytes(StandardCharsets.UTF_8)), ch.voidPromise());
        assertThat(outbound(ch)).as("nothing leaves before the flush").isEmpty();

        ch.flush();

        assertThat(outbound(ch)).containsExactly("+OK\r\n:42\r\n$1\r\nv\r\n");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void aFullBatchIsPassedOnWithoutWaitingForTheFlush() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespReplyEncoder());
        byte[] value = new byte[1000];
        int replies = RespReplyEncoder.BATCH_BYTES / value.length + 2;
        for (int i = 0; i < replies; i++) ch.write(Replies.bulk(value), ch.voidPromise());
        assertThat(ch.unsafe().outboundBuffer().totalPendingWriteBytes())
                .as("the full batch was passed on to the channel before the flush")
                .isGreaterThanOrEqualTo(RespReplyEncoder.BATCH_BYTES);

        ch.flush();

        List<String> out = outbound(ch);
        assertThat(out).hasSize(2);
        assertThat(out.get(0).length()).isGreaterThanOrEqualTo(RespReplyEncoder.BATCH_BYTES);
        assertThat(String.join("", out))
                .isEqualTo(("$1000\r\n" + new String(value, StandardCharsets.UTF_8) + "\r\n").repeat(replies));
        ch.finish();
    }

    @Test
    void aWriteWithItsOwnPromiseKeepsTheOrderAndCompletes() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespReplyEncoder());
        ch.write(Replies.OK, ch.voidPromise());
        ChannelFuture f = ch.write(Replies.error("ERR x"));
        byte[] large = new byte[20_000];
        ch.write(new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(large)), ch.voidPromise());
        ch.write(Replies.integer(1), ch.voidPromise());
        ch.flush();

        assertThat(f.isSuccess()).isTrue();
        assertThat(String.join("", outbound(ch)))
                .isEqualTo("+OK\r\n-ERR x\r\n$20000\r\n" + new String(large, StandardCharsets.UTF_8) + "\r\n:1\r\n");
        ch.finish();
    }

    @Test
    void aBatchNotFlushedIsReleasedWhenTheChannelCloses() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespReplyEncoder());
        ch.write(Replies.OK, ch.voidPromise());
        ch.close();
        assertThat(outbound(ch)).isEmpty();
        assertThat(ch.isOpen()).isFalse();
    }
}
