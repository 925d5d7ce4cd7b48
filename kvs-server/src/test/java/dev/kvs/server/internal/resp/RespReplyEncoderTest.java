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

    private static BatchedBulk reserve(EmbeddedChannel ch, String value) {
        BatchedBulk r = ch.pipeline().get(RespReplyEncoder.class).reserve(value.length());
        r.valueBuffer().put(value.getBytes(StandardCharsets.US_ASCII)); // as the store copies a GET's value
        return r;
    }

    @Test
    void aReservedReplyWrittenNextIsAlreadyInTheBatch() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespReplyEncoder());
        ch.write(Replies.OK, ch.voidPromise());
        BatchedBulk r = reserve(ch, "hello");
        ch.write(r, ch.voidPromise());
        ch.write(Replies.integer(1), ch.voidPromise());
        ch.flush();

        assertThat(r.released()).isTrue();
        assertThat(outbound(ch))
                .as("one buffer: the reply was not copied into another")
                .containsExactly("+OK\r\n$5\r\nhello\r\n:1\r\n");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void aReservedReplyWrittenLaterKeepsItsBytesAndItsPlace() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespReplyEncoder());
        ch.write(Replies.OK, ch.voidPromise());
        BatchedBulk held = reserve(ch, "held-back"); // as a reply queued behind one that waits
        String other = "written-first-over-the-held-bytes";
        ch.write(Replies.bulk(other.getBytes(StandardCharsets.US_ASCII)), ch.voidPromise());
        BatchedBulk next = reserve(ch, "next");
        BatchedBulk inArray = reserve(ch, "in-array"); // as EXEC's GETs: the one before is still held
        ch.write(next, ch.voidPromise());
        ch.write(Replies.array(List.of(inArray, Replies.integer(2))), ch.voidPromise());
        ch.write(held, ch.voidPromise());
        BatchedBulk dropped = reserve(ch, "dropped");
        dropped.release(); // a reply not written (CLIENT REPLY OFF): its room is reused
        ch.write(Replies.integer(3), ch.voidPromise());
        ch.flush();

        assertThat(String.join("", outbound(ch)))
                .isEqualTo("+OK\r\n$" + other.length() + "\r\n" + other + "\r\n$4\r\nnext\r\n*2\r\n$8\r\nin-array\r\n"
                        + ":2\r\n$9\r\nheld-back\r\n:3\r\n");
        assertThat(ch.finish()).isFalse();
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
