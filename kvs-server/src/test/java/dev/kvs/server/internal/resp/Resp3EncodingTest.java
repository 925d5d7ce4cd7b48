package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link TypedReplies} through {@link RespReplyEncoder}: each type's RESP2 and RESP3 bytes as Redis
 * 7.0.15's networking.c writes them, the switch at {@code HELLO}'s reply, and large values inside them.
 */
class Resp3EncodingTest {
    private static String encode(EmbeddedChannel ch, RedisMessage... replies) {
        for (RedisMessage m : replies) ch.write(m, ch.voidPromise());
        ch.flush();
        StringBuilder out = new StringBuilder();
        for (ByteBuf b; (b = ch.readOutbound()) != null; ) {
            out.append(b.toString(StandardCharsets.ISO_8859_1));
            b.release();
        }
        return out.toString();
    }

    private static EmbeddedChannel resp2() {
        return new EmbeddedChannel(new RespReplyEncoder());
    }

    /** A channel switched to RESP3 by a HELLO 3 reply, its bytes read and dropped. */
    private static EmbeddedChannel resp3() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespReplyEncoder());
        assertThat(encode(ch, new TypedReplies.Hello(3, List.of(Replies.bulk("proto"), Replies.integer(3)))))
                .isEqualTo("%1\r\n$5\r\nproto\r\n:3\r\n");
        return ch;
    }

    private static RedisMessage map() {
        return TypedReplies.map(List.of(Replies.bulk("f"), Replies.bulk("v"), Replies.bulk("g"), Replies.integer(7)));
    }

    private static RedisMessage set() {
        return TypedReplies.set(List.of(Replies.bulk("a"), Replies.bulk("b")));
    }

    private static RedisMessage pairs() {
        return new TypedReplies.PairsReply(List.of(
                new ArrayRedisMessage(List.of(Replies.bulk("f"), Replies.bulk("v"))),
                new ArrayRedisMessage(List.of(Replies.bulk("g"), Replies.bulk("w")))));
    }

    @Test
    void resp2WritesEveryTypedReplyAsRedis7WritesItForAResp2Client() {
        EmbeddedChannel ch = resp2();
        assertThat(encode(ch, map())).isEqualTo("*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n:7\r\n");
        assertThat(encode(ch, set())).isEqualTo("*2\r\n$1\r\na\r\n$1\r\nb\r\n");
        assertThat(encode(ch, pairs())).isEqualTo("*4\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n$1\r\nw\r\n");
        assertThat(encode(ch, new TypedReplies.PushReply(List.of(Replies.bulk("message")))))
                .isEqualTo("*1\r\n$7\r\nmessage\r\n");
        assertThat(encode(ch, new TypedReplies.VerbatimReply("a:b\r\n"))).isEqualTo("$5\r\na:b\r\n\r\n");
        assertThat(encode(ch, new TypedReplies.DoubleReply(1.5))).isEqualTo("$3\r\n1.5\r\n");
        assertThat(encode(ch, TypedReplies.BooleanReply.TRUE, TypedReplies.BooleanReply.FALSE))
                .isEqualTo(":1\r\n:0\r\n");
        assertThat(encode(ch, new TypedReplies.BigNumberReply("12345678901234567890")))
                .isEqualTo("$20\r\n12345678901234567890\r\n");
        assertThat(encode(ch, FullBulkStringRedisMessage.NULL_INSTANCE, ArrayRedisMessage.NULL_INSTANCE))
                .isEqualTo("$-1\r\n*-1\r\n");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void resp3WritesEachTypeWithItsOwnPrefix() {
        EmbeddedChannel ch = resp3();
        assertThat(encode(ch, map())).isEqualTo("%2\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n:7\r\n");
        assertThat(encode(ch, set())).isEqualTo("~2\r\n$1\r\na\r\n$1\r\nb\r\n");
        assertThat(encode(ch, pairs())).isEqualTo("*2\r\n*2\r\n$1\r\nf\r\n$1\r\nv\r\n*2\r\n$1\r\ng\r\n$1\r\nw\r\n");
        assertThat(encode(ch, new TypedReplies.PushReply(List.of(Replies.bulk("message")))))
                .isEqualTo(">1\r\n$7\r\nmessage\r\n");
        assertThat(encode(ch, new TypedReplies.VerbatimReply("a:b\r\n"))).isEqualTo("=9\r\ntxt:a:b\r\n\r\n");
        assertThat(encode(ch, new TypedReplies.DoubleReply(1.5))).isEqualTo(",1.5\r\n");
        assertThat(encode(ch, TypedReplies.BooleanReply.TRUE, TypedReplies.BooleanReply.FALSE))
                .isEqualTo("#t\r\n#f\r\n");
        assertThat(encode(ch, new TypedReplies.BigNumberReply("-12345678901234567890")))
                .isEqualTo("(-12345678901234567890\r\n");
        assertThat(encode(ch, FullBulkStringRedisMessage.NULL_INSTANCE, ArrayRedisMessage.NULL_INSTANCE))
                .as("both RESP2 nils are RESP3's null")
                .isEqualTo("_\r\n_\r\n");
        assertThat(encode(ch, Replies.OK, Replies.error("ERR x"), Replies.integer(-3), Replies.bulk("v")))
                .as("the RESP2 types are unchanged")
                .isEqualTo("+OK\r\n-ERR x\r\n:-3\r\n$1\r\nv\r\n");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void nestedRepliesTakeTheirOwnTypes() {
        EmbeddedChannel ch = resp3();
        RedisMessage exec = Replies.array(
                List.of(Replies.ONE, map(), FullBulkStringRedisMessage.NULL_INSTANCE, set(), Replies.array(List.of())));
        assertThat(encode(ch, exec))
                .isEqualTo("*5\r\n:1\r\n%2\r\n$1\r\nf\r\n$1\r\nv\r\n$1\r\ng\r\n:7\r\n_\r\n~2\r\n$1\r\na\r\n$1\r\nb\r\n"
                        + "*0\r\n");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void helloSwitchesAtItsReplyAndHelloWithoutVersionKeepsTheProtocol() {
        EmbeddedChannel ch = new EmbeddedChannel(new RespReplyEncoder());
        RedisMessage before = FullBulkStringRedisMessage.NULL_INSTANCE;
        assertThat(encode(
                        ch,
                        before,
                        new TypedReplies.Hello(3, List.of()),
                        FullBulkStringRedisMessage.NULL_INSTANCE,
                        new TypedReplies.Hello(0, List.of()),
                        set(),
                        new TypedReplies.Hello(2, List.of()),
                        set()))
                .isEqualTo("$-1\r\n%0\r\n_\r\n%0\r\n~2\r\n$1\r\na\r\n$1\r\nb\r\n*0\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n");
        assertThat(ch.finish()).isFalse();
    }

    @Test
    void largeValuesInsideTypedRepliesAreWrittenWithTheirTypesHeaders() {
        EmbeddedChannel ch = resp3();
        String big = "x".repeat(RespReplyEncoder.COPY_LIMIT + 1);
        ByteBuf pooled = PooledByteBufAllocator.DEFAULT.directBuffer();
        pooled.writeCharSequence(big, StandardCharsets.ISO_8859_1);
        RedisMessage m = TypedReplies.map(List.of(Replies.bulk("f"), new FullBulkStringRedisMessage(pooled)));
        assertThat(encode(ch, m)).isEqualTo("%1\r\n$1\r\nf\r\n$" + big.length() + "\r\n" + big + "\r\n");
        assertThat(pooled.refCnt()).as("the value was released with its map").isZero();

        assertThat(encode(ch, new TypedReplies.VerbatimReply(big)))
                .isEqualTo("=" + (big.length() + 4) + "\r\ntxt:" + big + "\r\n");
        assertThat(encode(
                        ch,
                        new TypedReplies.PairsReply(List.of(Replies.array(
                                List.of(Replies.bulk("f"), Replies.bulk(big.getBytes(StandardCharsets.ISO_8859_1))))))))
                .isEqualTo("*1\r\n*2\r\n$1\r\nf\r\n$" + big.length() + "\r\n" + big + "\r\n");
        assertThat(ch.finish()).isFalse();

        EmbeddedChannel two = resp2();
        assertThat(encode(
                        two,
                        new TypedReplies.PairsReply(List.of(Replies.array(
                                List.of(Replies.bulk("f"), Replies.bulk(big.getBytes(StandardCharsets.ISO_8859_1))))))))
                .as("pairs flattened in RESP2 around a large value too")
                .isEqualTo("*2\r\n$1\r\nf\r\n$" + big.length() + "\r\n" + big + "\r\n");
        assertThat(encode(two, new TypedReplies.VerbatimReply(big)))
                .isEqualTo("$" + big.length() + "\r\n" + big + "\r\n");
        assertThat(two.finish()).isFalse();
    }

    @Test
    void doublesArePrintedAsCPrintfsPercentDot17g() {
        assertThat(new TypedReplies.DoubleReply(0.1).text()).isEqualTo("0.10000000000000001");
        assertThat(new TypedReplies.DoubleReply(4.096).text()).isEqualTo("4.0960000000000001");
        assertThat(new TypedReplies.DoubleReply(3).text()).isEqualTo("3");
        assertThat(new TypedReplies.DoubleReply(-2.5).text()).isEqualTo("-2.5");
        assertThat(new TypedReplies.DoubleReply(1e20).text()).isEqualTo("1e+20");
        assertThat(new TypedReplies.DoubleReply(1.5e-7).text()).isEqualTo("1.4999999999999999e-07");
        assertThat(new TypedReplies.DoubleReply(123456789012345678.0).text()).isEqualTo("1.2345678901234568e+17");
        assertThat(new TypedReplies.DoubleReply(0.0001).text()).isEqualTo("0.0001");
        assertThat(new TypedReplies.DoubleReply(0).text()).isEqualTo("0");
        assertThat(new TypedReplies.DoubleReply(Double.POSITIVE_INFINITY).text())
                .isEqualTo("inf");
        assertThat(new TypedReplies.DoubleReply(Double.NEGATIVE_INFINITY).text())
                .isEqualTo("-inf");
    }
}
