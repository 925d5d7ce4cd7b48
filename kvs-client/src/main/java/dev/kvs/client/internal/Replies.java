package dev.kvs.client.internal;

import dev.kvs.client.KvsClientException;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The reply decoders of the commands the client sends. */
final class Replies {
    /** {@code +OK}. */
    static final ReplyDecoder<Void> OK = (command, reply) -> {
        if (reply instanceof SimpleStringRedisMessage s && s.content().equals("OK")) return null;
        throw unexpected(command, reply);
    };

    /** {@code +OK} (set) or a null bulk (not set), as {@code SET NX} answers. */
    static final ReplyDecoder<Boolean> OK_OR_NIL = (command, reply) -> {
        if (reply instanceof SimpleStringRedisMessage s && s.content().equals("OK")) return true;
        if (reply instanceof FullBulkStringRedisMessage b && b.isNull()) return false;
        throw unexpected(command, reply);
    };

    /** A bulk string, or null for a null bulk. */
    static final ReplyDecoder<byte[]> BULK = Replies::bulk;

    /** An integer, as "greater than zero". */
    static final ReplyDecoder<Boolean> POSITIVE = (command, reply) -> {
        if (reply instanceof IntegerRedisMessage i) return i.value() > 0;
        throw unexpected(command, reply);
    };

    /** An array of bulk strings, nulls kept. */
    static final ReplyDecoder<List<byte[]>> BULK_ARRAY = (command, reply) -> {
        if (!(reply instanceof ArrayRedisMessage a) || a.isNull()) throw unexpected(command, reply);
        List<byte[]> out = new ArrayList<>(a.children().size());
        for (RedisMessage child : a.children()) out.add(bulk(command, child));
        return Collections.unmodifiableList(out);
    };

    /** A simple string's text. */
    static final ReplyDecoder<String> SIMPLE = (command, reply) -> {
        if (reply instanceof SimpleStringRedisMessage s) return s.content();
        throw unexpected(command, reply);
    };

    private Replies() {}

    private static byte[] bulk(String command, RedisMessage reply) {
        if (!(reply instanceof FullBulkStringRedisMessage b)) throw unexpected(command, reply);
        return b.isNull() ? null : ByteBufUtil.getBytes(b.content());
    }

    private static KvsClientException unexpected(String command, RedisMessage reply) {
        return new KvsClientException("unexpected reply to " + command + ": "
                + reply.getClass().getSimpleName().replace("RedisMessage", ""));
    }
}
