package dev.kvs.server.internal.script;

import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import org.luaj.vm2.LuaString;
import org.luaj.vm2.LuaTable;
import org.luaj.vm2.LuaValue;

/**
 * Redis's conversions between replies and Lua values, both ways (Redis's "Conversion between Lua and
 * Redis data types"). A reply becomes: an integer a number, a bulk string a string, a null bulk or
 * null array {@code false}, an array a table (nested), a status {@code {ok=...}}, an error {@code
 * {err=...}}. A Lua value becomes: a number an integer (truncated), a string a bulk string, {@code
 * true} the integer 1, {@code false} and {@code nil} a null bulk, a table with {@code ok} a status, with
 * {@code err} an error, any other table an array of its elements up to the first nil, anything else a
 * null bulk. Stateless.
 */
final class LuaReplies {
    static final LuaString OK = LuaString.valueOf("ok");
    static final LuaString ERR = LuaString.valueOf("err");

    private LuaReplies() {}

    /** The Lua value a command's reply becomes inside the script. */
    static LuaValue toLua(RedisMessage m) {
        if (m instanceof IntegerRedisMessage i) return number(i.value());
        if (m instanceof FullBulkStringRedisMessage b) {
            return b.isNull() ? LuaValue.FALSE : LuaString.valueUsing(ByteBufUtil.getBytes(b.content()));
        }
        if (m instanceof SimpleStringRedisMessage s) return single(OK, LuaValue.valueOf(s.content()));
        if (m instanceof ErrorRedisMessage e) return single(ERR, LuaValue.valueOf(e.content()));
        if (m instanceof ArrayRedisMessage a) {
            if (a.isNull()) return LuaValue.FALSE;
            LuaTable t = new LuaTable(a.children().size(), 0);
            int i = 1;
            for (RedisMessage child : a.children()) t.rawset(i++, toLua(child));
            return t;
        }
        throw new IllegalArgumentException(
                "no Lua value for reply " + m.getClass().getSimpleName());
    }

    static LuaTable single(LuaString field, LuaValue value) {
        LuaTable t = new LuaTable();
        t.rawset(field, value);
        return t;
    }

    private static LuaValue number(long n) {
        return n == (int) n ? LuaValue.valueOf((int) n) : LuaValue.valueOf((double) n);
    }

    /** The reply a script's return value (or a value in a returned table) becomes. */
    static RedisMessage toReply(LuaValue v) {
        return toReply(v, 0);
    }

    /** How deep returned tables may nest (a table holding itself would never end): Redis's error past it. */
    private static final int MAX_DEPTH = 1000;

    private static RedisMessage toReply(LuaValue v, int depth) {
        if (depth > MAX_DEPTH) return new ErrorRedisMessage("ERR reached lua stack limit");
        switch (v.type()) {
            case LuaValue.TNUMBER:
                return new IntegerRedisMessage((long) v.todouble());
            case LuaValue.TSTRING:
                return bulk(v.checkstring());
            case LuaValue.TBOOLEAN:
                return v.toboolean() ? new IntegerRedisMessage(1) : FullBulkStringRedisMessage.NULL_INSTANCE;
            case LuaValue.TTABLE:
                return table((LuaTable) v, depth);
            default:
                return FullBulkStringRedisMessage.NULL_INSTANCE;
        }
    }

    private static RedisMessage table(LuaTable t, int depth) {
        LuaValue err = t.rawget(ERR);
        if (err.isstring()) return new ErrorRedisMessage(oneLine(err.tojstring()));
        LuaValue ok = t.rawget(OK);
        if (ok.isstring()) return new SimpleStringRedisMessage(oneLine(ok.tojstring()));
        List<RedisMessage> out = new ArrayList<>();
        for (int i = 1; ; i++) {
            LuaValue e = t.rawget(i);
            if (e.isnil()) break;
            out.add(toReply(e, depth + 1));
        }
        return out.isEmpty() ? ArrayRedisMessage.EMPTY_INSTANCE : new ArrayRedisMessage(out);
    }

    /** A status or error line: Redis replaces CR and LF with spaces. */
    static String oneLine(String s) {
        return s.replace('\r', ' ').replace('\n', ' ');
    }

    private static FullBulkStringRedisMessage bulk(LuaString s) {
        if (s.m_length == 0) return FullBulkStringRedisMessage.EMPTY_INSTANCE;
        byte[] bytes = new byte[s.m_length];
        s.copyInto(0, bytes, 0, bytes.length);
        return new FullBulkStringRedisMessage(Unpooled.wrappedBuffer(bytes));
    }

    /**
     * A {@code redis.call} argument: a string's bytes, a number as Redis prints it (an integral number
     * without a fraction, others in their shortest decimal form).
     *
     * @return null if {@code v} is neither
     */
    static byte[] argument(LuaValue v) {
        if (v.type() == LuaValue.TNUMBER) {
            double d = v.todouble();
            String s = d == Math.rint(d) && Math.abs(d) < 1e17
                    ? Long.toString((long) d)
                    : new BigDecimal(Double.toString(d)).stripTrailingZeros().toPlainString();
            return s.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }
        if (v.type() != LuaValue.TSTRING) return null;
        LuaString s = v.checkstring();
        byte[] bytes = new byte[s.m_length];
        s.copyInto(0, bytes, 0, bytes.length);
        return bytes;
    }
}
