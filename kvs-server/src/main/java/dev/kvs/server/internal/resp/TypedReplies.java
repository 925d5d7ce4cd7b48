package dev.kvs.server.internal.resp;

import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.math.BigDecimal;
import java.math.MathContext;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The reply types RESP3 adds, as Redis 7.0.15 sends them: each knows its RESP2 form too, so a command
 * builds one reply and {@link RespReplyEncoder} writes it in the connection's protocol ({@code HELLO}
 * switches it, {@link Hello}). The aggregates are {@link ArrayRedisMessage}s (their children released
 * with them; in RESP2 they are plain arrays) and the verbatim string a bulk string, so code that only
 * knows RESP2 still reads them. A null is the existing nil bulk or nil array: {@code _} in RESP3, and
 * in RESP2 the one the command chose, as Redis's {@code addReplyNull}/{@code addReplyNullArray}.
 */
final class TypedReplies {
    private TypedReplies() {}

    /**
     * A map ({@code addReplyMapLen}): RESP3 {@code %n}, RESP2 a flat array of {@code 2n}.
     * Children: key, value, key, value...
     */
    static class MapReply extends ArrayRedisMessage {
        MapReply(List<RedisMessage> keysAndValues) {
            super(keysAndValues);
            if (keysAndValues.size() % 2 != 0) {
                throw new IllegalArgumentException("odd number of keys and values: " + keysAndValues.size());
            }
        }
    }

    /** {@code HELLO}'s map: the connection speaks {@code protocol} from this reply on (0: unchanged). */
    static final class Hello extends MapReply {
        final int protocol;

        Hello(int protocol, List<RedisMessage> keysAndValues) {
            super(keysAndValues);
            this.protocol = protocol;
        }
    }

    /** {@code RESET}'s {@code +RESET}: the connection speaks RESP2 from this reply on. */
    record ResetReply() implements RedisMessage {
        static final ResetReply INSTANCE = new ResetReply();
        static final byte[] BYTES = "+RESET\r\n".getBytes(StandardCharsets.US_ASCII);
    }

    /** A set ({@code addReplySetLen}): RESP3 {@code ~n}, RESP2 an array. */
    static final class SetReply extends ArrayRedisMessage {
        SetReply(List<RedisMessage> members) {
            super(members);
        }
    }

    /**
     * A push ({@code addReplyPushLen}), out of band in RESP3 ({@code >n}), an array in RESP2: a pub/sub
     * message. The encoder writes it like any reply; whoever sends one keeps it out of the reply order.
     */
    static final class PushReply extends ArrayRedisMessage {
        PushReply(List<RedisMessage> items) {
            super(items);
        }
    }

    /**
     * Several replies to one command, written one after the other with no header of their own: {@code
     * SUBSCRIBE a b} answers one confirmation per channel. Inside an {@code EXEC} they are written as
     * several elements of its array, as Redis writes them. Children: the replies.
     */
    static final class SeveralReplies extends ArrayRedisMessage {
        SeveralReplies(List<RedisMessage> replies) {
            super(replies);
        }
    }

    /**
     * Pairs, as {@code HRANDFIELD ... WITHVALUES} sends them: RESP3 an array of two-element arrays,
     * RESP2 one flat array. Children: the two-element arrays.
     */
    static final class PairsReply extends ArrayRedisMessage {
        PairsReply(List<RedisMessage> pairs) {
            super(pairs);
        }
    }

    /** A verbatim string ({@code addReplyVerbatim}, format {@code txt}): RESP3 {@code =}, RESP2 a bulk string. */
    static final class VerbatimReply extends FullBulkStringRedisMessage {
        VerbatimReply(String text) {
            super(Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
        }

        /** What RESP3 puts before the text: Redis's three-letter format and a colon. */
        static final byte[] PREFIX = "txt:".getBytes(StandardCharsets.US_ASCII);
    }

    /**
     * A double ({@code addReplyDouble}): RESP3 {@code ,}, RESP2 a bulk string; both printed as Redis
     * 7.0.15 prints them ({@code %.17g}, {@code inf}, {@code -inf}).
     */
    record DoubleReply(double value) implements RedisMessage {
        /** The number as C's {@code printf("%.17g")} writes it. */
        String text() {
            if (Double.isInfinite(value)) return value > 0 ? "inf" : "-inf";
            if (Double.isNaN(value)) return "nan";
            if (value == 0) return (1 / value) < 0 ? "-0" : "0";
            BigDecimal d = new BigDecimal(value).round(new MathContext(17));
            int exponent = d.precision() - d.scale() - 1; // of the leading digit
            if (exponent < -4 || exponent >= 17) {
                BigDecimal mantissa = d.movePointLeft(exponent).stripTrailingZeros();
                String m = mantissa.scale() <= 0 ? mantissa.toBigInteger().toString() : mantissa.toPlainString();
                int e = Math.abs(exponent);
                return m + "e" + (exponent < 0 ? "-" : "+") + (e < 10 ? "0" : "") + e;
            }
            BigDecimal plain = d.stripTrailingZeros();
            return plain.scale() <= 0 ? plain.toBigInteger().toString() : plain.toPlainString();
        }
    }

    /** A boolean ({@code addReplyBool}): RESP3 {@code #t}/{@code #f}, RESP2 the integer 1 or 0. */
    record BooleanReply(boolean value) implements RedisMessage {
        static final BooleanReply TRUE = new BooleanReply(true);
        static final BooleanReply FALSE = new BooleanReply(false);
    }

    /** A big number ({@code addReplyBigNum}): RESP3 {@code (}, RESP2 a bulk string; {@code digits} as sent. */
    record BigNumberReply(String digits) implements RedisMessage {
        BigNumberReply {
            if (!digits.matches("-?[0-9]+")) throw new IllegalArgumentException("not a big number: " + digits);
        }
    }

    /** True for pub/sub's pushes (one, or several to one command): written even under {@code CLIENT REPLY OFF}. */
    static boolean isPush(RedisMessage m) {
        return m instanceof PushReply || m instanceof SeveralReplies;
    }

    static MapReply map(List<RedisMessage> keysAndValues) {
        return new MapReply(keysAndValues);
    }

    static SetReply set(List<RedisMessage> members) {
        return new SetReply(members);
    }
}
