package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.replication.ReplicationMode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Predicate;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import redis.clients.jedis.Jedis;
import redis.clients.jedis.commands.ProtocolCommand;
import redis.clients.jedis.exceptions.JedisDataException;

/**
 * The compatibility table (issue #14): every command kvs has, driven by a third-party client (Jedis),
 * each reply compared with the reply Redis documents (https://redis.io/commands); where the docs do
 * not spell a reply out, it was taken from a local {@code redis-server} 7.0.15 and is marked "(redis
 * 7.0.15)". Each row runs on the primary, then on the backup without and with {@code READONLY}:
 *
 * <ul>
 *   <li>{@link Kind#ANY}: connection and metadata commands, and errors found before the node's role
 *       is looked at (arity, unknown command): the same reply on the backup;
 *   <li>{@link Kind#READ}: the backup answers {@code -NOTPRIMARY <primary>} without {@code READONLY},
 *       the primary's reply with it (its setup's values have reached the backup: a read of a key
 *       whose value is in flight waits for it, {@code failover.readPolicy: block});
 *   <li>{@link Kind#WRITE}: the backup answers {@code -NOTPRIMARY <primary>} either way;
 *   <li>{@link Kind#NODE}: the reply names the node's role; the row says what the backup answers.
 * </ul>
 *
 * <p>A row is one command, with the writes that set its keys up first ({@code $k}, {@code $k2},
 * {@code $k3} become keys of that row alone). To add a command (expiry, SCAN, RENAME, FLUSHDB...)
 * add its rows to {@link #rows()}.
 *
 * <p>{@code -Dkvs.compat.redis=HOST:PORT} runs the rows' primary part against that Redis instead (a
 * check of the table itself: rows where kvs knowingly differs say what Redis answers).
 */
class RedisCompatibilityTest {
    /** Where a command may run, and so what a backup answers; see the class comment. */
    enum Kind {
        ANY,
        READ,
        WRITE,
        NODE
    }

    /** An expected reply: what Jedis returns for it (bulk and status: bytes; integer: Long; nil: null). */
    record Reply(String text, Predicate<Object> test) {
        boolean matches(Object actual) {
            return test.test(actual);
        }

        @Override
        public String toString() {
            return text;
        }
    }

    /** An error reply as Jedis reports it. */
    record Err(String message) {
        @Override
        public String toString() {
            return "-" + message;
        }
    }

    /**
     * One row of the table.
     *
     * @param setup writes run on the primary first (each must succeed)
     * @param backup the backup's reply for {@link Kind#NODE} rows, else null
     * @param redis what Redis answers where kvs knowingly differs (for {@code -Dkvs.compat.redis}), else
     *     null
     */
    record Row(Kind kind, List<String> command, Reply expected, List<List<String>> setup, Reply backup, Reply redis) {
        Row onBackup(Reply r) {
            return new Row(kind, command, expected, setup, r, redis);
        }

        Row redisSays(Reply r) {
            return new Row(kind, command, expected, setup, backup, r);
        }

        Row given(String... write) {
            List<List<String>> s = new ArrayList<>(setup);
            s.add(List.of(write));
            return new Row(kind, command, expected, s, backup, redis);
        }

        @Override
        public String toString() {
            return String.join(" ", command) + (setup.isEmpty() ? "" : " after " + setup);
        }
    }

    private static final String K = "$k";
    private static final String K2 = "$k2";
    private static final String K3 = "$k3";

    private static String[] c(String... command) {
        return command;
    }

    private static Row row(Kind kind, String[] command, Reply expected) {
        return new Row(kind, List.of(command), expected, List.of(), null, null);
    }

    private static Row any(String[] command, Reply expected) {
        return row(Kind.ANY, command, expected);
    }

    private static Row read(String[] command, Reply expected) {
        return row(Kind.READ, command, expected);
    }

    private static Row write(String[] command, Reply expected) {
        return row(Kind.WRITE, command, expected);
    }

    private static Row node(String[] command, Reply onPrimary, Reply onBackup) {
        return row(Kind.NODE, command, onPrimary).onBackup(onBackup);
    }

