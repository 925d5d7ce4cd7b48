package dev.kvs.client.internal;

import dev.kvs.client.KvsClientException;
import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

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

    /** An integer. */
    static final ReplyDecoder<Long> INTEGER = (command, reply) -> {
        if (reply instanceof IntegerRedisMessage i) return i.value();
        throw unexpected(command, reply);
    };

    /**
     * A flat array of field, value, field, value... ({@code HGETALL}), as a map of UTF-8 field names in
     * the reply's order.
     */
    static final ReplyDecoder<Map<String, byte[]>> FIELD_MAP = (command, reply) -> {
        if (!(reply instanceof ArrayRedisMessage a)
                || a.isNull()
                || a.children().size() % 2 != 0) {
            throw unexpected(command, reply);
        }
        Map<String, byte[]> out = new LinkedHashMap<>();
        List<RedisMessage> c = a.children();
        for (int i = 0; i < c.size(); i += 2) {
            byte[] field = bulk(command, c.get(i));
            byte[] value = bulk(command, c.get(i + 1));
            if (field == null || value == null) throw unexpected(command, reply);
            out.put(new String(field, StandardCharsets.UTF_8), value);
        }
        return Collections.unmodifiableMap(out);
    };

    /** {@code +QUEUED}, a command's answer inside {@code MULTI}. */
    static final ReplyDecoder<Void> QUEUED = (command, reply) -> {
        if (reply instanceof SimpleStringRedisMessage s && s.content().equals("QUEUED")) return null;
        throw unexpected(command, reply);
    };

    /** {@code EXEC}'s reply to {@code queued}: see {@link Command#exec}. */
    static ReplyDecoder<Optional<List<Object>>> exec(List<Command<?>> queued) {
        return (command, reply) -> {
            if (!(reply instanceof ArrayRedisMessage a)) throw unexpected(command, reply);
            if (a.isNull()) return Optional.empty();
            if (a.children().size() != queued.size()) {
                throw new KvsClientException(
                        "EXEC answered " + a.children().size() + " replies to " + queued.size() + " queued commands");
            }
            List<Object> out = new ArrayList<>(queued.size());
            for (int i = 0; i < queued.size(); i++) {
                Command<?> c = queued.get(i);
                RedisMessage child = a.children().get(i);
                out.add(
                        child instanceof ErrorRedisMessage e
                                ? ServerErrors.toException(e.content(), c.keys)
                                : c.decoder.decode(c.name, child));
            }
            return Optional.of(Collections.unmodifiableList(out));
        };
    }

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
