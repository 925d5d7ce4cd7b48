package dev.kvs.server.internal.script;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBufUtil;
import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A script's {@code cmsgpack}, each expected reply taken from redis-server 7.0.15. */
class LuaMsgpackTest {
    private static final String HEX =
            " local h = '' for i = 1, #e do h = h .. string.format('%02x', string.byte(e, i)) end" + " return h";

    private final ScriptEngine engine = new ScriptEngine();

    @AfterEach
    void close() {
        engine.close();
    }

    private RedisMessage eval(String body) throws Exception {
        return engine.run(
                engine.load(body.getBytes(StandardCharsets.UTF_8)),
                false,
                new byte[0][],
                new byte[0][],
                (run, args) -> {
                    throw new AssertionError("no command expected");
                });
    }

    private String text(String body) throws Exception {
        RedisMessage r = eval(body);
        if (r instanceof ErrorRedisMessage e) return e.content();
        return new String(ByteBufUtil.getBytes(((FullBulkStringRedisMessage) r).content()), StandardCharsets.UTF_8);
    }

    @Test
    void packWritesTheSmallestFormsAsRedisDoes() throws Exception {
        assertThat(text("local e = cmsgpack.pack(0.1, -1099511627776, {1,2,3}, 'abc', true)" + HEX))
                .isEqualTo("cb3fb999999999999ad3ffffff000000000093010203a3616263c3");
        assertThat(text("local e = cmsgpack.pack(1.5, 200, -100, {}, {a=1})" + HEX))
                .isEqualTo("ca3fc00000ccc8d09c90" + "81a16101");
    }

    @Test
    void unpackRoundTripsAndStreams() throws Exception {
        RedisMessage r = eval("local t = cmsgpack.unpack(cmsgpack.pack({a=1,b={1,2,string.rep('x', 70000)}}))"
                + " return #t.b[3] + t.b[2]");
        assertThat(((IntegerRedisMessage) r).value()).isEqualTo(70002);
        assertThat(text("local p = cmsgpack.pack('one', 'two') local o, a = cmsgpack.unpack_limit(p, 1, 0)"
                        + " local o2, b = cmsgpack.unpack_one(p, o) return a .. b .. o2"))
                .isEqualTo("onetwo-1");
        assertThat(text("return cmsgpack.unpack(string.char(0xc1))"))
                .startsWith("ERR user_script:1: Bad data format in input.");
    }

    @Test
    void aCircularTableIsCutSixteenDeep() throws Exception {
        assertThat(text("local a = {y=5} a.x = a local re = cmsgpack.unpack(cmsgpack.pack(a))"
                        + " return tostring(re.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x.x)"))
                .isEqualTo("nil");
        assertThat(text("cmsgpack.pack = function() return 1 end")).contains("Attempt to modify a readonly table");
    }
}