    // ---- expected replies

    /** A simple string (Jedis returns its bytes, as for a bulk string). */
    static Reply status(String s) {
        return bulk(s);
    }

    static Reply ok() {
        return status("OK");
    }

    static Reply bulk(String s) {
        byte[] want = s.getBytes(StandardCharsets.UTF_8);
        return new Reply('"' + s + '"', a -> a instanceof byte[] b && Arrays.equals(b, want));
    }

    static Reply nil() {
        return new Reply("(nil)", a -> a == null);
    }

    static Reply integer(long n) {
        return new Reply("(integer) " + n, a -> a instanceof Long l && l == n);
    }

    static Reply array(Reply... items) {
        return new Reply(Arrays.toString(items), a -> {
            if (!(a instanceof List<?> l) || l.size() != items.length) return false;
            for (int i = 0; i < items.length; i++) if (!items[i].matches(l.get(i))) return false;
            return true;
        });
    }

    static Reply error(String message) {
        return new Reply("-" + message, a -> a instanceof Err e && e.message().equals(message));
    }

    static Reply errorStarting(String prefix) {
        return new Reply(
                "-" + prefix + "...", a -> a instanceof Err e && e.message().startsWith(prefix));
    }

    static Reply wrongArity(String command) {
        return error("ERR wrong number of arguments for '" + command + "' command");
    }

    static Reply matching(String description, Predicate<Object> test) {
        return new Reply(description, test);
    }

    private static boolean isDecimal(Object o) {
        return o instanceof byte[] b && new String(b, StandardCharsets.UTF_8).matches("\\d+");
    }

    private static Reply arrayStartingWith(String first) {
        return matching(
                "an array starting with \"" + first + "\"",
                a -> a instanceof List<?> l
                        && !l.isEmpty()
                        && l.get(0) instanceof byte[] b
                        && new String(b, StandardCharsets.UTF_8).equals(first));
    }

    /** HELLO's map as a flat array: its {@code role} entry. */
    private static Reply helloWithRole(String role) {
        return matching("HELLO's map with role " + role, a -> {
            if (!(a instanceof List<?> l)) return false;
            for (int i = 0; i + 1 < l.size(); i += 2) {
                if (l.get(i) instanceof byte[] k
                        && new String(k, StandardCharsets.UTF_8).equals("role")
                        && l.get(i + 1) instanceof byte[] v) {
                    return new String(v, StandardCharsets.UTF_8).equals(role);
                }
            }
            return false;
        });
    }

    static final Reply NON_NEGATIVE = matching("a non-negative integer", a -> a instanceof Long l && l >= 0);
    static final String WRONG_INTEGER = "ERR value is not an integer or out of range";

