package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.ExpiryConfig;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.TestClock;
import dev.kvs.server.internal.expiry.ActiveExpiry;
import dev.kvs.server.internal.notify.EventClasses;
import dev.kvs.server.internal.notify.KeyEvents;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.JedisPubSub;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * Golden comparison of keyspace notifications with Redis 7.0.15: the same command script (every write
 * command kvs has, with hits and misses, errors, a MULTI/EXEC, a script, then keys left to expire) runs
 * against a live {@code redis-server} (started here on a free loopback port, in a temporary directory,
 * {@code notify-keyspace-events KEA}, its events collected by a Jedis {@code psubscribe}) and against a
 * kvs primary whose {@link KeyEvents} publish to a recording sink. The events of the script must be
 * the same messages on the same channels in the same order; the {@code expired} events (Redis's active
 * expiry, kvs's {@link ActiveExpiry} rounds after its clock is moved on) the same per key. Skipped where
 * {@code redis-server} 7.0.15 is not installed ({@code .ci/run} installs it).
 */
class KeyspaceEventsGoldenTest {
    private static final String END = "golden-end";

    /** The script: each command runs on both; errors are part of it (they must publish nothing). */
    private static final List<String[]> SCRIPT = List.of(
            // strings
            c("SET", "s1", "v"),
            c("SET", "s1", "v", "NX"),
            c("SET", "s1", "v2", "XX"),
            c("SET", "s2", "v", "XX"),
            c("SET", "s1", "v", "EX", "100"),
            c("SET", "s1", "v", "KEEPTTL"),
            c("SET", "s1", "v", "GET"),
            c("SET", "s1", "v", "PX", "100000", "GET"),
            c("SETNX", "s1", "x"),
            c("SETNX", "s3", "x"),
            c("SETEX", "s4", "100", "v"),
            c("PSETEX", "s5", "100000", "v"),
            c("GETEX", "s4", "PERSIST"),
            c("GETEX", "s4", "PERSIST"),
            c("GETEX", "s4", "EX", "100"),
            c("GETEX", "s4"),
            c("GETEX", "nokey", "EX", "10"),
            c("GETEX", "s5", "PXAT", "1"),
            c("MSET", "m1", "a", "m2", "b"),
            c("MSETNX", "m1", "a", "m3", "c"),
            c("MSETNX", "m4", "a", "m5", "b"),
            c("APPEND", "s1", "x"),
            c("APPEND", "a1", "x"),
            c("GETSET", "s1", "y"),
            c("GETSET", "gs1", "y"),
            c("GETDEL", "s3"),
            c("GETDEL", "nokey"),
            c("SETRANGE", "s1", "2", "zz"),
            c("SETRANGE", "sr", "0", ""),
            c("SETRANGE", "s1", "0", ""),
            c("INCR", "c1"),
            c("DECR", "c1"),
            c("INCRBY", "c1", "5"),
            c("DECRBY", "c1", "2"),
            c("INCRBYFLOAT", "c2", "1.5"),
            c("INCR", "s1"),
            c("SADD", "s1", "x"),
            // expiry
            c("EXPIRE", "c1", "100"),
            c("EXPIRE", "nokey", "100"),
            c("EXPIRE", "c1", "100", "NX"),
            c("PEXPIRE", "c1", "100000", "XX"),
            c("EXPIREAT", "c1", "4102444800"),
            c("PEXPIREAT", "c1", "4102444800000"),
            c("PERSIST", "c1"),
            c("PERSIST", "c1"),
            c("EXPIRE", "c2", "-1"),
            // keyspace
            c("DEL", "m1", "m2", "nokey", "m1"),
            c("DEL", "m1"),
            c("UNLINK", "m4"),
            c("RENAME", "m5", "r1"),
            c("RENAME", "nokey", "r2"),
            c("RENAME", "r1", "r1"),
            c("SET", "r3", "v"),
            c("RENAMENX", "r1", "r3"),
            c("RENAMENX", "r1", "r4"),
            c("COPY", "s1", "cp1"),
            c("COPY", "s1", "cp1"),
            c("COPY", "s1", "cp1", "REPLACE"),
            c("COPY", "nokey", "cp2"),
            // hashes
            c("HSET", "h", "f1", "v1", "f2", "v2"),
            c("HSET", "h", "f1", "v1"),
            c("HMSET", "h", "f3", "v3"),
            c("HSETNX", "h", "f1", "x"),
            c("HSETNX", "h", "f4", "x"),
            c("HDEL", "h", "nofield"),
            c("HDEL", "nokey", "f"),
            c("HDEL", "h", "f1", "f2"),
            c("HINCRBY", "h", "n", "5"),
            c("HINCRBYFLOAT", "h", "fl", "1.5"),
            c("HINCRBY", "h", "f3", "1"),
            c("EXPIRE", "h", "100"),
            c("COPY", "h", "h2"),
            c("RENAME", "h2", "h3"),
            c("HDEL", "h", "f3", "f4", "n", "fl"),
            // sets
            c("SADD", "st", "a", "b", "c"),
            c("SADD", "st", "a"),
            c("SREM", "st", "x"),
            c("SREM", "st", "a"),
            c("SPOP", "st"),
            c("SPOP", "nokey"),
            c("SPOP", "st", "0"),
            c("SADD", "st2", "1", "2", "3"),
            c("SPOP", "st2", "5"),
            c("SADD", "sa", "1", "2", "3"),
            c("SADD", "sb", "2", "3", "4"),
            c("SINTERSTORE", "si", "sa", "sb"),
            c("SUNIONSTORE", "su", "sa", "sb"),
            c("SDIFFSTORE", "sd", "sa", "sb"),
            c("SDIFFSTORE", "sd", "sa", "sa"),
            c("SINTERSTORE", "none", "sa", "nokey"),
            c("SUNIONSTORE", "su", "nokey"),
            c("SMOVE", "sa", "sb", "1"),
            c("SMOVE", "sa", "sb", "2"),
            c("SMOVE", "sa", "sb", "3"),
            c("SMOVE", "nokey", "sb", "x"),
            c("SMOVE", "sb", "sb", "2"),
            c("SREM", "st", "b", "c"),
            // lists
            c("LPUSH", "l", "a", "b", "c"),
            c("RPUSH", "l", "d"),
            c("LPUSHX", "nol", "x"),
            c("RPUSHX", "l", "e"),
            c("LPOP", "l"),
            c("RPOP", "l", "2"),
            c("LPOP", "l", "0"),
            c("LSET", "l", "0", "z"),
            c("LSET", "nokey", "0", "z"),
            c("LINSERT", "l", "BEFORE", "z", "y"),
            c("LINSERT", "l", "AFTER", "nothere", "x"),
            c("LREM", "l", "0", "y"),
            c("LREM", "l", "0", "nothere"),
            c("LTRIM", "l", "0", "-1"),
            c("LTRIM", "l", "0", "0"),
            c("LMOVE", "l", "l2", "LEFT", "RIGHT"),
            c("RPUSH", "l3", "1", "2", "3"),
            c("LMOVE", "l3", "l3", "LEFT", "RIGHT"),
            c("RPOPLPUSH", "l3", "l4"),
            c("LMOVE", "nokey", "l4", "LEFT", "LEFT"),
            c("LTRIM", "l3", "1", "0"),
            c("LPOP", "nokey"),
            c("RPUSH", "l5", "a"),
            c("RPOP", "l5"),
            // a transaction and a script: events as each write applies
            c("MULTI"),
            c("SET", "tx1", "a"),
            c("INCR", "tx2"),
            c("HSET", "tx3", "f", "v"),
            c("DEL", "tx1"),
            c("EXEC"),
            c(
                    "EVAL",
                    "redis.call('SET', KEYS[1], 'x'); redis.call('SADD', KEYS[2], 'm'); return redis.call('DEL', KEYS[1])",
                    "2",
                    "sc1",
                    "sc2"));

    /** Keys left to expire, each of another type; nothing touches them until they have. */
    private static final List<String[]> EXPIRING = List.of(
            c("SET", "e1", "v", "PX", "50"),
            c("HSET", "e2", "f", "v"),
            c("PEXPIRE", "e2", "50"),
            c("SADD", "e3", "m"),
            c("PEXPIRE", "e3", "50"),
            c("RPUSH", "e4", "a"),
            c("PEXPIRE", "e4", "50"),
            // touched after their time: Redis's lazy expiry (or its active one, first) publishes expired
            // before the command's own event
            c("SET", "lz1", "v", "PX", "50"),
            c("HSET", "lz2", "f", "v"),
            c("PEXPIRE", "lz2", "50"));

    /** What touches the keys of {@link #EXPIRING} whose names start with {@code lz} once their time has passed. */
    private static final List<String[]> TOUCHING =
            List.of(c("SET", "lz1", "again"), c("HSET", "lz2", "f", "again"), c("GET", "lz1"));

    @TempDir
    Path dir;

    private Process redis;
    private RespChannel kvs;

    @AfterEach
    void stop() throws InterruptedException {
        if (kvs != null) kvs.close();
        if (redis != null) {
            redis.destroy();
            redis.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void everyWriteCommandPublishesWhatRedisPublishesInItsOrder() throws Exception {
        // a requirement, not a skip: .ci/run and the README's setup install it
        assertThat(RealRedisCluster.available())
                .as("redis-server 7.0.15 on the PATH (.ci/run installs it)")
                .isTrue();
        int port = startRedis();
        List<String> fromRedis = Collections.synchronizedList(new ArrayList<>());
        try (Jedis cmd = new Jedis("127.0.0.1", port, 10_000);
                Jedis sub = new Jedis("127.0.0.1", port, 0)) {
            cmd.sendCommand(Cmd.of("CONFIG"), "SET", "notify-keyspace-events", "KEA");
            AtomicLong subscribed = new AtomicLong();
            JedisPubSub listener = new JedisPubSub() {
                @Override
                public void onPSubscribe(String pattern, int count) {
                    subscribed.set(count);
                }

                @Override
                public void onPMessage(String pattern, String channel, String message) {
                    fromRedis.add(channel + " " + message);
                }
            };
            Thread t = new Thread(() -> sub.psubscribe(listener, "__key*__:*", END), "golden-psubscribe");
            t.setDaemon(true);
            t.start();
            Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> subscribed.get() == 2);

            for (String[] c : SCRIPT) send(cmd, c);
            int scriptEnd = published(cmd, fromRedis, 1);
            for (String[] c : EXPIRING) send(cmd, c);
            // Redis's active expiry finds them (100 ms cycles): wait for its four expired events
            // the keys left alone by active expiry, the lz keys lazily or actively: their PTTLs (themselves
            // lookups that expire a key) say when all have gone
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .until(() -> count(fromRedis, "__keyevent@0__:expired e") == EXPIRING_KEYS
                            && cmd.pttl("lz1") == -2
                            && cmd.pttl("lz2") == -2);
            for (String[] c : TOUCHING) send(cmd, c);
            published(cmd, fromRedis, 2);
            listener.punsubscribe();
            t.join(10_000);

            List<List<String>> fromKvs = runOnKvs();
            assertThat(fromKvs.get(0))
                    .as("events of the script, in order")
                    .containsExactlyElementsOf(without(fromRedis.subList(0, scriptEnd)));
            assertThat(perKey(fromKvs.get(1)))
                    .as("events of the keys left to expire, per key")
                    .isEqualTo(perKey(without(fromRedis.subList(scriptEnd, fromRedis.size()))));
        }
    }

    private static final int EXPIRING_KEYS = 4;

    /**
     * The script on a kvs primary with {@code KEA}, then its clock moved past the TTLs and active expiry
     * run: the events of each part.
     */
    private List<List<String>> runOnKvs() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        KeyEvents keyEvents = new KeyEvents(
                (channel, message) -> events.add(text(channel) + " " + text(message)), EventClasses.parse("KEA"));
        TestClock clock = TestClock.fixedAt(System.currentTimeMillis());
        kvs = RespChannel.withEvents(
                NodeConfig.builder()
                        .store(StoreConfig.builder()
                                .maxEntries(10_000)
                                .maxBytes(64L << 20)
                                .build())
                        .build(),
                clock,
                keyEvents);
        for (String[] c : SCRIPT) answered(c);
        int scriptEnd = events.size();
        for (String[] c : EXPIRING) answered(c);
        clock.advance(Duration.ofSeconds(1));
        for (String[] c : TOUCHING) answered(c);
        ActiveExpiry expiry = new ActiveExpiry(
                kvs.node.store(),
                kvs.node.roles(),
                kvs.node.writes(),
                kvs.node.mode(),
                new AtomicLong(),
                new ExpiryConfig(Duration.ofMillis(100), 10),
                keyEvents);
        while (expiry.round() > 0) {
            // until none is due
        }
        return List.of(
                new ArrayList<>(events.subList(0, scriptEnd)),
                new ArrayList<>(events.subList(scriptEnd, events.size())));
    }

    /** Runs {@code c} on kvs and waits for its reply: a script's runs on the scripting thread. */
    private void answered(String[] c) {
        if (kvs.command(c).isEmpty()) kvs.awaitReply();
    }

    /** Publishes the {@code n}th end mark and waits for it: every event before it has arrived. */
    private static int published(Jedis cmd, List<String> events, int n) {
        cmd.publish(END, Integer.toString(n));
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> count(events, END + " ") == n);
        return events.size();
    }

    private static long count(List<String> events, String prefix) {
        synchronized (events) {
            return events.stream().filter(e -> e.startsWith(prefix)).count();
        }
    }

    private static List<String> without(List<String> events) {
        synchronized (events) {
            return events.stream().filter(e -> !e.startsWith(END + " ")).toList();
        }
    }

    /** Each key's events in order, the key read from the channel (keyspace) or the message (keyevent). */
    private static Map<String, List<String>> perKey(List<String> events) {
        Map<String, List<String>> out = new TreeMap<>();
        for (String e : events) {
            String channel = e.substring(0, e.indexOf(' '));
            String message = e.substring(e.indexOf(' ') + 1);
            String key =
                    channel.startsWith("__keyspace@0__:") ? channel.substring("__keyspace@0__:".length()) : message;
            out.computeIfAbsent(key, k -> new ArrayList<>()).add(e);
        }
        return out;
    }

    private static void send(Jedis j, String[] c) {
        try {
            j.sendCommand(Cmd.of(c[0]), java.util.Arrays.copyOfRange(c, 1, c.length));
        } catch (JedisDataException e) {
            // an error reply: part of the script (it must publish nothing)
        }
    }

    private int startRedis() throws IOException {
        int port;
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = s.getLocalPort();
        }
        redis = new ProcessBuilder(
                        "redis-server",
                        "--port",
                        Integer.toString(port),
                        "--bind",
                        "127.0.0.1",
                        "--save",
                        "",
                        "--appendonly",
                        "no",
                        "--dir",
                        dir.toString(),
                        "--logfile",
                        dir.resolve("redis.log").toString())
                .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        Awaitility.await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
            try (Jedis j = new Jedis("127.0.0.1", port, 1_000)) {
                return j.ping().equals("PONG");
            }
        });
        return port;
    }

    private static String text(byte[] b) {
        return new String(b, StandardCharsets.UTF_8);
    }

    private static String[] c(String... args) {
        return args;
    }

    /** A command by name, for Jedis's {@code sendCommand}. */
    private record Cmd(byte[] raw) implements ProtocolCommand {
        static Cmd of(String name) {
            return new Cmd(name.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public byte[] getRaw() {
            return raw;
        }
    }
}
