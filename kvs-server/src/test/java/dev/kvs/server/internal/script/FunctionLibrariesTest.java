package dev.kvs.server.internal.script;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.redis.ErrorRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.IntegerRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.handler.codec.redis.SimpleStringRedisMessage;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code FUNCTION LOAD}'s libraries and {@code FCALL}'s runs, with Redis 7.0.15's words (each checked
 * against redis-server 7.0.15): what a library's code may do at load, collisions, the dump's round trip,
 * and a function's run (its keys and arguments, its calls, its errors' positions).
 */
class FunctionLibrariesTest {
    private final FunctionLibraries libraries = new FunctionLibraries();

    private static byte[] code(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String lib(String name, String body) {
        return "#!lua name=" + name + "\n" + body;
    }

    private String refusal(String text) {
        try {
            libraries.load(code(text), false);
        } catch (ScriptEngine.Refused e) {
            return e.getMessage();
        }
        throw new AssertionError("loaded: " + text);
    }

    @Test
    void aLibraryRegistersItsFunctionsWithTheirFlagsInRedisOrder() throws Exception {
        String name = libraries.load(
                code(lib(
                        "mylib",
                        "redis.register_function('f1', function(k, a) return 1 end)\n"
                                + "redis.register_function{function_name='f2', callback=function(k, a) return 2 end,"
                                + " flags={'allow-stale', 'no-writes'}, description='two'}")),
                false);
        assertThat(name).isEqualTo("mylib");
        FunctionLibrary lib = libraries.libraryOf("F2");
        assertThat(lib.name()).isEqualTo("mylib");
        assertThat(lib.function("f2").flags()).containsExactly("no-writes", "allow-stale");
        assertThat(lib.function("f2").description()).isEqualTo("two");
        assertThat(lib.function("f1").noWrites()).isFalse();
        assertThat(libraries.functionCount()).isEqualTo(2);
        assertThat(libraries.libraryCount()).isEqualTo(1);
    }

    @Test
    void badMetadataIsRefusedWithRedisWords() {
        String fn = "\nredis.register_function('q', function() return 1 end)";
        assertThat(refusal("return 1")).isEqualTo("ERR Missing library metadata");
        assertThat(refusal("#!lua" + fn)).isEqualTo("ERR Library name was not given");
        assertThat(refusal("#!js name=x" + fn)).isEqualTo("ERR Engine 'js' not found");
        assertThat(refusal("#! name=x" + fn)).isEqualTo("ERR Engine '' not found");
        assertThat(refusal("#!lua name=x foo=bar" + fn)).isEqualTo("ERR Invalid metadata value given: foo=bar");
        assertThat(refusal("#!lua name=a-b" + fn)).isEqualTo(FunctionRegistrar.BAD_NAME);
        assertThat(refusal("#!lua name=x name=y" + fn))
                .isEqualTo("ERR Invalid metadata value, name argument was given multiple times");
    }

    @Test
    void aQuotedNameIsReadAsRedisSplitsArguments() throws Exception {
        assertThat(libraries.load(
                        code("#!lua name=\"q1\"\nredis.register_function('f', function() return 1 end)"), false))
                .isEqualTo("q1");
    }

    @Test
    void aLibrarysCodeSeesOnlyRegisterFunctionAndLogAtLoad() {
        assertThat(refusal(lib("x", "return 1"))).isEqualTo("ERR No functions registered");
        assertThat(refusal(lib("x", "redis.call('ping')")))
                .isEqualTo("ERR Error registering functions: ERR user_function:2: Script attempted to access"
                        + " nonexistent global variable 'call'");
        assertThat(refusal(lib("x", "local s = string")))
                .isEqualTo("ERR Error registering functions: ERR user_function:2: Script attempted to access"
                        + " nonexistent global variable 'string'");
        assertThat(refusal(lib("x", "foo = 1")))
                .isEqualTo("ERR Error registering functions: ERR user_function:2: Attempt to modify a readonly table");
        assertThat(refusal(lib(
                        "x",
                        "redis.register_function('ab', function() end)\n"
                                + "redis.register_function('ab', function() end)")))
                .isEqualTo("ERR Error registering functions: ERR Function already exists in the library");
        assertThat(refusal(
                        lib("x", "redis.register_function{function_name='q', callback=function() end, flags={'bad'}}")))
                .isEqualTo("ERR Error registering functions: ERR unknown flag given");
        assertThat(refusal(lib("x", "redis.register_function('q', 'notfn')")))
                .isEqualTo("ERR Error registering functions: ERR second argument to redis.register_function must be a"
                        + " function");
    }

    @Test
    void aLibraryThatLoopsAtLoadIsStoppedByTheLoadTimeout() {
        long start = System.nanoTime();
        assertThat(refusal(lib("x", "while true do end")))
                .isEqualTo("ERR Error registering functions: ERR FUNCTION LOAD timeout");
        assertThat(System.nanoTime() - start).isLessThan(10_000_000_000L);
        assertThat(libraries.libraryCount()).isZero();
    }

    @Test
    void collisionsAreRefusedUnlessReplaceAndNothingChanges() throws Exception {
        libraries.load(code(lib("a", "redis.register_function('f', function() return 1 end)")), false);
        assertThat(refusal(lib("a", "redis.register_function('g', function() return 1 end)")))
                .isEqualTo("ERR Library 'a' already exists");
        assertThat(refusal(lib("b", "redis.register_function('F', function() return 1 end)")))
                .isEqualTo("ERR Function F already exists");
        libraries.load(code(lib("a", "redis.register_function('g', function() return 1 end)")), true);
        assertThat(libraries.libraryOf("f")).isNull();
        assertThat(libraries.libraryOf("g").name()).isEqualTo("a");
        assertThat(libraries.delete("a")).isTrue();
        assertThat(libraries.delete("a")).isFalse();
        assertThat(libraries.codeBytes()).isZero();
    }

    @Test
    void dumpRestoresByPolicyAndABadPayloadIsRefused() throws Exception {
        libraries.load(code(lib("a", "redis.register_function('f', function() return 1 end)")), false);
        libraries.load(code(lib("b", "redis.register_function('g', function() return 2 end)")), false);
        byte[] dump = libraries.dump();
        assertThatThrownBy(() -> libraries.restore(dump, FunctionLibraries.Policy.APPEND))
                .hasMessage("ERR Library a already exists");
        libraries.flush();
        libraries.load(code(lib("c", "redis.register_function('h', function() return 3 end)")), false);
        libraries.restore(dump, FunctionLibraries.Policy.APPEND);
        assertThat(libraries.libraries()).extracting(FunctionLibrary::name).containsExactly("c", "a", "b");
        libraries.restore(dump, FunctionLibraries.Policy.FLUSH);
        assertThat(libraries.libraries()).extracting(FunctionLibrary::name).containsExactly("a", "b");
        byte[] broken = dump.clone();
        broken[8] ^= 1;
        assertThatThrownBy(() -> libraries.restore(broken, FunctionLibraries.Policy.REPLACE))
                .hasMessage("ERR DUMP payload version or checksum are wrong");
        assertThatThrownBy(() -> libraries.restore(code("garbage"), FunctionLibraries.Policy.REPLACE))
                .hasMessage("ERR DUMP payload version or checksum are wrong");
    }

    @Test
    void aFunctionRunsWithItsKeysAndArgumentsAndCallsTheNode() throws Exception {
        libraries.load(
                code(lib(
                        "x",
                        "redis.register_function('q', function(keys, args)\n"
                                + "  return redis.call('echo', keys[1] .. #args)\nend)\n"
                                + "redis.register_function('bad', function(keys, args)\n  local x = nil\n  return x.y\nend)\n"
                                + "redis.register_function('reg', function() return redis.register_function('z', function() end) end)\n"
                                + "redis.register_function('globals', function() return KEYS end)")),
                false);
        List<String> seen = new ArrayList<>();
        ScriptCalls echo = (run, args) -> {
            seen.add(new String(args[0], StandardCharsets.UTF_8) + " from " + run.sha());
            return new SimpleStringRedisMessage(new String(args[1], StandardCharsets.UTF_8));
        };
        try (ScriptEngine engine = new ScriptEngine()) {
            FunctionLibrary lib = libraries.libraryOf("q");
            RedisMessage r = engine.runFunction(lib, "Q", false, bytes("k"), bytes("a", "b"), echo);
            assertThat(((SimpleStringRedisMessage) r).content()).isEqualTo("k2");
            assertThat(seen).containsExactly("echo from q");
            assertThat(((ErrorRedisMessage) engine.runFunction(lib, "bad", false, bytes(), bytes(), echo)).content())
                    .startsWith("ERR user_function:7: attempt to index")
                    .endsWith(" script: bad, on @user_function:7.");
            assertThat(((ErrorRedisMessage) engine.runFunction(lib, "reg", false, bytes(), bytes(), echo)).content())
                    .isEqualTo("ERR user_function:9: attempt to call field 'register_function' (a nil value) script:"
                            + " reg, on @user_function:9.");
            assertThat(((ErrorRedisMessage) engine.runFunction(lib, "globals", false, bytes(), bytes(), echo))
                            .content())
                    .isEqualTo("ERR user_function:10: Script attempted to access nonexistent global variable 'KEYS'"
                            + " script: globals, on @user_function:10.");
            assertThat(engine.runFunction(lib, "nope", false, bytes(), bytes(), echo))
                    .isInstanceOf(ErrorRedisMessage.class);
        }
    }

    @Test
    void aNoWritesFunctionRunsReadOnly() throws Exception {
        libraries.load(
                code(lib(
                        "x",
                        "redis.register_function{function_name='ro', callback=function() return 7 end,"
                                + " flags={'no-writes'}}")),
                false);
        List<Boolean> readOnly = new ArrayList<>();
        try (ScriptEngine engine = new ScriptEngine()) {
            RedisMessage r = engine.runFunction(libraries.libraryOf("ro"), "ro", false, bytes(), bytes(), (run, a) -> {
                readOnly.add(run.readOnly());
                return FullBulkStringRedisMessage.NULL_INSTANCE;
            });
            assertThat(((IntegerRedisMessage) r).value()).isEqualTo(7);
        }
        assertThat(readOnly).isEmpty();
    }

    private static byte[][] bytes(String... s) {
        byte[][] out = new byte[s.length][];
        for (int i = 0; i < s.length; i++) out[i] = s[i].getBytes(StandardCharsets.UTF_8);
        return out;
    }
}