    /** The table: add a command's rows here. */
    static List<Row> rows() {
        return List.of(
                // ---- connection and server commands
                any(c("PING"), status("PONG")),
                any(c("PING", "hello"), bulk("hello")),
                any(c("PING", "a", "b"), wrongArity("ping")),
                any(c("ECHO", "Hello World!"), bulk("Hello World!")),
                any(c("ECHO"), wrongArity("echo")),
                any(c("SELECT", "0"), ok()),
                any(c("SELECT", "x"), error(WRONG_INTEGER)),
                // Redis with 'databases 1' (kvs has one db) answers this; kvs says why after it
                any(c("SELECT", "1"), errorStarting("ERR DB index is out of range"))
                        .redisSays(ok()), // a default Redis has 16 dbs
                any(c("SELECT"), wrongArity("select")),
                any(c("CLIENT", "SETNAME", "compat-test"), ok()),
                any(
                        c("CLIENT", "SETNAME", "a b"),
                        error("ERR Client names cannot contain spaces, newlines or special characters.")),
                any(c("CLIENT", "SETNAME"), wrongArity("client|setname")), // (redis 7.0.15)
                any(c("CLIENT", "GETNAME"), bulk("compat-test")), // the name a row above set
                any(
                        c("CLIENT", "INFO"),
                        matching(
                                "id=... name=compat-test ...",
                                a -> a instanceof byte[] b
                                        && new String(b, StandardCharsets.UTF_8).startsWith("id=")
                                        && new String(b, StandardCharsets.UTF_8).contains(" name=compat-test "))),
                any(c("CLIENT", "ID"), NON_NEGATIVE),
                any(
                        c("COMMAND", "INFO", "GET"),
                        matching(
                                "[[get, 2, ...]]",
                                a -> a instanceof List<?> l
                                        && l.size() == 1
                                        && l.get(0) instanceof List<?> info
                                        && Arrays.equals((byte[]) info.get(0), "get".getBytes(StandardCharsets.UTF_8))
                                        && Long.valueOf(2).equals(info.get(1)))),
                any(c("CONFIG", "GET", "no-such-parameter"), array()), // (redis 7.0.15)
                any(c("INFO", "no-such-section"), bulk("")), // (redis 7.0.15)
                any(c("ACL", "WHOAMI"), bulk("default")),
                any(c("HELLO", "4"), errorStarting("NOPROTO unsupported protocol version")),
                any(
                        c("AUTH", "secret"),
                        error("ERR AUTH <password> called without any password configured for the default"
                                + " user. Are you sure your configuration is correct?")),
                // (redis 7.0.15) without requirepass the default user takes any password; others do not exist
                any(c("AUTH", "default", "anything"), ok()),
                any(
                        c("AUTH", "nobody", "secret"),
                        error("WRONGPASS invalid username-password pair or user is disabled.")),
                // (redis 7.0.15) the trailing space is Redis's
                any(c("FOOBAR", "x", "y"), error("ERR unknown command 'FOOBAR', with args beginning with: 'x' 'y' ")),
                any(c("COMMAND", "COUNT"), NON_NEGATIVE),
                any(
                        c("TIME"),
                        matching(
                                "[unix seconds, microseconds]",
                                a -> a instanceof List<?> l
                                        && l.size() == 2
                                        && isDecimal(l.get(0))
                                        && isDecimal(l.get(1)))),
                any(c("DBSIZE"), NON_NEGATIVE),
                any(
                        c("INFO", "server"),
                        matching(
                                "INFO text with redis_version",
                                a -> a instanceof byte[] b
                                        && new String(b, StandardCharsets.UTF_8).contains("\r\nredis_version:"))),
                any(
                        c("CONFIG", "GET", "maxmemory"),
                        matching(
                                "[maxmemory, bytes]",
                                a -> a instanceof List<?> l
                                        && l.size() == 2
                                        && Arrays.equals(
                                                (byte[]) l.get(0), "maxmemory".getBytes(StandardCharsets.UTF_8))
                                        && isDecimal(l.get(1)))),
                // Redis Cluster's replies; a Redis without cluster answers an error
                any(c("READONLY"), ok()).redisSays(error("ERR This instance has cluster support disabled")),
                any(c("READWRITE"), ok()).redisSays(error("ERR This instance has cluster support disabled")),
                node(c("ROLE"), arrayStartingWith("master"), arrayStartingWith("slave")),
                node(c("HELLO", "2"), helloWithRole("master"), helloWithRole("replica")),

                // ---- arity, checked before the role: the same on a backup
                any(c("GET"), wrongArity("get")),
                any(c("SET", K), wrongArity("set")),
                any(c("MGET"), wrongArity("mget")),
                any(c("DEL"), wrongArity("del")),
                any(c("EXISTS"), wrongArity("exists")),
                any(c("STRLEN", K, K2), wrongArity("strlen")),
                any(c("INCR"), wrongArity("incr")),
                any(c("DECRBY", K), wrongArity("decrby")),
                any(c("INCRBYFLOAT"), wrongArity("incrbyfloat")),
                any(c("GETSET"), wrongArity("getset")),
                any(c("GETRANGE", K, "0"), wrongArity("getrange")),
                any(c("SETRANGE", K, "0"), wrongArity("setrange")),
                any(c("TYPE"), wrongArity("type")),

                // ---- reads
                read(c("GET", K), bulk("hello")).given("SET", K, "hello"),
                read(c("GET", K), nil()),
                read(c("MGET", K, K2, K3), array(bulk("Hello"), bulk("World"), nil()))
                        .given("MSET", K, "Hello", K2, "World"),
                // a key named twice counts twice
                read(c("EXISTS", K, K, K2), integer(2)).given("SET", K, "v"),
                read(c("STRLEN", K), integer(11)).given("SET", K, "Hello world"),
                read(c("STRLEN", K), integer(0)),
                read(c("GETRANGE", K, "0", "3"), bulk("This")).given("SET", K, "This is a string"),
                read(c("GETRANGE", K, "-3", "-1"), bulk("ing")).given("SET", K, "This is a string"),
                read(c("GETRANGE", K, "0", "-1"), bulk("This is a string")).given("SET", K, "This is a string"),
                read(c("GETRANGE", K, "10", "100"), bulk("string")).given("SET", K, "This is a string"),
                read(c("GETRANGE", K, "0", "-1"), bulk("")),
                read(c("GETRANGE", K, "a", "b"), error(WRONG_INTEGER)).given("SET", K, "v"),
                read(c("TYPE", K), status("string")).given("SET", K, "v"),
                read(c("TYPE", K), status("none")),

                // ---- writes
                write(c("SET", K, "Hello"), ok()),
                write(c("SET", K, "v", "NX"), ok()),
                write(c("SET", K, "new", "NX"), nil()).given("SET", K, "v"),
                write(c("SET", K, "v", "XX"), nil()),
                write(c("SET", K, "new", "XX"), ok()).given("SET", K, "v"),
                write(c("SET", K, "v", "BADOPT"), error("ERR syntax error")),
                write(c("SET", K, "v", "NX", "XX"), error("ERR syntax error")),
                write(c("MSET", K, "Hello", K2, "World"), ok()),
                // MSET's arity (odd arguments) is checked when it runs: on a backup NOTPRIMARY comes first
                write(c("MSET", K, "1", K2), wrongArity("mset")),
                write(c("DEL", K, K2, K3), integer(2)).given("MSET", K, "Hello", K2, "World"),
                write(c("UNLINK", K, K2), integer(1)).given("SET", K, "v"),
                write(c("INCR", K), integer(11)).given("SET", K, "10"),
                write(c("INCR", K), integer(1)),
                write(c("INCR", K), error(WRONG_INTEGER)).given("SET", K, "abc"),
                write(c("INCR", K), error("ERR increment or decrement would overflow"))
                        .given("SET", K, "9223372036854775807"),
                write(c("DECR", K), integer(9)).given("SET", K, "10"),
                write(c("DECR", K), error(WRONG_INTEGER)).given("SET", K, "234293482390480948029348230948"),
                write(c("INCRBY", K, "5"), integer(15)).given("SET", K, "10"),
                write(c("INCRBY", K, "x"), error(WRONG_INTEGER)),
                write(c("DECRBY", K, "3"), integer(7)).given("SET", K, "10"),
                write(c("INCRBYFLOAT", K, "0.1"), bulk("10.6")).given("SET", K, "10.50"),
                write(c("INCRBYFLOAT", K, "2.0e2"), bulk("5200")).given("SET", K, "5.0e3"),
                write(c("INCRBYFLOAT", K, "abc"), error("ERR value is not a valid float")),
                write(c("APPEND", K, " World"), integer(11)).given("SET", K, "Hello"),
                write(c("APPEND", K, "Hello"), integer(5)),
                write(c("GETSET", K, "World"), bulk("Hello")).given("SET", K, "Hello"),
                write(c("GETSET", K, "World"), nil()),
                write(c("GETDEL", K), bulk("Hello")).given("SET", K, "Hello"),
                write(c("GETDEL", K), nil()),
                write(c("SETNX", K, "Hello"), integer(1)),
                write(c("SETNX", K, "World"), integer(0)).given("SET", K, "Hello"),
                write(c("MSETNX", K, "Hello", K2, "there"), integer(1)),
                write(c("MSETNX", K, "new", K2, "world"), integer(0)).given("SET", K2, "there"),
                write(c("SETRANGE", K, "6", "Redis"), integer(11)).given("SET", K, "Hello World"),
                write(c("SETRANGE", K, "6", "Redis"), integer(11)), // zero-padded
                write(c("SETRANGE", K, "-1", "x"), error("ERR offset is out of range")));
    }

