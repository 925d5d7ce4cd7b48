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

/**
 * A script's {@code cjson}, each expected reply taken from redis-server 7.0.15 (lua-cjson 2.1.0): what an
 * encode writes, what a decode builds, the errors a script can catch, and the settings.
 */
class LuaJsonTest {
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
        return ByteBufUtil.getBytes(((FullBulkStringRedisMessage) r).content()).length == 0
                ? ""
                : new String(ByteBufUtil.getBytes(((FullBulkStringRedisMessage) r).content()), StandardCharsets.UTF_8);
    }

    @Test
    void encodeWritesArraysObjectsAndNumbersAsLuaCjson() throws Exception {
        assertThat(text("return cjson.encode({1,2,'a/b',{x=1.5}, 0.1, 1e20, 123456789012345678})"))
                .isEqualTo("[1,2,\"a\\/b\",{\"x\":1.5},0.1,1e+20,1.2345678901235e+17]");
        assertThat(text("return cjson.encode({})")).isEqualTo("{}");
        assertThat(text("return cjson.encode({[1]='one', one='one'})"))
                .startsWith("{")
                .contains("\"1\":\"one\"");
        assertThat(text("return cjson.encode('a\\n\"b\"')")).isEqualTo("\"a\\n\\\"b\\\"\"");
    }

    @Test
    void decodeBuildsTablesAndNull() throws Exception {
        assertThat(text("local d = cjson.decode('{\"keya\": \"a\", \"keyb\": [1, 2, null]}')"
                        + " return d.keya .. #d.keyb .. tostring(d.keyb[3] == cjson.null)"))
                .isEqualTo("a3true");
        assertThat(text("return cjson.decode('\"\\\\u00e9\"')")).isEqualTo("é");
        RedisMessage n = eval("return cjson.decode('[0.0, -5e3, -1]')[2]");
        assertThat(((IntegerRedisMessage) n).value()).isEqualTo(-5000);
    }

    @Test
    void errorsCarryTheScriptsLineAsRedisGivesThem() throws Exception {
        assertThat(text("return cjson.encode({[1]=1,[20]=2})"))
                .isEqualTo("ERR user_script:1: Cannot serialise table: excessively sparse array script:"
                        + " 17303987ac6a57263cac31c74212431dce49e99c, on @user_script:1.");
        assertThat(text("return cjson.decode(\"[1,\")"))
                .isEqualTo("ERR user_script:1: Expected value but found T_END at character 4 script:"
                        + " 68e80f74b743cb9f7df793cc36d848a9a3023ae0, on @user_script:1.");
    }

    @Test
    void settingsBoundDepthAndInvalidNumbers() throws Exception {
        assertThat(text("cjson.encode_max_depth(1) return tostring(pcall(cjson.encode, {a={1}}))"))
                .isEqualTo("false");
        assertThat(text("cjson.decode_max_depth(1) return tostring(pcall(cjson.decode, '{\"o\": {\"a\": [1]}}'))"))
                .isEqualTo("false");
        assertThat(text("return tostring(pcall(cjson.encode, {n=0/0}))")).isEqualTo("false");
        assertThat(text("cjson.encode_invalid_numbers(true) return tostring(pcall(cjson.encode, {n=0/0}))"))
                .isEqualTo("true");
        assertThat(text("cjson.encode = function() return 1 end")).contains("Attempt to modify a readonly table");
    }
}
