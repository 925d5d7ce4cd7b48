package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.Pipeline;
import redis.clients.jedis.Response;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Lua scripts on a primary with a backup (issue 37): a script's writes reach the backup; a script that
 * loops makes other clients' commands answer {@code BUSY} until {@code SCRIPT KILL} stops it, and the
 * node serves on; one that wrote cannot be killed; a script sees no file, socket, class or another
 * script's globals; a connection's command pipelined behind a script runs after it.
 */
class ScriptingTest {
    private static TwoDc dc;

    @BeforeAll
    static void start() {
        dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(1), 0)
                .replication(TwoDc.replication().build())
                .start();
    }

    @AfterAll
    static void stop() {
        if (dc != null) dc.close();
    }

    private static Object eval(Jedis j, String script, String... keysThenArgs) {
        String[] args = new String[keysThenArgs.length + 2];
        args[0] = script;
        args[1] = keysThenArgs.length > 0 && keysThenArgs[0].matches("\\d+") ? keysThenArgs[0] : "0";
        int from = keysThenArgs.length > 0 && keysThenArgs[0].matches("\\d+") ? 1 : 0;
        System.arraycopy(keysThenArgs, from, args, 2, keysThenArgs.length - from);
        return j.sendCommand(
                () -> "EVAL".getBytes(StandardCharsets.US_ASCII),
                java.util.Arrays.copyOf(args, 2 + keysThenArgs.length - from));
    }

    private static String text(Object reply) {
        return new String((byte[]) reply, StandardCharsets.UTF_8);
    }

    @Test
    void aScriptsWritesReachTheBackupTogether() {
        try (Jedis p = JedisAccess.primary(dc);
                Jedis b = JedisAccess.backup(dc)) {
            Object r = eval(
                    p,
                    "redis.call('SET', KEYS[1], ARGV[1]); redis.call('HSET', KEYS[2], 'f', ARGV[2]);"
                            + " redis.call('SADD', KEYS[3], 'a', 'b'); return redis.call('INCRBY', KEYS[4], 5)",
                    "4",
                    "s:str",
                    "s:hash",
                    "s:set",
                    "s:n",
                    "v1",
                    "v2");
            assertThat(r).isEqualTo(5L);
            b.readonly();
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(b.get("s:str")).isEqualTo("v1");
                assertThat(b.hget("s:hash", "f")).isEqualTo("v2");
                assertThat(b.smembers("s:set")).containsExactlyInAnyOrder("a", "b");
                assertThat(b.get("s:n")).isEqualTo("5");
            });
        }
    }

    @Test
    void aCommandPipelinedBehindAScriptRunsAfterIt() {
        try (Jedis p = JedisAccess.primary(dc)) {
            Pipeline pipe = p.pipelined();
            for (int i = 0; i < 20; i++) {
                pipe.sendCommand(
                        () -> "EVAL".getBytes(StandardCharsets.US_ASCII),
                        "return redis.call('INCR', KEYS[1])",
                        "1",
                        "pipe:n");
            }
            Response<String> after = pipe.get("pipe:n");
            pipe.sync();
            assertThat(after.get()).isEqualTo("20");
        }
    }

    @Test
    void aLoopingScriptMakesOthersBusyUntilScriptKillEndsIt() throws Exception {
        try (Jedis p = JedisAccess.primary(dc);
                Jedis other = JedisAccess.primary(dc);
                Jedis looping = JedisAccess.primary(dc)) {
            assertThat(p.configGet("busy-reply-threshold")).containsEntry("busy-reply-threshold", "5000");
            assertThat(p.configSet("lua-time-limit", "100")).isEqualTo("OK");
            try {
                CompletableFuture<Object> loop = CompletableFuture.supplyAsync(() -> {
                    try {
                        return eval(looping, "while true do end");
                    } catch (JedisDataException e) {
                        return e.getMessage();
                    }
                });
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    try {
                        other.ping();
                        return false;
                    } catch (JedisDataException e) {
                        assertThat(e.getMessage())
                                .isEqualTo("BUSY Redis is busy running a script. You can only call SCRIPT KILL or"
                                        + " SHUTDOWN NOSAVE.");
                        return true;
                    }
                });
                assertThatThrownBy(() -> other.get("k")).hasMessageStartingWith("BUSY ");
                assertThat(other.scriptKill()).isEqualTo("OK");
                assertThat((String) loop.get(20, TimeUnit.SECONDS))
                        .startsWith("ERR Script killed by user with SCRIPT KILL... script: ");
                assertThat(other.set("after", "kill")).isEqualTo("OK");
                assertThat(looping.get("after")).isEqualTo("kill");
                assertThatThrownBy(other::scriptKill).hasMessage("NOTBUSY No scripts in execution right now.");
            } finally {
                p.configSet("lua-time-limit", "5000");
            }
        }
    }

    @Test
    void aScriptThatWroteCannotBeKilled() throws Exception {
        try (Jedis p = JedisAccess.primary(dc);
                Jedis other = JedisAccess.primary(dc);
                Jedis looping = JedisAccess.primary(dc)) {
            p.configSet("busy-reply-threshold", "50");
            try {
                // writes, then spins until the other client has seen BUSY and been refused the kill
                CompletableFuture<Object> loop = CompletableFuture.supplyAsync(() -> eval(
                        looping,
                        "redis.call('SET', KEYS[1], 'w'); local i = 0; while i < 10000000 do i = i + 1 end; return i",
                        "1",
                        "unkillable"));
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    try {
                        other.ping();
                        return false;
                    } catch (JedisDataException e) {
                        return e.getMessage().startsWith("BUSY ");
                    }
                });
                assertThatThrownBy(other::scriptKill)
                        .hasMessageStartingWith("UNKILLABLE Sorry the script already"
                                + " executed write commands against the dataset.");
                assertThat(loop.get(120, TimeUnit.SECONDS)).isEqualTo(10000000L);
                assertThat(other.get("unkillable")).isEqualTo("w");
            } finally {
                p.configSet("busy-reply-threshold", "5000");
            }
        }
    }

    /**
     * A script's memory is bounded: one that keeps building a table is stopped past the bound (also when
     * it catches the error with {@code pcall}: it is raised again), and the node serves on.
     */
    @Test
    void aScriptThatHoldsTooMuchIsStoppedAndTheNodeServesOn() {
        try (Jedis p = JedisAccess.primary(dc)) {
            String grows = "local t = {} local i = 0 while true do i = i + 1 t[i] = string.rep('x', 1000) .. i end";
            assertThatThrownBy(() -> eval(p, grows))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("kvs's bound on a script's memory");
            String caught = "local ok, e = pcall(function() " + grows + " end) local n = 0"
                    + " for i = 1, 1000 do n = n + i end return n";
            assertThatThrownBy(() -> eval(p, caught))
                    .isInstanceOf(JedisDataException.class)
                    .hasMessageContaining("kvs's bound on a script's memory");
            assertThat(eval(p, "return redis.call('SET', KEYS[1], 'after')", "1", "mem:after"))
                    .isEqualTo("OK".getBytes(StandardCharsets.UTF_8));
            assertThat(p.get("mem:after")).isEqualTo("after");
        }
    }

    @Test
    void aScriptReachesNoFileSocketClassOrOtherScriptsGlobals() {
        try (Jedis p = JedisAccess.primary(dc)) {
            for (String global : List.of("os", "io", "require", "package", "luajava", "debug", "dofile", "loadfile")) {
                assertThatThrownBy(() -> eval(p, "return " + global + " ~= nil"))
                        .as(global)
                        .hasMessageStartingWith("ERR user_script:1: Script attempted to access nonexistent global"
                                + " variable '" + global + "'");
            }
            assertThatThrownBy(() -> eval(p, "return io.open('/etc/passwd')"))
                    .hasMessageContaining("nonexistent global variable 'io'");
            assertThatThrownBy(() -> eval(p, "return load('return io')().open('/etc/passwd')"))
                    .hasMessageContaining("nonexistent global variable 'io'");
            assertThatThrownBy(() -> eval(p, "return luajava.bindClass('java.net.Socket')"))
                    .hasMessageContaining("nonexistent global variable 'luajava'");
            assertThat(eval(p, "return loadstring(string.dump(function() return 1 end))"))
                    .isNull();
            assertThatThrownBy(() -> eval(p, "leak = 1"))
                    .hasMessageStartingWith("ERR user_script:1: Attempt to modify a readonly table");
            // globals and libraries are read-only, as in Redis 7, and each run has fresh ones
            for (String write : List.of(
                    "rawset(_G, 'leak', 1)",
                    "string.leak = 2",
                    "redis.call = nil",
                    "setmetatable(_G, {})",
                    "getmetatable(_G).__index = {}",
                    "getmetatable('').__index.leak = 1",
                    "_G = {}")) {
                assertThatThrownBy(() -> eval(p, write))
                        .as(write)
                        .hasMessageContaining("Attempt to modify a readonly table");
            }
            assertThat(eval(p, "return string.leak == nil")).isEqualTo(1L);
        }
    }
}