    private static TwoDc dc;
    private static Jedis primary;
    private static Jedis backupPlain;
    private static Jedis backupReadonly;
    private static String primaryAddress;
    private static boolean againstRedis;

    @BeforeAll
    static void start() {
        String redis = System.getProperty("kvs.compat.redis");
        if (redis != null && !redis.isBlank()) {
            againstRedis = true;
            int colon = redis.lastIndexOf(':');
            primary = new Jedis(redis.substring(0, colon), Integer.parseInt(redis.substring(colon + 1)), 30_000);
            return;
        }
        // default failover settings: a READONLY read of a key whose value is in flight waits for it
        dc = TwoDc.start(
                ReplicationMode.ID_FIRST,
                Duration.ofMillis(1),
                0,
                TwoDc.replication().build());
        primary = dc.primaryClient();
        backupPlain = dc.backupClient();
        backupReadonly = dc.backupClient();
        primaryAddress = "127.0.0.1:" + dc.primary.port();
    }

    @AfterAll
    static void stop() {
        for (Jedis j : new Jedis[] {primary, backupPlain, backupReadonly}) if (j != null) j.close();
        if (dc != null) dc.close();
    }

    @TestFactory
    Stream<DynamicTest> everyCommandAnswersAsRedisDocuments() {
        List<Row> rows = rows();
        return IntStream.range(0, rows.size())
                .mapToObj(i -> DynamicTest.dynamicTest(i + ": " + rows.get(i), () -> check(i, rows.get(i))));
    }

    private static void check(int index, Row row) {
        String prefix = "compat" + index + ":";
        for (List<String> w : row.setup()) {
            Object r = send(primary, w, prefix);
            assertThat(r).as("setup %s", w).isNotInstanceOf(Err.class);
        }
        List<String> cmd = row.command();
        Reply onPrimary = againstRedis && row.redis() != null ? row.redis() : row.expected();
        expect(primary, cmd, prefix, onPrimary, againstRedis ? "redis" : "primary");
        if (againstRedis) return;

        Reply plain;
        Reply readonly;
        switch (row.kind()) {
            case ANY -> plain = readonly = row.expected();
            case NODE -> plain = readonly = row.backup();
            case READ -> {
                plain = error("NOTPRIMARY " + primaryAddress
                        + " this node is a backup; read from the primary, or send READONLY to read from the backup");
                readonly = row.expected();
            }
            default ->
                plain = readonly =
                        error("NOTPRIMARY " + primaryAddress + " this node is a backup; write to the primary");
        }
        expect(backupPlain, cmd, prefix, plain, "backup");
        send(backupReadonly, List.of("READONLY"), prefix); // a READWRITE row may have turned it off
        expect(backupReadonly, cmd, prefix, readonly, "backup after READONLY");
    }

    private static void expect(Jedis j, List<String> cmd, String prefix, Reply expected, String where) {
        Object actual = send(j, cmd, prefix);
        assertThat(expected.matches(actual))
                .as("%s on the %s: expected %s, got %s", cmd, where, expected, describe(actual))
                .isTrue();
    }

    private static Object send(Jedis j, List<String> command, String prefix) {
        String[] args = command.stream()
                .skip(1)
                .map(a -> a.startsWith("$k") ? prefix + a.substring(1) : a)
                .toArray(String[]::new);
        byte[] name = command.get(0).getBytes(StandardCharsets.UTF_8);
        ProtocolCommand pc = () -> name;
        try {
            return j.sendCommand(pc, args);
        } catch (JedisDataException e) {
            return new Err(e.getMessage());
        }
    }

    private static String describe(Object o) {
        if (o instanceof byte[] b) return '"' + new String(b, StandardCharsets.UTF_8) + '"';
        if (o instanceof List<?> l)
            return l.stream().map(RedisCompatibilityTest::describe).toList().toString();
        if (o == null) return "(nil)";
        if (o instanceof Long) return "(integer) " + o;
        return o.toString();
    }
}
