package dev.kvs.server.replication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.replication.ReplicationMode;
import dev.kvs.testing.cluster.TwoDc;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
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
 * {@code $k3} become keys of that row alone). To add a command add its rows to {@link #rows()}.
 * Expiry rows use absolute times (year 2100) or large TTLs read back with slack, so no row depends on
 * timing; {@code SCAN*} rows compare a full SCAN iteration's key set, as a kvs step returns whole
 * segments rather than about COUNT keys. FLUSHDB/FLUSHALL rows run as the default user (role
 * {@code admin} without {@code users}).
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
     * @param backup the backup's reply for {@link Kind#NODE} rows, or a {@link Kind#READ} row's after
     *     {@code READONLY} where it differs from the primary's, else null
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

        /** A setup step that must be refused (an error reply): a command that fails while queued in MULTI. */
        Row givenRefused(String... command) {
            List<String> step = new ArrayList<>(List.of(REFUSED));
            step.addAll(List.of(command));
            return given(step.toArray(String[]::new));
        }

        @Override
        public String toString() {
            return String.join(" ", command) + (setup.isEmpty() ? "" : " after " + setup);
        }
    }

    /** Marks a setup step of {@link Row#givenRefused}. */
    private static final String REFUSED = "(refused)";

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

    /** An error reply inside an array (an EXEC's), which Jedis returns as an exception object. */
    static Reply errorInArray(String message) {
        return new Reply(
                "-" + message,
                a -> a instanceof JedisDataException e && e.getMessage().equals(message));
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

    /** 2100-01-01T00:00:00Z: an absolute expiry far enough away. */
    static final long AT = 4_102_444_800L;

    static final String AT_S = Long.toString(AT);
    static final String AT_MS = AT + "123";
    /** Not a command: a full SCAN iteration with the row's options, see {@link #send}. */
    static final String SCAN_ALL = "SCAN*";

    static final String WAIT_ON_BACKUP = "ERR WAIT cannot be used with replica instances. Please also note that"
            + " since Redis 4.0 if a replica is configured to be writable (which is not the default) writes to"
            + " replicas are just local and are not propagated."; // (redis 7.0.15)

    /** An integer within {@code slack} below {@code n} (a TTL read back after a write). */
    static Reply about(long n, long slack) {
        return matching("(integer) " + (n - slack) + ".." + n, a -> a instanceof Long l && l <= n && l >= n - slack);
    }

    /** The row's keys ({@code $k}...), in any order: KEYS's and a full SCAN's reply. */
    static Reply keys(String... keys) {
        List<String> want = Stream.of(keys).sorted().toList();
        return matching(
                "the keys " + want + " in any order",
                a -> a instanceof List<?> l
                        && l.stream().allMatch(k -> k instanceof byte[])
                        && l.stream()
                                .map(k -> new String((byte[]) k, StandardCharsets.UTF_8)
                                        .replaceFirst("^compat\\d+:", "\\$"))
                                .sorted()
                                .toList()
                                .equals(want));
    }

    /** INFO text with the given section header and a line matching {@code regex}. */
    static Reply infoWith(String header, String regex) {
        Pattern line = Pattern.compile(regex);
        return matching(
                "INFO text with " + header.strip() + " and " + regex,
                a -> a instanceof byte[] b
                        && new String(b, StandardCharsets.UTF_8).contains(header)
                        && line.matcher(new String(b, StandardCharsets.UTF_8)).find());
    }

    private static String text(Object o) {
        return o instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : null;
    }

    /** {@code [master, offset, [[host, port, offset]...]]} with that many replicas (bulk strings). */
    private static Reply roleOfPrimary(int replicas) {
        return matching(
                "[master, offset, " + replicas + " x [host, port, offset]]",
                a -> a instanceof List<?> l
                        && l.size() == 3
                        && "master".equals(text(l.get(0)))
                        && l.get(1) instanceof Long off
                        && off >= 0
                        && l.get(2) instanceof List<?> rs
                        && rs.size() == replicas
                        && rs.stream()
                                .allMatch(r -> r instanceof List<?> e
                                        && e.size() == 3
                                        && text(e.get(0)) != null
                                        && isDecimal(e.get(1))
                                        && isDecimal(e.get(2))));
    }

    /** {@code [slave, host, port, connected, offset]}: the primary's client address, the link up. */
    private static Reply roleOfBackup() {
        return matching(
                "[slave, 127.0.0.1, <primary's port>, connected, offset]",
                a -> a instanceof List<?> l
                        && l.size() == 5
                        && "slave".equals(text(l.get(0)))
                        && "127.0.0.1".equals(text(l.get(1)))
                        && Long.valueOf(dc.primary().port()).equals(l.get(2))
                        && "connected".equals(text(l.get(3)))
                        && l.get(4) instanceof Long off
                        && off >= 0);
    }

    static final Reply NON_NEGATIVE = matching("a non-negative integer", a -> a instanceof Long l && l >= 0);
    static final String WRONG_INTEGER = "ERR value is not an integer or out of range";

    // sets
    static final Reply WRONGTYPE = error("WRONGTYPE Operation against a key holding the wrong kind of value");

    /** The table: add a command's rows here. */
    static List<Row> rows() {
        return List.of(
                // ---- connection and server commands
                any(c("PING"), status("PONG")),
                any(c("PING", "hello"), bulk("hello")),
                any(c("PING", "a", "b"), wrongArity("ping")),
                // pub/sub (issue 37), node-local: the same on a backup; the multi-connection replies are PubSubTest's
                any(c("PUBLISH", K, "m"), integer(0)),
                any(c("PUBLISH", K), wrongArity("publish")),
                any(c("SPUBLISH", K, "m"), integer(0)),
                any(c("PUBSUB", "CHANNELS", K), array()),
                any(c("PUBSUB", "SHARDCHANNELS", K), array()),
                any(c("PUBSUB", "NUMSUB"), array()),
                any(c("PUBSUB", "SHARDNUMSUB"), array()),
                any(c("PUBSUB", "NUMPAT"), matching("a count", a -> a instanceof Long l && l >= 0)),
                any(c("PUBSUB", "NUMPAT", "x"), wrongArity("pubsub|numpat")),
                any(c("PUBSUB", "foo"), error("ERR unknown subcommand 'foo'. Try PUBSUB HELP.")), // (redis 7.0.15)
                any(c("PUBSUB"), wrongArity("pubsub")),
                any(c("UNSUBSCRIBE"), array(bulk("unsubscribe"), nil(), integer(0))), // (redis 7.0.15)
                any(c("PUNSUBSCRIBE"), array(bulk("punsubscribe"), nil(), integer(0))),
                any(c("SUNSUBSCRIBE"), array(bulk("sunsubscribe"), nil(), integer(0))),
                any(c("RESET"), status("RESET")),
                read(c("EVAL", "return redis.call('publish', KEYS[1], 'm')", "1", K), integer(0)),
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
                // ROLE's whole shape: a Redis without replicas lists none, kvs's primary its backup
                node(c("ROLE"), roleOfPrimary(1), roleOfBackup()).redisSays(roleOfPrimary(0)),

                // FUNCTION: no engine, so no library (redis 7.0.15's replies and error words)
                any(c("FUNCTION", "FLUSH"), ok()),
                any(c("FUNCTION", "FLUSH", "ASYNC"), ok()),
                any(c("FUNCTION", "FLUSH", "sync"), ok()),
                any(c("FUNCTION", "FLUSH", "NOW"), error("ERR FUNCTION FLUSH only supports SYNC|ASYNC option")),
                any(
                        c("FUNCTION", "FLUSH", "SYNC", "ASYNC"),
                        error("ERR unknown subcommand or wrong number of arguments for 'FLUSH'. Try FUNCTION HELP.")),
                any(c("FUNCTION", "LIST"), array()),
                any(c("FUNCTION", "LIST", "WITHCODE", "LIBRARYNAME", "lib*"), array()),
                any(c("FUNCTION", "LIST", "LIBRARYNAME"), error("ERR library name argument was not given")),
                any(c("FUNCTION", "LIST", "WITHCODE", "WITHCODE"), error("ERR Unknown argument WITHCODE")),
                any(c("FUNCTION", "BOGUS"), error("ERR unknown subcommand 'BOGUS'. Try FUNCTION HELP.")),
                any(c("FUNCTION"), wrongArity("function")),

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
                // a long double, as Redis's: not 0.30000000000000004, exact beyond 2^53, finite beyond 1.8e308
                write(c("INCRBYFLOAT", K, "0.2"), bulk("0.3")).given("SET", K, "0.1"),
                write(c("INCRBYFLOAT", K, "1"), bulk("123456789012345679")).given("SET", K, "123456789012345678"),
                write(c("INCRBYFLOAT", K, "0.3333333333333333333333"), bulk("1.33333333333333333"))
                        .given("SET", K, "1"),
                write(c("INCRBYFLOAT", K, "-1e400"), bulk("0")).given("SET", K, "1e400"),
                write(c("INCRBYFLOAT", K, "1e4932"), error("ERR increment would produce NaN or Infinity"))
                        .given("SET", K, "1e4932"),
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
                write(c("SETRANGE", K, "-1", "x"), error("ERR offset is out of range")),

                // ---- expiry: absolute times (year 2100) or large TTLs keep the replies independent of timing
                write(c("SET", K, "v", "EX", "100000"), ok()),
                write(c("SET", K, "v", "PX", "100000000"), ok()),
                write(c("SET", K, "v", "EXAT", AT_S), ok()),
                write(c("SET", K, "v", "PXAT", AT_MS), ok()),
                write(c("SET", K, "v", "KEEPTTL"), ok()),
                write(c("SET", K, "new", "GET"), bulk("old")).given("SET", K, "old"),
                write(c("SET", K, "new", "GET"), nil()),
                write(c("SET", K, "new", "NX", "GET"), bulk("old")).given("SET", K, "old"), // (redis 7.0.15)
                write(c("SET", K, "v", "EX", "0"), error("ERR invalid expire time in 'set' command")),
                write(c("SET", K, "v", "PX", "-5"), error("ERR invalid expire time in 'set' command")),
                write(c("SET", K, "v", "EX", "x"), error(WRONG_INTEGER)),
                write(c("SET", K, "v", "EX"), error("ERR syntax error")),
                write(c("SET", K, "v", "EX", "10", "PX", "10000"), error("ERR syntax error")),
                write(c("SET", K, "v", "KEEPTTL", "EX", "10"), error("ERR syntax error")),
                read(c("TTL", K), about(100_000, 60)).given("SET", K, "v", "EX", "100000"),
                read(c("PTTL", K), about(100_000_000, 60_000)).given("SET", K, "v", "PX", "100000000"),
                read(c("EXPIRETIME", K), integer(AT)).given("SET", K, "v", "EXAT", AT_S),
                read(c("PEXPIRETIME", K), integer(AT * 1000 + 123)).given("SET", K, "v", "PXAT", AT_MS),
                read(c("EXPIRETIME", K), integer(AT))
                        .given("SET", K, "v", "EXAT", AT_S)
                        .given("SET", K, "w", "KEEPTTL"),
                read(c("TTL", K), integer(-1))
                        .given("SET", K, "v", "EXAT", AT_S)
                        .given("SET", K, "w"),
                read(c("GET", K), nil()).given("SET", K, "v").given("PEXPIREAT", K, "1"),
                // a time in the past: the write succeeds and the key is gone (redis 7.0.15)
                read(c("EXISTS", K), integer(0)).given("SET", K, "v", "EXAT", "1"),
                read(c("GET", K), nil()).given("SET", K, "v", "PXAT", "1"),
                write(c("SETEX", K, "100000", "v"), ok()),
                write(c("SETEX", K, "0", "v"), error("ERR invalid expire time in 'setex' command")),
                write(c("SETEX", K, "x", "v"), error(WRONG_INTEGER)),
                read(c("TTL", K), about(100_000, 60)).given("SETEX", K, "100000", "v"),
                write(c("PSETEX", K, "100000000", "v"), ok()),
                write(c("PSETEX", K, "-1", "v"), error("ERR invalid expire time in 'psetex' command")),
                read(c("PTTL", K), about(100_000_000, 60_000)).given("PSETEX", K, "100000000", "v"),
                any(c("SETEX", K, "10"), wrongArity("setex")),
                any(c("PSETEX", K), wrongArity("psetex")),
                write(c("GETEX", K), bulk("v")).given("SET", K, "v"),
                write(c("GETEX", K, "EXAT", AT_S), bulk("v")).given("SET", K, "v"),
                write(c("GETEX", K, "PERSIST"), bulk("v")).given("SET", K, "v", "EX", "100000"),
                write(c("GETEX", K), nil()),
                // (redis 7.0.15) a missing key answers nil before the options are looked at
                write(c("GETEX", K, "EX", "0"), error("ERR invalid expire time in 'getex' command"))
                        .given("SET", K, "v"),
                write(c("GETEX", K, "EX", "10", "PX", "10000"), error("ERR syntax error")),
                write(c("GETEX", K, "PERSIST", "EX", "10"), error("ERR syntax error")),
                write(c("GETEX", K, "EX", "x"), error(WRONG_INTEGER)).given("SET", K, "v"),
                any(c("GETEX"), wrongArity("getex")),
                read(c("EXPIRETIME", K), integer(AT)).given("SET", K, "v").given("GETEX", K, "EXAT", AT_S),
                read(c("TTL", K), integer(-1))
                        .given("SET", K, "v", "EX", "100000")
                        .given("GETEX", K, "PERSIST"),
                write(c("EXPIRE", K, "100000"), integer(1)).given("SET", K, "v"),
                write(c("EXPIRE", K, "100000"), integer(0)),
                write(c("EXPIRE", K, "100000", "NX"), integer(1)).given("SET", K, "v"),
                write(c("EXPIRE", K, "100000", "NX"), integer(0)).given("SET", K, "v", "EX", "100"),
                write(c("EXPIRE", K, "100000", "XX"), integer(0)).given("SET", K, "v"),
                write(c("EXPIRE", K, "100000", "XX"), integer(1)).given("SET", K, "v", "EX", "100"),
                // a key without a TTL has an infinite one for GT and LT
                write(c("EXPIRE", K, "100000", "GT"), integer(0)).given("SET", K, "v"),
                write(c("EXPIRE", K, "100000", "GT"), integer(1)).given("SET", K, "v", "EX", "100"),
                write(c("EXPIRE", K, "100000", "LT"), integer(1)).given("SET", K, "v"),
                write(c("EXPIRE", K, "100000", "LT"), integer(0)).given("SET", K, "v", "EX", "100"),
                write(
                        c("EXPIRE", K, "100", "NX", "XX"),
                        error("ERR NX and XX, GT or LT options at the same time are not compatible")),
                write(
                        c("EXPIRE", K, "100", "GT", "LT"),
                        error("ERR GT and LT options at the same time are not compatible")),
                write(c("EXPIRE", K, "100", "FOO"), error("ERR Unsupported option FOO")),
                write(c("EXPIRE", K, "x"), error(WRONG_INTEGER)),
                // a time in the past deletes the key
                write(c("EXPIRE", K, "-1"), integer(1)).given("SET", K, "v"),
                read(c("EXISTS", K), integer(0)).given("SET", K, "v").given("EXPIRE", K, "0"),
                write(c("EXPIRE", K, "9223372036854775807"), error("ERR invalid expire time in 'expire' command"))
                        .given("SET", K, "v"),
                any(c("EXPIRE", K), wrongArity("expire")),
                write(c("PEXPIRE", K, "100000000"), integer(1)).given("SET", K, "v"),
                write(c("PEXPIRE", K, "100000000", "XX"), integer(0)).given("SET", K, "v"),
                read(c("PTTL", K), about(100_000_000, 60_000))
                        .given("SET", K, "v")
                        .given("PEXPIRE", K, "100000000"),
                write(c("EXPIREAT", K, AT_S), integer(1)).given("SET", K, "v"),
                write(c("EXPIREAT", K, AT_S), integer(0)),
                write(c("EXPIREAT", K, "1"), integer(1)).given("SET", K, "v"),
                write(c("EXPIREAT", K, AT_S, "LT"), integer(0)).given("SET", K, "v", "EXAT", AT_S),
                read(c("EXPIRETIME", K), integer(AT)).given("SET", K, "v").given("EXPIREAT", K, AT_S),
                any(c("EXPIREAT", K), wrongArity("expireat")),
                write(c("PEXPIREAT", K, AT_MS), integer(1)).given("SET", K, "v"),
                write(c("PEXPIREAT", K, AT_MS, "GT"), integer(0)).given("SET", K, "v", "PXAT", AT_MS),
                write(c("PEXPIREAT", K, "x"), error(WRONG_INTEGER)),
                read(c("PEXPIRETIME", K), integer(AT * 1000 + 123))
                        .given("SET", K, "v")
                        .given("PEXPIREAT", K, AT_MS),
                read(c("TTL", K), integer(-2)),
                read(c("TTL", K), integer(-1)).given("SET", K, "v"),
                read(c("PTTL", K), integer(-2)),
                read(c("PTTL", K), integer(-1)).given("SET", K, "v"),
                read(c("EXPIRETIME", K), integer(-2)),
                read(c("EXPIRETIME", K), integer(-1)).given("SET", K, "v"),
                read(c("PEXPIRETIME", K), integer(-2)),
                read(c("PEXPIRETIME", K), integer(-1)).given("SET", K, "v"),
                any(c("TTL"), wrongArity("ttl")),
                any(c("PTTL", K, K2), wrongArity("pttl")),
                any(c("EXPIRETIME"), wrongArity("expiretime")),
                any(c("PEXPIRETIME"), wrongArity("pexpiretime")),
                write(c("PERSIST", K), integer(1)).given("SET", K, "v", "EX", "100000"),
                write(c("PERSIST", K), integer(0)).given("SET", K, "v"),
                write(c("PERSIST", K), integer(0)),
                any(c("PERSIST"), wrongArity("persist")),

                // ---- keyspace: metadata commands, answered by a backup without READONLY
                // a kvs SCAN step returns whole segments: "SCAN*" is a full iteration, its keys sorted
                any(c(SCAN_ALL, "MATCH", "$k*"), keys(K, K2, K3)).given("MSET", K, "1", K2, "2", K3, "3"),
                any(c(SCAN_ALL, "MATCH", "$k*", "COUNT", "1"), keys(K, K2)).given("MSET", K, "1", K2, "2"),
                any(c(SCAN_ALL, "MATCH", "$k?", "TYPE", "string"), keys(K2, K3))
                        .given("MSET", K, "1", K2, "2", K3, "3"),
                any(c(SCAN_ALL, "MATCH", "$k*", "TYPE", "hash"), keys()).given("SET", K, "v"),
                any(c(SCAN_ALL, "MATCH", "$k*"), keys(K2))
                        .given("MSET", K, "1", K2, "2")
                        .given("PEXPIREAT", K, "1"),
                any(
                        c("SCAN", "0"),
                        matching(
                                "[cursor, [keys...]]",
                                a -> a instanceof List<?> l
                                        && l.size() == 2
                                        && isDecimal(l.get(0))
                                        && l.get(1) instanceof List<?>)),
                any(c("SCAN", "x"), error("ERR invalid cursor")),
                any(c("SCAN", "0", "COUNT", "0"), error("ERR syntax error")),
                any(c("SCAN", "0", "COUNT", "x"), error(WRONG_INTEGER)),
                any(c("SCAN", "0", "MATCH"), error("ERR syntax error")),
                any(c("SCAN", "0", "FOO", "bar"), error("ERR syntax error")),
                any(c("SCAN"), wrongArity("scan")),
                any(c("KEYS", "$k*"), keys(K, K2, K3)).given("MSET", K, "1", K2, "2", K3, "3"),
                any(c("KEYS", "$k[23]"), keys(K2, K3)).given("MSET", K, "1", K2, "2", K3, "3"),
                any(c("KEYS", "$k*"), keys()),
                any(c("KEYS"), wrongArity("keys")),
                any(c("RANDOMKEY"), matching("a key", a -> a instanceof byte[] b && b.length > 0))
                        .given("SET", K, "v"),
                any(c("RANDOMKEY", "x"), wrongArity("randomkey")),
                any(c("MEMORY", "USAGE", K), matching("a positive integer", a -> a instanceof Long l && l > 0))
                        .given("SET", K, "v"),
                any(c("MEMORY", "USAGE", K), nil()),
                any(c("MEMORY", "USAGE", K, "SAMPLES", "x"), error(WRONG_INTEGER))
                        .given("SET", K, "v"),
                // kvs has no MEMORY HELP
                any(c("MEMORY", "FOO"), error("ERR unknown subcommand 'FOO'. Try MEMORY USAGE."))
                        .redisSays(error("ERR unknown subcommand 'FOO'. Try MEMORY HELP.")),
                any(c("TIME", "x"), wrongArity("time")),
                any(c("ROLE", "x"), wrongArity("role")),
                any(c("TYPE", K, K2), wrongArity("type")),
                any(c("INFO", "commandstats"), infoWith("# Commandstats\r\n", "\r\ncmdstat_ping:calls=\\d+,usec=")),
                any(c("INFO", "errorstats"), infoWith("# Errorstats\r\n", "\r\nerrorstat_ERR:count=\\d+")),
                any(c("INFO", "cpu"), infoWith("# CPU\r\n", "\r\nused_cpu_sys:[\\d.]+\r\nused_cpu_user:[\\d.]+")),
                // a Redis without replicas: 0 acknowledged; a backup refuses WAIT
                node(c("WAIT", "1", "10000"), integer(1), error(WAIT_ON_BACKUP)).redisSays(integer(0)),
                node(c("WAIT", "0", "0"), NON_NEGATIVE, error(WAIT_ON_BACKUP)),
                // as Redis, a replica refuses WAIT before it parses the arguments
                node(c("WAIT", "x", "0"), error(WRONG_INTEGER), error(WAIT_ON_BACKUP)),
                node(
                        c("WAIT", "0", "x"),
                        error("ERR timeout is not an integer or out of range"),
                        error(WAIT_ON_BACKUP)),
                node(c("WAIT", "0", "-1"), error("ERR timeout is negative"), error(WAIT_ON_BACKUP)),
                any(c("WAIT", "0"), wrongArity("wait")),

                // hashes
                any(c("HSET", K, "a"), wrongArity("hset")),
                any(c("HMSET", K, "a"), wrongArity("hmset")),
                any(c("HSETNX", K, "a"), wrongArity("hsetnx")),
                any(c("HGET", K), wrongArity("hget")),
                any(c("HMGET", K), wrongArity("hmget")),
                any(c("HGETALL"), wrongArity("hgetall")),
                any(c("HKEYS", K, "a"), wrongArity("hkeys")),
                any(c("HVALS"), wrongArity("hvals")),
                any(c("HDEL", K), wrongArity("hdel")),
                any(c("HEXISTS", K), wrongArity("hexists")),
                any(c("HLEN"), wrongArity("hlen")),
                any(c("HSTRLEN", K), wrongArity("hstrlen")),
                any(c("HINCRBY", K, "f"), wrongArity("hincrby")),
                any(c("HINCRBYFLOAT", K, "f"), wrongArity("hincrbyfloat")),
                any(c("HRANDFIELD"), wrongArity("hrandfield")),
                any(c("HSCAN", K), wrongArity("hscan")),
                // an odd field-value list is found when HSET runs: on a backup NOTPRIMARY comes first
                write(c("HSET", K, "a", "1", "b"), wrongArity("hset")),
                write(c("HMSET", K, "a", "1", "b"), wrongArity("hmset")),
                write(c("HSET", K, "a", "1", "b", "2"), integer(2)),
                write(c("HSET", K, "a", "3", "c", "4"), integer(1)).given("HSET", K, "a", "1", "b", "2"),
                write(c("HSET", K, "a", "1"), WRONGTYPE).given("SET", K, "v"),
                write(c("HMSET", K, "a", "1", "b", "2"), ok()),
                write(c("HSETNX", K, "a", "1"), integer(1)),
                write(c("HSETNX", K, "a", "1"), integer(0)).given("HSET", K, "a", "0"),
                write(c("HDEL", K, "a", "b", "zz"), integer(2)).given("HSET", K, "a", "1", "b", "2", "c", "3"),
                write(c("HDEL", K, "a"), integer(0)),
                write(c("HDEL", K, "a"), WRONGTYPE).given("SET", K, "v"),
                write(c("HINCRBY", K, "f", "5"), integer(15)).given("HSET", K, "f", "10"),
                write(c("HINCRBY", K, "f", "-5"), integer(-5)),
                write(c("HINCRBY", K, "f", "1"), error("ERR hash value is not an integer"))
                        .given("HSET", K, "f", "foo"),
                write(c("HINCRBY", K, "f", "x"), error(WRONG_INTEGER)),
                write(c("HINCRBY", K, "f", "1"), error("ERR increment or decrement would overflow"))
                        .given("HSET", K, "f", "9223372036854775807"),
                write(c("HINCRBY", K, "f", "1"), WRONGTYPE).given("SET", K, "v"),
                write(c("HINCRBYFLOAT", K, "f", "0.1"), bulk("10.6")).given("HSET", K, "f", "10.50"),
                write(c("HINCRBYFLOAT", K, "f", "2.0e2"), bulk("5200")).given("HSET", K, "f", "5.0e3"),
                write(c("HINCRBYFLOAT", K, "f", "0.2"), bulk("0.3")).given("HSET", K, "f", "0.1"),
                write(c("HINCRBYFLOAT", K, "f", "1"), error("ERR hash value is not a float"))
                        .given("HSET", K, "f", "foo"),
                write(c("HINCRBYFLOAT", K, "f", "abc"), error("ERR value is not a valid float")),
                write(c("HINCRBYFLOAT", K, "f", "inf"), error("ERR value is NaN or Infinity")),
                read(c("HGET", K, "a"), bulk("1")).given("HSET", K, "a", "1"),
                read(c("HGET", K, "zz"), nil()).given("HSET", K, "a", "1"),
                read(c("HGET", K, "a"), nil()),
                read(c("HGET", K, "a"), WRONGTYPE).given("SET", K, "v"),
                read(c("HMGET", K, "a", "zz", "b"), array(bulk("1"), nil(), bulk("2")))
                        .given("HSET", K, "a", "1", "b", "2"),
                read(c("HMGET", K, "a"), array(nil())),
                read(c("HGETALL", K), array(bulk("a"), bulk("1"))).given("HSET", K, "a", "1"),
                read(c("HGETALL", K), array()),
                read(c("HKEYS", K), array(bulk("a"))).given("HSET", K, "a", "1"),
                read(c("HVALS", K), array(bulk("1"))).given("HSET", K, "a", "1"),
                read(c("HLEN", K), integer(3)).given("HSET", K, "a", "1", "b", "2", "c", "3"),
                read(c("HLEN", K), integer(0)),
                read(c("HSTRLEN", K, "a"), integer(5)).given("HSET", K, "a", "hello"),
                read(c("HSTRLEN", K, "zz"), integer(0)).given("HSET", K, "a", "hello"),
                read(c("HEXISTS", K, "a"), integer(1)).given("HSET", K, "a", "1"),
                read(c("HEXISTS", K, "zz"), integer(0)).given("HSET", K, "a", "1"),
                read(c("HRANDFIELD", K), bulk("a")).given("HSET", K, "a", "1"),
                read(c("HRANDFIELD", K), nil()),
                read(c("HRANDFIELD", K, "5", "WITHVALUES"), array(bulk("a"), bulk("1")))
                        .given("HSET", K, "a", "1"),
                read(c("HRANDFIELD", K, "-3"), array(bulk("a"), bulk("a"), bulk("a")))
                        .given("HSET", K, "a", "1"),
                read(c("HRANDFIELD", K, "0"), array()).given("HSET", K, "a", "1"),
                read(c("HRANDFIELD", K, "3"), array()),
                read(c("HRANDFIELD", K, "1", "foo"), error("ERR syntax error")).given("HSET", K, "a", "1"),
                read(c("HRANDFIELD", K, "-9223372036854770000", "WITHVALUES"), error("ERR value is out of range"))
                        .given("HSET", K, "a", "1"),
                read(c("HRANDFIELD", K, "x"), error(WRONG_INTEGER)),
                read(c("HSCAN", K, "0"), array(bulk("0"), array(bulk("a"), bulk("1"))))
                        .given("HSET", K, "a", "1"),
                read(c("HSCAN", K, "0", "MATCH", "b*", "COUNT", "100"), array(bulk("0"), array(bulk("b"), bulk("2"))))
                        .given("HSET", K, "a", "1", "b", "2"),
                read(c("HSCAN", K, "0"), array(bulk("0"), array())),
                read(c("HSCAN", K, "x"), error("ERR invalid cursor")),
                read(c("HSCAN", K, "0", "COUNT", "0"), error("ERR syntax error"))
                        .given("HSET", K, "a", "1"),
                // (redis 7.0.15) a missing key's empty scan comes before the options are read
                read(c("HSCAN", K, "0", "COUNT", "0"), array(bulk("0"), array())),
                read(c("HSCAN", K, "0"), WRONGTYPE).given("SET", K, "v"),
                // types: TYPE, OBJECT ENCODING, SUBSTR, SCAN's TYPE, COPY, RENAME; WRONGTYPE of string commands
                read(c("TYPE", K), status("hash")).given("HSET", K, "a", "1"),
                read(c("TYPE", K), status("set")).given("SADD", K, "a"),
                read(c("OBJECT", "ENCODING", K), status("listpack")).given("HSET", K, "a", "1"),
                read(c("OBJECT", "ENCODING", K), status("intset")).given("SADD", K, "1", "2"),
                read(c("OBJECT", "ENCODING", K), status("hashtable")).given("SADD", K, "a", "b"),
                read(c("GET", K), WRONGTYPE).given("HSET", K, "a", "1"),
                read(c("GETRANGE", K, "0", "1"), WRONGTYPE).given("HSET", K, "a", "1"),
                read(c("STRLEN", K), WRONGTYPE).given("SADD", K, "a"),
                read(c("MGET", K, K2), array(nil(), bulk("v")))
                        .given("HSET", K, "a", "1")
                        .given("SET", K2, "v"),
                write(c("APPEND", K, "x"), WRONGTYPE).given("HSET", K, "a", "1"),
                write(c("INCR", K), WRONGTYPE).given("SADD", K, "a"),
                write(c("GETSET", K, "x"), WRONGTYPE).given("HSET", K, "a", "1"),
                write(c("GETDEL", K), WRONGTYPE).given("HSET", K, "a", "1"),
                write(c("SET", K, "x", "GET"), WRONGTYPE).given("HSET", K, "a", "1"),
                write(c("SET", K, "x"), ok()).given("HSET", K, "a", "1"),
                write(c("SETNX", K, "x"), integer(0)).given("SADD", K, "a"),
                any(c(SCAN_ALL, "MATCH", "$k*", "TYPE", "hash"), keys(K)).given("HSET", K, "a", "1"),
                read(c("HGET", K2, "a"), bulk("1")).given("HSET", K, "a", "1").given("RENAME", K, K2),
                read(c("HGET", K2, "a"), bulk("1")).given("HSET", K, "a", "1").given("COPY", K, K2),
                read(c("SISMEMBER", K2, "m"), integer(1))
                        .given("SADD", K, "m")
                        .given("SET", K2, "v")
                        .given("COPY", K, K2, "REPLACE"),
                write(c("EXPIRE", K, "100"), integer(1)).given("HSET", K, "a", "1"),
                read(c("TYPE", K), status("string")).given("SET", K, "v"),
                read(c("TYPE", K), status("none")),
                read(c("OBJECT", "ENCODING", K), status("int")).given("SET", K, "123"),
                read(c("OBJECT", "ENCODING", K), status("embstr")).given("SET", K, "v"),
                read(c("OBJECT", "ENCODING", K), status("raw")).given("SET", K, "x".repeat(45)),
                read(c("OBJECT", "ENCODING", K), nil()),
                read(c("OBJECT", "ENCODING"), wrongArity("object|encoding")),
                read(c("OBJECT", "FOO", K), error("ERR unknown subcommand 'FOO'. Try OBJECT HELP.")),
                any(c("OBJECT"), wrongArity("object")),
                read(c("SUBSTR", K, "0", "1"), bulk("he")).given("SET", K, "hello"),
                read(c("SUBSTR", K, "x", "1"), error(WRONG_INTEGER)).given("SET", K, "hello"),
                any(c(SCAN_ALL, "MATCH", "$k*", "TYPE", "string"), keys(K)).given("SET", K, "v"),
                any(c(SCAN_ALL, "MATCH", "$k*", "TYPE", "HASH"), keys()).given("SET", K, "v"),
                write(c("COPY", K, K2), integer(1)).given("SET", K, "v"),
                write(c("COPY", K, K2), integer(0)).given("MSET", K, "v", K2, "w"),
                write(c("COPY", K, K2, "REPLACE"), integer(1)).given("MSET", K, "v", K2, "w"),
                write(c("COPY", K, K2), integer(0)),
                read(c("GET", K2), bulk("v")).given("SET", K, "v").given("COPY", K, K2),
                read(c("GET", K), bulk("v")).given("SET", K, "v").given("COPY", K, K2),
                read(c("EXPIRETIME", K2), integer(AT))
                        .given("SET", K, "v", "EXAT", AT_S)
                        .given("COPY", K, K2),
                write(c("COPY", K, K), error("ERR source and destination objects are the same"))
                        .given("SET", K, "v"),
                write(c("COPY", K, K2, "DB", "x"), error(WRONG_INTEGER)).given("SET", K, "v"),
                // kvs has one db; a default Redis has 16
                write(c("COPY", K, K2, "DB", "1"), errorStarting("ERR DB index is out of range"))
                        .given("SET", K, "v")
                        .redisSays(integer(1)),
                write(c("COPY", K, K2, "FOO"), error("ERR syntax error")).given("SET", K, "v"),
                any(c("COPY", K), wrongArity("copy")),

                // ---- RENAME and FLUSH: replicated writes
                write(c("RENAME", K, K2), ok()).given("SET", K, "v"),
                write(c("RENAME", K, K2), ok()).given("MSET", K, "v", K2, "old"),
                write(c("RENAME", K, K2), error("ERR no such key")),
                write(c("RENAME", K, K), ok()).given("SET", K, "v"),
                read(c("GET", K2), bulk("v")).given("SET", K, "v").given("RENAME", K, K2),
                read(c("EXISTS", K), integer(0)).given("SET", K, "v").given("RENAME", K, K2),
                // the new name keeps the source's expiry
                read(c("EXPIRETIME", K2), integer(AT))
                        .given("SET", K, "v", "EXAT", AT_S)
                        .given("RENAME", K, K2),
                any(c("RENAME", K), wrongArity("rename")),
                write(c("RENAMENX", K, K2), integer(1)).given("SET", K, "v"),
                write(c("RENAMENX", K, K2), integer(0)).given("MSET", K, "v", K2, "w"),
                write(c("RENAMENX", K, K2), error("ERR no such key")),
                read(c("GET", K2), bulk("w")).given("MSET", K, "v", K2, "w").given("RENAMENX", K, K2),
                any(c("RENAMENX", K), wrongArity("renamenx")),
                write(c("FLUSHDB"), ok()),
                write(c("FLUSHDB", "ASYNC"), ok()),
                write(c("FLUSHDB", "FOO"), error("ERR syntax error")),
                write(c("FLUSHALL", "SYNC"), ok()),
                write(c("FLUSHALL"), ok()),
                any(c("DBSIZE"), integer(0)).given("SET", K, "v").given("FLUSHALL"),
                read(c("GET", K), nil()).given("SET", K, "v").given("FLUSHDB"),
                any(c("RANDOMKEY"), nil()).given("FLUSHDB"),

                // sets
                write(c("SADD", K, "a", "b", "a"), integer(2)),
                write(c("SADD", K, "a", "c"), integer(1)).given("SADD", K, "a"),
                write(c("SADD", K, "a"), WRONGTYPE).given("SET", K, "v"),
                any(c("SADD", K), wrongArity("sadd")),
                write(c("SREM", K, "a", "z"), integer(1)).given("SADD", K, "a", "b"),
                write(c("SREM", K, "a"), integer(0)),
                write(c("SREM", K, "a"), WRONGTYPE).given("SET", K, "v"),
                any(c("SREM", K), wrongArity("srem")),
                // a set of integers is an intset in Redis, which replies in order (redis 7.0.15)
                read(c("SMEMBERS", K), array(bulk("1"), bulk("2"), bulk("3"))).given("SADD", K, "3", "1", "2"),
                read(c("SMEMBERS", K), array()),
                read(c("SMEMBERS", K), WRONGTYPE).given("SET", K, "v"),
                any(c("SMEMBERS"), wrongArity("smembers")),
                read(c("SISMEMBER", K, "a"), integer(1)).given("SADD", K, "a"),
                read(c("SISMEMBER", K, "a"), integer(0)),
                any(c("SISMEMBER", K), wrongArity("sismember")),
                read(c("SMISMEMBER", K, "a", "z"), array(integer(1), integer(0)))
                        .given("SADD", K, "a"),
                read(c("SMISMEMBER", K, "a"), array(integer(0))),
                any(c("SMISMEMBER", K), wrongArity("smismember")),
                read(c("SCARD", K), integer(2)).given("SADD", K, "a", "b"),
                read(c("SCARD", K), integer(0)),
                read(c("SCARD", K), WRONGTYPE).given("SET", K, "v"),
                any(c("SCARD"), wrongArity("scard")),
                write(c("SPOP", K), bulk("a")).given("SADD", K, "a"),
                write(c("SPOP", K), nil()),
                write(c("SPOP", K, "5"), array(bulk("a"))).given("SADD", K, "a"),
                write(c("SPOP", K, "2"), array()),
                write(c("SPOP", K, "-1"), error("ERR value is out of range, must be positive")),
                write(c("SPOP", K, "1", "2"), error("ERR syntax error")),
                any(c("SPOP"), wrongArity("spop")),
                read(c("SRANDMEMBER", K), bulk("a")).given("SADD", K, "a"),
                read(c("SRANDMEMBER", K, "-3"), array(bulk("a"), bulk("a"), bulk("a")))
                        .given("SADD", K, "a"),
                read(c("SRANDMEMBER", K, "3"), array(bulk("a"))).given("SADD", K, "a"),
                read(c("SRANDMEMBER", K), nil()),
                read(c("SRANDMEMBER", K, "3"), array()),
                read(c("SRANDMEMBER", K, "x"), error(WRONG_INTEGER)),
                read(c("SRANDMEMBER", K, "1", "2"), error("ERR syntax error")),
                any(c("SRANDMEMBER"), wrongArity("srandmember")),
                write(c("SMOVE", K, K2, "a"), integer(1)).given("SADD", K, "a"),
                write(c("SMOVE", K, K2, "a"), integer(0)),
                write(c("SMOVE", K, K2, "a"), WRONGTYPE).given("SADD", K, "a").given("SET", K2, "v"),
                write(c("SMOVE", K, K2, "a"), integer(0)).given("SET", K2, "v"),
                any(c("SMOVE", K, K2), wrongArity("smove")),
                read(c("SINTER", K, K2), array(bulk("2")))
                        .given("SADD", K, "1", "2")
                        .given("SADD", K2, "2", "3"),
                read(c("SINTER", K, K2), WRONGTYPE).given("SET", K2, "v"),
                any(c("SINTER"), wrongArity("sinter")),
                read(c("SUNION", K, K2), array(bulk("1"), bulk("2"), bulk("3")))
                        .given("SADD", K, "1", "2")
                        .given("SADD", K2, "2", "3"),
                read(c("SUNION", K, K2), array()),
                any(c("SUNION"), wrongArity("sunion")),
                read(c("SDIFF", K, K2), array(bulk("1")))
                        .given("SADD", K, "1", "2")
                        .given("SADD", K2, "2", "3"),
                read(c("SDIFF", K, K2), WRONGTYPE).given("SET", K2, "v"),
                any(c("SDIFF"), wrongArity("sdiff")),
                read(c("SINTERCARD", "2", K, K2), integer(1))
                        .given("SADD", K, "1", "2")
                        .given("SADD", K2, "2", "3"),
                read(c("SINTERCARD", "1", K, "LIMIT", "1"), integer(1)).given("SADD", K, "1", "2"),
                read(c("SINTERCARD", "0", K), error("ERR numkeys should be greater than 0")),
                read(c("SINTERCARD", "2", K), error("ERR Number of keys can't be greater than number of args")),
                read(c("SINTERCARD", "1", K, "LIMIT", "-1"), error("ERR LIMIT can't be negative")),
                any(c("SINTERCARD", "1"), wrongArity("sintercard")),
                write(c("SINTERSTORE", K3, K, K2), integer(1))
                        .given("SADD", K, "1", "2")
                        .given("SADD", K2, "2", "3"),
                write(c("SINTERSTORE", K3, K, K2), integer(0)).given("SET", K3, "v"),
                any(c("SINTERSTORE", K), wrongArity("sinterstore")),
                write(c("SUNIONSTORE", K3, K, K2), integer(3))
                        .given("SADD", K, "1", "2")
                        .given("SADD", K2, "2", "3"),
                any(c("SUNIONSTORE", K), wrongArity("sunionstore")),
                write(c("SDIFFSTORE", K3, K, K2), integer(1))
                        .given("SADD", K, "1", "2")
                        .given("SADD", K2, "2", "3"),
                write(c("SDIFFSTORE", K3, K, K2), WRONGTYPE).given("SET", K2, "v"),
                any(c("SDIFFSTORE", K), wrongArity("sdiffstore")),
                read(c("SSCAN", K, "0"), array(bulk("0"), array(bulk("a")))).given("SADD", K, "a"),
                read(c("SSCAN", K, "0"), array(bulk("0"), array())),
                read(c("SSCAN", K, "x"), error("ERR invalid cursor")),
                read(c("SSCAN", K, "0", "COUNT", "0"), error("ERR syntax error"))
                        .given("SADD", K, "a"),
                any(c("SSCAN", K), wrongArity("sscan")),
                // lists (issue 35): replies and error words of redis 7.0.15, an argument error before the key
                write(c("LPUSH", K, "a", "b"), integer(2)),
                write(c("LPUSH", K, "c"), integer(3)).given("RPUSH", K, "a", "b"),
                read(c("LRANGE", K, "0", "-1"), array(bulk("c"), bulk("b"), bulk("a")))
                        .given("LPUSH", K, "a", "b", "c"),
                write(c("LPUSH", K, "a"), WRONGTYPE).given("SET", K, "v"),
                any(c("LPUSH", K), wrongArity("lpush")),
                write(c("RPUSH", K, "a", "b", "c"), integer(3)),
                write(c("RPUSH", K, "a"), WRONGTYPE).given("HSET", K, "f", "v"),
                any(c("RPUSH", K), wrongArity("rpush")),
                write(c("LPUSHX", K, "a"), integer(0)),
                write(c("LPUSHX", K, "x", "y"), integer(3)).given("RPUSH", K, "a"),
                write(c("LPUSHX", K, "a"), WRONGTYPE).given("SET", K, "v"),
                any(c("LPUSHX", K), wrongArity("lpushx")),
                write(c("RPUSHX", K, "a"), integer(0)),
                write(c("RPUSHX", K, "x"), integer(2)).given("RPUSH", K, "a"),
                write(c("RPUSHX", K, "a"), WRONGTYPE).given("SADD", K, "a"),
                any(c("RPUSHX", K), wrongArity("rpushx")),
                write(c("LPOP", K), bulk("a")).given("RPUSH", K, "a", "b"),
                write(c("LPOP", K), nil()),
                read(c("EXISTS", K), integer(0)).given("RPUSH", K, "a").given("LPOP", K),
                write(c("LPOP", K, "2"), array(bulk("a"), bulk("b"))).given("RPUSH", K, "a", "b", "c"),
                write(c("LPOP", K, "5"), array(bulk("a"))).given("RPUSH", K, "a"),
                write(c("LPOP", K, "0"), array()).given("RPUSH", K, "a"),
                // (redis 7.0.15) a null array
                write(c("LPOP", K, "2"), nil()),
                write(c("LPOP", K, "-1"), error("ERR value is out of range, must be positive")),
                write(c("LPOP", K, "x"), error("ERR value is out of range, must be positive")),
                write(c("LPOP", K), WRONGTYPE).given("SET", K, "v"),
                write(c("LPOP", K, "1", "2"), wrongArity("lpop")),
                any(c("LPOP"), wrongArity("lpop")),
                write(c("RPOP", K), bulk("b")).given("RPUSH", K, "a", "b"),
                write(c("RPOP", K, "2"), array(bulk("c"), bulk("b"))).given("RPUSH", K, "a", "b", "c"),
                write(c("RPOP", K), nil()),
                write(c("RPOP", K, "1", "2"), wrongArity("rpop")),
                any(c("RPOP"), wrongArity("rpop")),
                read(c("LLEN", K), integer(3)).given("RPUSH", K, "a", "b", "c"),
                read(c("LLEN", K), integer(0)),
                read(c("LLEN", K), WRONGTYPE).given("SET", K, "v"),
                any(c("LLEN"), wrongArity("llen")),
                read(c("LRANGE", K, "0", "-1"), array(bulk("a"), bulk("b"), bulk("c")))
                        .given("RPUSH", K, "a", "b", "c"),
                read(c("LRANGE", K, "-2", "100"), array(bulk("b"), bulk("c"))).given("RPUSH", K, "a", "b", "c"),
                read(c("LRANGE", K, "2", "1"), array()).given("RPUSH", K, "a", "b", "c"),
                read(c("LRANGE", K, "-100", "0"), array(bulk("a"))).given("RPUSH", K, "a", "b", "c"),
                read(c("LRANGE", K, "0", "-1"), array()),
                read(c("LRANGE", K, "a", "1"), error(WRONG_INTEGER)),
                read(c("LRANGE", K, "0", "1"), WRONGTYPE).given("SET", K, "v"),
                any(c("LRANGE", K, "0"), wrongArity("lrange")),
                read(c("LINDEX", K, "1"), bulk("b")).given("RPUSH", K, "a", "b", "c"),
                read(c("LINDEX", K, "-1"), bulk("c")).given("RPUSH", K, "a", "b", "c"),
                read(c("LINDEX", K, "3"), nil()).given("RPUSH", K, "a", "b", "c"),
                read(c("LINDEX", K, "-4"), nil()).given("RPUSH", K, "a", "b", "c"),
                // (redis 7.0.15) an absent key answers before the index is read
                read(c("LINDEX", K, "x"), nil()),
                read(c("LINDEX", K, "x"), error(WRONG_INTEGER)).given("RPUSH", K, "a"),
                read(c("LINDEX", K, "0"), WRONGTYPE).given("SET", K, "v"),
                any(c("LINDEX", K), wrongArity("lindex")),
                write(c("LSET", K, "1", "x"), ok()).given("RPUSH", K, "a", "b"),
                read(c("LRANGE", K, "0", "-1"), array(bulk("a"), bulk("x")))
                        .given("RPUSH", K, "a", "b")
                        .given("LSET", K, "-1", "x"),
                write(c("LSET", K, "2", "x"), error("ERR index out of range")).given("RPUSH", K, "a", "b"),
                write(c("LSET", K, "x", "v"), error("ERR no such key")),
                write(c("LSET", K, "x", "v"), error(WRONG_INTEGER)).given("RPUSH", K, "a"),
                write(c("LSET", K, "0", "v"), WRONGTYPE).given("SET", K, "v"),
                any(c("LSET", K, "0"), wrongArity("lset")),
                write(c("LREM", K, "0", "a"), integer(2)).given("RPUSH", K, "a", "b", "a"),
                read(c("LRANGE", K, "0", "-1"), array(bulk("a"), bulk("b"), bulk("c")))
                        .given("RPUSH", K, "a", "b", "a", "c")
                        .given("LREM", K, "-1", "a"),
                write(c("LREM", K, "1", "z"), integer(0)).given("RPUSH", K, "a"),
                write(c("LREM", K, "1", "a"), integer(0)),
                write(c("LREM", K, "x", "a"), error(WRONG_INTEGER)),
                write(c("LREM", K, "1", "a"), WRONGTYPE).given("SET", K, "v"),
                any(c("LREM", K, "1"), wrongArity("lrem")),
                write(c("LTRIM", K, "1", "-1"), ok()).given("RPUSH", K, "a", "b", "c"),
                read(c("LRANGE", K, "0", "-1"), array(bulk("b")))
                        .given("RPUSH", K, "a", "b", "c")
                        .given("LTRIM", K, "1", "-2"),
                read(c("EXISTS", K), integer(0))
                        .given("RPUSH", K, "a", "b", "c")
                        .given("LTRIM", K, "2", "1"),
                write(c("LTRIM", K, "0", "1"), ok()),
                write(c("LTRIM", K, "0", "x"), error(WRONG_INTEGER)),
                write(c("LTRIM", K, "0", "1"), WRONGTYPE).given("SET", K, "v"),
                any(c("LTRIM", K, "0"), wrongArity("ltrim")),
                write(c("LINSERT", K, "BEFORE", "b", "x"), integer(4)).given("RPUSH", K, "a", "b", "c"),
                read(c("LRANGE", K, "0", "-1"), array(bulk("a"), bulk("b"), bulk("c"), bulk("x")))
                        .given("RPUSH", K, "a", "b", "c")
                        .given("LINSERT", K, "after", "c", "x"),
                write(c("LINSERT", K, "BEFORE", "z", "x"), integer(-1)).given("RPUSH", K, "a"),
                write(c("LINSERT", K, "BEFORE", "z", "x"), integer(0)),
                write(c("LINSERT", K, "UP", "z", "x"), error("ERR syntax error")),
                write(c("LINSERT", K, "BEFORE", "z", "x"), WRONGTYPE).given("SET", K, "v"),
                any(c("LINSERT", K, "BEFORE", "z"), wrongArity("linsert")),
                read(c("LPOS", K, "b"), integer(1)).given("RPUSH", K, "a", "b", "c", "b"),
                read(c("LPOS", K, "b", "RANK", "-1"), integer(3)).given("RPUSH", K, "a", "b", "c", "b"),
                read(c("LPOS", K, "b", "COUNT", "0"), array(integer(1), integer(3)))
                        .given("RPUSH", K, "a", "b", "c", "b"),
                read(c("LPOS", K, "b", "RANK", "2", "COUNT", "1"), array(integer(3)))
                        .given("RPUSH", K, "a", "b", "c", "b"),
                read(c("LPOS", K, "b", "RANK", "-1", "COUNT", "0"), array(integer(3), integer(1)))
                        .given("RPUSH", K, "a", "b", "c", "b"),
                read(c("LPOS", K, "c", "MAXLEN", "2"), nil()).given("RPUSH", K, "a", "b", "c", "b"),
                read(c("LPOS", K, "z"), nil()),
                read(c("LPOS", K, "z", "COUNT", "1"), array()),
                read(
                        c("LPOS", K, "b", "RANK", "0"),
                        error("ERR RANK can't be zero: use 1 to start from the first match, 2 from the second"
                                + " ... or use negative to start from the end of the list")),
                read(c("LPOS", K, "b", "RANK", "x"), error(WRONG_INTEGER)),
                read(c("LPOS", K, "b", "COUNT", "-1"), error("ERR COUNT can't be negative")),
                read(c("LPOS", K, "b", "MAXLEN", "x"), error("ERR MAXLEN can't be negative")),
                read(c("LPOS", K, "b", "RANK"), error("ERR syntax error")),
                read(c("LPOS", K, "b"), WRONGTYPE).given("SET", K, "v"),
                any(c("LPOS", K), wrongArity("lpos")),
                write(c("LMOVE", K, K2, "LEFT", "RIGHT"), bulk("a"))
                        .given("RPUSH", K, "a", "b")
                        .given("RPUSH", K2, "x"),
                read(c("LRANGE", K2, "0", "-1"), array(bulk("b"), bulk("x")))
                        .given("RPUSH", K, "a", "b")
                        .given("RPUSH", K2, "x")
                        .given("LMOVE", K, K2, "RIGHT", "LEFT"),
                read(c("LRANGE", K, "0", "-1"), array(bulk("b"), bulk("a")))
                        .given("RPUSH", K, "a", "b")
                        .given("LMOVE", K, K, "left", "right"),
                write(c("LMOVE", K, K2, "LEFT", "RIGHT"), nil()).given("SET", K2, "v"),
                write(c("LMOVE", K, K2, "LEFT", "RIGHT"), WRONGTYPE)
                        .given("RPUSH", K, "a")
                        .given("SET", K2, "v"),
                write(c("LMOVE", K, K2, "UP", "RIGHT"), error("ERR syntax error")),
                any(c("LMOVE", K, K2, "LEFT"), wrongArity("lmove")),
                write(c("RPOPLPUSH", K, K2), bulk("b")).given("RPUSH", K, "a", "b"),
                read(c("LRANGE", K2, "0", "-1"), array(bulk("b")))
                        .given("RPUSH", K, "b")
                        .given("RPOPLPUSH", K, K2),
                write(c("RPOPLPUSH", K, K2), nil()),
                write(c("RPOPLPUSH", K, K2), WRONGTYPE).given("SET", K, "v"),
                any(c("RPOPLPUSH", K), wrongArity("rpoplpush")),
                read(c("TYPE", K), status("list")).given("RPUSH", K, "a"),
                read(c("OBJECT", "ENCODING", K), status("quicklist")).given("RPUSH", K, "a"),
                read(c("GET", K), WRONGTYPE).given("RPUSH", K, "a"),
                read(c("HGET", K, "a"), WRONGTYPE).given("RPUSH", K, "a"),
                write(c("SADD", K, "a"), WRONGTYPE).given("LPUSH", K, "a"),
                any(c(SCAN_ALL, "MATCH", "$k*", "TYPE", "list"), keys(K)).given("RPUSH", K, "a"),
                read(c("LRANGE", K2, "0", "-1"), array(bulk("a"), bulk("b")))
                        .given("RPUSH", K, "a", "b")
                        .given("RENAME", K, K2),
                read(c("LRANGE", K2, "0", "-1"), array(bulk("a"), bulk("b")))
                        .given("RPUSH", K, "a", "b")
                        .given("SET", K2, "v")
                        .given("COPY", K, K2, "REPLACE"),
                write(c("EXPIRE", K, "100"), integer(1)).given("RPUSH", K, "a"),
                write(c("DEL", K), integer(1)).given("RPUSH", K, "a"),
                any(c("MEMORY", "USAGE", K), matching("a positive integer", a -> a instanceof Long l && l > 0))
                        .given("RPUSH", K, "a"),
                // scripting (issue 37), errors byte for byte from redis 7.0.15 (their SHA-1s included); a
                // script is a READ row: on a backup after READONLY it runs there, its writes refused
                read(c("EVAL", "return 1", "0"), integer(1)),
                read(
                        c("EVAL", "return {1,2,{3,'x'},nil,4}", "0"),
                        array(integer(1), integer(2), array(integer(3), bulk("x")))),
                read(c("EVAL", "return 3.99", "0"), integer(3)),
                read(c("EVAL", "return true", "0"), integer(1)),
                read(c("EVAL", "return false", "0"), nil()),
                read(c("EVAL", "return nil", "0"), nil()),
                read(c("EVAL", "return {err='My Error'}", "0"), error("My Error")),
                read(c("EVAL", "return {ok='fine'}", "0"), status("fine")),
                read(c("EVAL", "return redis.error_reply('x')", "0"), error("ERR x")),
                read(c("EVAL", "return redis.error_reply('MY thing')", "0"), error("MY thing")),
                read(c("EVAL", "return redis.status_reply('y')", "0"), status("y")),
                read(c("EVAL", "return ARGV[1]..ARGV[2]..#KEYS", "1", K, "a", "b"), bulk("ab1")),
                read(c("EVAL", "return redis.call('GET', KEYS[1])", "1", K), bulk("v"))
                        .given("SET", K, "v"),
                read(c("EVAL", "return redis.call('GET', KEYS[1])", "1", K), nil()),
                read(c("EVAL", "return redis.call('SET', KEYS[1], ARGV[1])", "1", K, "v"), ok())
                        .onBackup(errorStarting("NOTPRIMARY ")),
                read(
                                c("EVAL", "redis.call('set', KEYS[1], 3.5); return redis.call('get', KEYS[1])", "1", K),
                                bulk("3.5"))
                        .onBackup(errorStarting("NOTPRIMARY ")),
                read(
                        c("EVAL", "return redis.call('nosuch')", "0"),
                        error("ERR Unknown Redis command called from"
                                + " script script: 206396248e12c6e742fd7296250433c8d7343b74, on @user_script:1.")),
                read(
                        c("EVAL", "return redis.pcall('nosuch')", "0"),
                        error("ERR Unknown Redis command called from script")),
                read(
                        c("EVAL", "return redis.call('get')", "0"),
                        error("ERR Wrong number of args calling Redis"
                                + " command from script script: f187dee77f607f7cff00bbabc9df38507582c78d, on"
                                + " @user_script:1.")),
                read(
                        c("EVAL", "return redis.call('eval','return 1', 0)", "0"),
                        error("ERR This Redis command is"
                                + " not allowed from script script: 498b5081e21f7e3039493da0ab415ae08f116868, on"
                                + " @user_script:1.")),
                read(
                        c("EVAL", "return redis.call()", "0"),
                        error("ERR Please specify at least one argument for"
                                + " this redis lib call script: 0a907e1429221a4d85516cab7fd219a82a9439d8, on"
                                + " @user_script:1.")),
                read(
                        c("EVAL", "return redis.call('get',{})", "0"),
                        error("ERR Lua redis lib command arguments"
                                + " must be strings or integers script: 4deb073a545207f215b56dcef5ca825f9f406808, on"
                                + " @user_script:1.")),
                read(
                        c("EVAL", "return redis.pcall('get',{})", "0"),
                        error("ERR Lua redis lib command arguments must be strings or integers")),
                read(
                                c("EVAL", "return redis.call('incr', KEYS[1])", "1", K),
                                error("WRONGTYPE Operation against"
                                        + " a key holding the wrong kind of value script:"
                                        + " 2bab3b661081db58bd2341920e0ba7cf5dc77b25, on @user_script:1."))
                        .given("HSET", K, "a", "1")
                        .onBackup(errorStarting("NOTPRIMARY ")),
                read(c("EVAL", "return redis.pcall('incr', KEYS[1])", "1", K), WRONGTYPE)
                        .given("HSET", K, "a", "1")
                        .onBackup(errorStarting("NOTPRIMARY ")),
                read(
                        c("EVAL", "x=1", "0"),
                        error("ERR user_script:1: Attempt to modify a readonly table script:"
                                + " 7caf6056913504f0508c65faf2dc3f94ff65bcfd, on @user_script:1.")),
                read(
                        c("EVAL", "return x", "0"),
                        error("ERR user_script:1: Script attempted to access nonexistent"
                                + " global variable 'x' script: 03c387736bb5cc009ff35151572cee04677aa374, on"
                                + " @user_script:1.")),
                read(
                        c("EVAL", "return os", "0"),
                        error("ERR user_script:1: Script attempted to access nonexistent"
                                + " global variable 'os' script: f03b5ad6e7d58786b6a5e879efbea4a4408f5c2f, on"
                                + " @user_script:1.")),
                read(
                        c("EVAL", "error('boom')", "0"),
                        error("ERR user_script:1: boom script:"
                                + " 82903a0434f1503e152f89c03c9acd881a0e8150, on @user_script:1.")),
                read(
                        c("EVAL", "error({err='boom2'})", "0"),
                        error("boom2 script: 9778c7b40a37f90541679b1fbc97f3fc3007679a, on @user_script:1.")),
                // LuaJ's compiler words the syntax error itself (redis: "'<eof>' expected near 'error'")
                read(
                        c("EVAL", "return syntax error here", "0"),
                        errorStarting("ERR Error compiling script (new function): user_script:1: ")),
                read(
                        c("EVAL", "return redis.setresp(4)", "0"),
                        error("ERR RESP version must be 2 or 3. script:"
                                + " 921c0a48021d97dfd5884aeea41875972c7804d9, on @user_script:1.")),
                read(c("EVAL", "return redis.sha1hex('')", "0"), bulk("da39a3ee5e6b4b0d3255bfef95601890afd80709")),
                read(c("EVAL", "return tostring(bit.band(0xffffffff, 0xffffffff))", "0"), bulk("-1")),
                read(c("EVAL", "return unpack({1,2})", "0"), integer(1)),
                read(c("EVAL", "return redis.LOG_WARNING", "0"), integer(3)),
                read(c("EVAL", "return 1", "-1"), error("ERR Number of keys can't be negative")),
                read(c("EVAL", "return 1", "2", K), error("ERR Number of keys can't be greater than number of args")),
                read(c("EVAL", "return 1", "x"), error("ERR value is not an integer or out of range")),
                any(c("EVAL", "return 1"), wrongArity("eval")),
                any(c("EVALSHA", "x"), wrongArity("evalsha")),
                any(c("EVAL_RO", "return 1"), wrongArity("eval_ro")),
                any(c("EVALSHA_RO"), wrongArity("evalsha_ro")),
                read(
                        c("EVALSHA", "ffffffffffffffffffffffffffffffffffffffff", "0"),
                        error("NOSCRIPT No matching script. Please use EVAL.")),
                // the backup's script cache is its own: it never saw the SCRIPT LOAD
                read(c("EVALSHA", "b534286061d4b9e4026607613b95c06c06015ae8", "0"), bulk("loaded"))
                        .given("SCRIPT", "LOAD", "return 'loaded'")
                        .onBackup(error("NOSCRIPT No matching script. Please use EVAL.")),
                read(c("EVALSHA_RO", "B534286061D4B9E4026607613B95C06C06015AE8", "0"), bulk("loaded"))
                        .given("SCRIPT", "LOAD", "return 'loaded'")
                        .onBackup(error("NOSCRIPT No matching script. Please use EVAL.")),
                read(c("EVAL_RO", "return redis.call('GET', KEYS[1])", "1", K), bulk("v"))
                        .given("SET", K, "v"),
                read(
                        c("EVAL_RO", "return redis.call('set', KEYS[1], 'v')", "1", K),
                        error("ERR Write commands are"
                                + " not allowed from read-only scripts. script: b0e7bbc2efc136be74cdebcb73a106ad46ea881b,"
                                + " on @user_script:1.")),
                read(
                        c("EVAL", "#!lua flags=no-writes\nreturn redis.call('set', KEYS[1], 'v')", "1", K),
                        error("ERR Write commands are not allowed from read-only scripts. script:"
                                + " 34506ea5aa699a74b84d4fdd3eb056b6880221a7, on @user_script:2.")),
                read(
                        c("EVAL_RO", "#!lua\nreturn 1", "0"),
                        error("ERR Can not execute a script with write flag using *_ro command.")),
                read(c("EVAL_RO", "#!lua flags=no-writes\nreturn 1", "0"), integer(1)),
                // functions (issue 37), replies from redis 7.0.15; the backup's libraries are its own (it never
                // saw the primary's FUNCTION LOAD), so there FCALL finds no function
                read(c("FCALL", "kvs_get", "1", K), bulk("v"))
                        .given("SET", K, "v")
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(c("FCALL_RO", "KVS_RO_GET", "1", K), bulk("v"))
                        .given("SET", K, "v")
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(c("FCALL", "kvs_set", "1", K, "w"), ok())
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(
                                c("FCALL_RO", "kvs_set", "1", K, "w"),
                                error("ERR Can not execute a script with write flag using *_ro command."))
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(
                                c("FCALL", "kvs_ro_set", "1", K),
                                error("ERR Write commands are not allowed from read-only scripts. script: kvs_ro_set,"
                                        + " on @user_function:4."))
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(
                                c("FCALL", "kvs_err", "0"),
                                error("ERR user_function:5: boom script: kvs_err, on @user_function:5."))
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(c("FCALL", "kvs_get", "x"), error("ERR Bad number of keys provided"))
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(c("FCALL", "kvs_get", "-1"), error("ERR Number of keys can't be negative"))
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(c("FCALL", "kvs_get", "3", "a"), error("ERR Number of keys can't be greater than number of args"))
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS)
                        .onBackup(error("ERR Function not found")),
                read(c("FCALL", "no_such_function", "0"), error("ERR Function not found")),
                // accepted as Redis 7 without a debugger: set_repl a no-op (a script replicates as its effects)
                read(c("EVAL", "return redis.set_repl(redis.REPL_ALL)", "0"), nil()),
                read(
                        c("EVAL", "return redis.set_repl(7)", "0"),
                        error(
                                "ERR Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE. script:"
                                        + " cedb2b57227b6373471ce552cec25d44bc1ff54b, on @user_script:1.")),
                read(c("EVAL", "return redis.breakpoint()", "0"), nil()),
                read(c("EVAL", "return redis.debug('x')", "0"), nil()),
                read(c("EVAL", "return bit.tohex(255, -4)", "0"), bulk("00FF")),
                read(c("EVAL", "return bit.bswap(1)", "0"), integer(16777216)),
                read(c("EVAL", "return redis.REDIS_VERSION_NUM", "0"), integer(459264))
                        .redisSays(integer(458767)),
                read(
                        c("EVAL", "return redis.pcall('fcall', 'kvs_get', 0)", "0"),
                        error("ERR This Redis command is not allowed from script")),
                // blocking commands are refused in a script with Redis's words, though kvs has none of them
                read(
                        c("EVAL", "return redis.pcall('blpop', KEYS[1], 0)", "1", K),
                        error("ERR This Redis command is not allowed from script")),
                read(
                        c("EVAL", "return redis.pcall('bzpopmax', KEYS[1], 0)", "1", K),
                        error("ERR This Redis command is not allowed from script")),
                any(c("FCALL", "f"), wrongArity("fcall")),
                any(c("FCALL_RO"), wrongArity("fcall_ro")),
                node(
                                c("FUNCTION", "LIST", "LIBRARYNAME", "kvs*"),
                                matching("kvslib's entry", RedisCompatibilityTest::listsKvslib),
                                array())
                        .given("FUNCTION", "LOAD", "REPLACE", FUNCTIONS),
                any(c("FUNCTION", "LOAD", "return 1"), error("ERR Missing library metadata")),
                any(c("FUNCTION", "LOAD", "#!lua name=x\nreturn 1"), error("ERR No functions registered")),
                any(
                        c("FUNCTION", "LOAD", "#!lua name=x\nredis.call('ping')"),
                        error("ERR Error registering functions: ERR user_function:2: Script attempted to access"
                                + " nonexistent global variable 'call'")),
                any(c("FUNCTION", "LOAD", "#!js name=x\n"), error("ERR Engine 'js' not found")),
                any(c("FUNCTION", "LOAD", "REPLACE", "x", "y"), error("ERR Unknown option given: x")),
                any(c("FUNCTION", "LOAD"), wrongArity("function|load")),
                any(c("FUNCTION", "DELETE", "no_such_library"), error("ERR Library not found")),
                any(c("FUNCTION", "DELETE"), wrongArity("function|delete")),
                any(c("FUNCTION", "RESTORE", "garbage"), error("ERR DUMP payload version or checksum are wrong")),
                any(
                        c("FUNCTION", "RESTORE", "x", "BAD"),
                        error("ERR Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.")),
                any(c("FUNCTION", "DUMP", "x"), wrongArity("function|dump")),
                any(
                        c("FUNCTION", "RESTORE", "x", "FLUSH", "y"),
                        error("ERR unknown subcommand or wrong number of arguments for 'RESTORE'. Try FUNCTION HELP.")),
                any(c("FUNCTION", "RESTORE"), wrongArity("function|restore")),
                any(c("FUNCTION", "STATS", "x"), wrongArity("function|stats")),
                any(c("FUNCTION", "KILL"), error("NOTBUSY No scripts in execution right now.")),
                any(c("FUNCTION", "FLUSH"), ok()),
                read(c("EVAL", "#!lua flags=bad\nreturn 1", "0"), error("ERR Unexpected flag in script shebang: bad")),
                read(c("EVAL", "#!lua foo=bar\nreturn 1", "0"), error("ERR Unknown lua shebang option: foo=bar")),
                read(c("EVAL", "#!python\nreturn 1", "0"), error("ERR Unexpected engine in script shebang: #!python")),
                any(c("SCRIPT", "LOAD", "return 'loaded'"), bulk("b534286061d4b9e4026607613b95c06c06015ae8")),
                any(
                        c("SCRIPT", "LOAD", "return +"),
                        errorStarting("ERR Error compiling script (new function): user_script:1: ")),
                node(
                                c("SCRIPT", "EXISTS", "0fdb70b8794c5d14a6f1280b8227b9380aea0a05", "ffff"),
                                array(integer(1), integer(0)),
                                array(integer(0), integer(0)))
                        .given("SCRIPT", "LOAD", "return 'exists'"),
                any(c("SCRIPT", "FLUSH"), ok()),
                any(c("SCRIPT", "FLUSH", "ASYNC"), ok()),
                any(c("SCRIPT", "FLUSH", "sync"), ok()),
                any(c("SCRIPT", "FLUSH", "x"), error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")),
                any(c("SCRIPT", "FLUSH", "SYNC", "ASYNC"), error("ERR SCRIPT FLUSH only support SYNC|ASYNC option")),
                any(c("SCRIPT", "KILL"), error("NOTBUSY No scripts in execution right now.")),
                any(c("SCRIPT", "KILL", "x"), wrongArity("script|kill")),
                any(c("SCRIPT", "LOAD"), wrongArity("script|load")),
                any(c("SCRIPT", "LOAD", "a", "b"), wrongArity("script|load")),
                any(c("SCRIPT", "EXISTS"), wrongArity("script|exists")),
                any(c("SCRIPT"), wrongArity("script")),
                any(c("SCRIPT", "foo"), error("ERR unknown subcommand 'foo'. Try SCRIPT HELP.")),
                any(
                        c("SCRIPT", "HELP"),
                        arrayStartingWith("SCRIPT <subcommand> [<arg> [value] [opt] ...]." + " Subcommands are:")),
                any(c("CONFIG", "GET", "busy-reply-threshold"), array(bulk("busy-reply-threshold"), bulk("5000"))),
                any(c("CONFIG", "GET", "lua-time-limit"), array(bulk("lua-time-limit"), bulk("5000"))),
                any(c("CONFIG", "SET", "lua-time-limit", "5000"), ok()),
                // notify-keyspace-events: Redis's letters, written back in its own order (redis 7.0.15)
                any(c("CONFIG", "GET", "notify-keyspace-events"), array(bulk("notify-keyspace-events"), bulk(""))),
                any(c("CONFIG", "SET", "notify-keyspace-events", "KEA"), ok()),
                any(c("CONFIG", "GET", "notify-keyspace-events"), array(bulk("notify-keyspace-events"), bulk("AKE"))),
                any(c("CONFIG", "SET", "notify-keyspace-events", "nmlK"), ok()),
                any(c("CONFIG", "GET", "notify-*"), array(bulk("notify-keyspace-events"), bulk("lnKm"))),
                any(c("CONFIG", "SET", "notify-keyspace-events", "$gxE"), ok()),
                any(c("CONFIG", "GET", "notify-keyspace-events"), array(bulk("notify-keyspace-events"), bulk("g$xE"))),
                any(
                        c("CONFIG", "SET", "notify-keyspace-events", "KEAq"),
                        error("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid"
                                + " event class character. Use 'Ag$lshzxeKEtmdn'.")),
                // all or nothing: the bad value leaves the setting, and the other parameter, as they were
                any(
                        c("CONFIG", "SET", "lua-time-limit", "6000", "notify-keyspace-events", "x!"),
                        error("ERR CONFIG SET failed (possibly related to argument 'notify-keyspace-events') - Invalid"
                                + " event class character. Use 'Ag$lshzxeKEtmdn'.")),
                any(c("CONFIG", "GET", "notify-keyspace-events"), array(bulk("notify-keyspace-events"), bulk("g$xE"))),
                any(c("CONFIG", "GET", "lua-time-limit"), array(bulk("lua-time-limit"), bulk("5000"))),
                any(c("CONFIG", "SET", "notify-keyspace-events", ""), ok()),
                any(c("CONFIG", "GET", "notify-keyspace-events"), array(bulk("notify-keyspace-events"), bulk(""))),
                tx(c("EXEC"), array(ok(), bulk("v")))
                        .given("MULTI")
                        .given("EVAL", "return redis.call('SET', KEYS[1], ARGV[1])", "1", K, "v")
                        .given("GET", K),
                tx(c("EXEC"), array(errorInArray("ERR x"), integer(2)))
                        .given("MULTI")
                        .given("EVAL", "return redis.error_reply('x')", "0")
                        .given("EVAL", "return 2", "0"),
                // transactions: MULTI and the queued commands are a row's setup, EXEC or DISCARD its command,
                // so no row leaves its connection in MULTI; the backup's connection saw no MULTI
                tx(c("EXEC"), array(ok(), bulk("v"), status("PONG")))
                        .given("MULTI")
                        .given("SET", K, "v")
                        .given("GET", K)
                        .given("PING"),
                tx(c("EXEC"), array()).given("MULTI"),
                // a command failing when it runs is an error in the array; the others stand
                tx(c("EXEC"), array(ok(), errorInArray("ERR value is not an integer or out of range"), ok()))
                        .given("MULTI")
                        .given("SET", K, "v")
                        .given("INCR", K)
                        .given("SET", K2, "w"),
                tx(c("EXEC"), error(EXECABORT))
                        .given("MULTI")
                        .given("SET", K, "v")
                        .givenRefused("NOSUCHCOMMAND", K)
                        .given("SET", K2, "w"),
                tx(c("EXEC"), error(EXECABORT)).given("MULTI").givenRefused("GET"),
                read(c("EXISTS", K, K2), integer(0))
                        .given("MULTI")
                        .given("SET", K, "v")
                        .givenRefused("GET")
                        .given("SET", K2, "w")
                        .givenRefused("EXEC"),
                // neither a nested MULTI nor WATCH inside MULTI aborts the transaction (redis 7.0.15)
                tx(c("EXEC"), array(ok()))
                        .given("MULTI")
                        .givenRefused("MULTI")
                        .givenRefused("WATCH", K)
                        .given("SET", K, "v"),
                node(c("DISCARD"), ok(), error("ERR DISCARD without MULTI"))
                        .given("MULTI")
                        .given("SET", K, "v"),
                read(c("GET", K), nil()).given("MULTI").given("SET", K, "v").given("DISCARD"),
                any(c("EXEC"), error("ERR EXEC without MULTI")),
                any(c("DISCARD"), error("ERR DISCARD without MULTI")),
                any(c("MULTI", "x"), wrongArity("multi")),
                // EXEC refused is EXECABORT with the reason (redis 7.0.15)
                any(
                        c("EXEC", "x"),
                        error("EXECABORT Transaction discarded because of: wrong number of arguments"
                                + " for 'exec' command")),
                any(c("DISCARD", "x"), wrongArity("discard")),
                any(c("WATCH"), wrongArity("watch")),
                any(c("UNWATCH", "x"), wrongArity("unwatch")),
                any(c("UNWATCH"), ok()),
                // WATCH: a watched key written since (by anyone: here the same connection) makes EXEC nil
                tx(c("EXEC"), nil())
                        .given("SET", K, "1")
                        .given("WATCH", K)
                        .given("SET", K, "2")
                        .given("MULTI")
                        .given("PING"),
                tx(c("EXEC"), array(bulk("1")))
                        .given("SET", K, "1")
                        .given("WATCH", K, K2)
                        .given("MULTI")
                        .given("GET", K),
                tx(c("EXEC"), array(status("PONG")))
                        .given("WATCH", K)
                        .given("SET", K, "2")
                        .given("UNWATCH")
                        .given("MULTI")
                        .given("PING"),
                tx(c("EXEC"), nil())
                        .given("SET", K, "1")
                        .given("WATCH", K)
                        .given("DEL", K)
                        .given("MULTI")
                        .given("PING"),
                tx(c("EXEC"), nil())
                        .given("SET", K, "1")
                        .given("WATCH", K)
                        .given("EXPIRE", K, "100")
                        .given("MULTI")
                        .given("PING"),
                // deleting an absent key, or flushing while it is absent, touches nothing
                tx(c("EXEC"), array(status("PONG")))
                        .given("WATCH", K)
                        .given("DEL", K)
                        .given("FLUSHDB")
                        .given("MULTI")
                        .given("PING"),
                tx(c("EXEC"), nil())
                        .given("SET", K, "1")
                        .given("WATCH", K)
                        .given("FLUSHALL")
                        .given("MULTI")
                        .given("PING"),
                // after EXEC nothing is watched
                tx(c("EXEC"), array(status("PONG")))
                        .given("SET", K, "1")
                        .given("WATCH", K)
                        .given("MULTI")
                        .given("EXEC")
                        .given("SET", K, "3")
                        .given("MULTI")
                        .given("PING"));
    }

    static final String EXECABORT = "EXECABORT Transaction discarded because of previous errors.";

    /** A library for the FCALL rows (its lines count: an error names its line). */
    private static final String FUNCTIONS = "#!lua name=kvslib\n"
            + "redis.register_function('kvs_get', function(k, a) return redis.call('GET', k[1]) end)\n"
            + "redis.register_function('kvs_set', function(k, a) return redis.call('SET', k[1], a[1]) end)\n"
            + "redis.register_function{function_name='kvs_ro_set', callback=function(k, a)"
            + " return redis.call('SET', k[1], 'x') end, flags={'no-writes'}}\n"
            + "redis.register_function('kvs_err', function(k, a) error('boom') end)\n"
            + "redis.register_function{function_name='kvs_ro_get', callback=function(k, a)"
            + " return redis.call('GET', k[1]) end, flags={'no-writes'}}\n";

    /** FUNCTION LIST's reply of kvslib alone: its name, engine and five functions. */
    private static boolean listsKvslib(Object reply) {
        if (!(reply instanceof List<?> libs) || libs.size() != 1 || !(libs.get(0) instanceof List<?> lib)) return false;
        return lib.size() == 6
                && "kvslib".equals(new String((byte[]) lib.get(1), StandardCharsets.UTF_8))
                && "LUA".equals(new String((byte[]) lib.get(3), StandardCharsets.UTF_8))
                && lib.get(5) instanceof List<?> fns
                && fns.size() == 5;
    }

    /** An EXEC row: {@code expected} on the primary; the backup's connection, which saw no MULTI, refuses EXEC. */
    private static Row tx(String[] command, Reply expected) {
        return node(command, expected, error("ERR EXEC without MULTI"));
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
        dc = TwoDc.builder()
                .mode(ReplicationMode.ID_FIRST)
                .link(Duration.ofMillis(1), 0)
                .replication(TwoDc.replication().build())
                .start();
        primary = JedisAccess.primary(dc);
        backupPlain = JedisAccess.backup(dc);
        backupReadonly = JedisAccess.backup(dc);
        primaryAddress = "127.0.0.1:" + dc.primary().port();
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
            if (w.get(0).equals(REFUSED)) {
                assertThat(send(primary, w.subList(1, w.size()), prefix))
                        .as("setup %s", w)
                        .isInstanceOf(Err.class);
                continue;
            }
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
                readonly = row.backup() != null ? row.backup() : row.expected();
            }
            default ->
                plain = readonly =
                        error("NOTPRIMARY " + primaryAddress + " this node is a backup; write to the primary");
        }
        // a metadata command does not wait for the setup's writes to reach the backup (a READ does, and
        // a WRITE is refused): such a row may ask again until the backup has applied them
        boolean eventually = !row.setup().isEmpty() && (row.kind() == Kind.ANY || row.kind() == Kind.NODE);
        expectOnBackup(backupPlain, cmd, prefix, plain, "backup", eventually);
        send(backupReadonly, List.of("READONLY"), prefix); // a READWRITE row may have turned it off
        expectOnBackup(backupReadonly, cmd, prefix, readonly, "backup after READONLY", eventually);
    }

    private static void expectOnBackup(
            Jedis j, List<String> cmd, String prefix, Reply expected, String where, boolean eventually) {
        if (eventually) {
            try {
                Awaitility.await(cmd + " on the " + where)
                        .atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(20))
                        .until(() -> expected.matches(send(j, cmd, prefix)));
            } catch (ConditionTimeoutException e) {
                // the assertion below says what the backup answered
            }
        }
        expect(j, cmd, prefix, expected, where);
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
        if (command.get(0).equals(SCAN_ALL)) return scanAll(j, args);
        byte[] name = command.get(0).getBytes(StandardCharsets.UTF_8);
        ProtocolCommand pc = () -> name;
        try {
            return j.sendCommand(pc, args);
        } catch (JedisDataException e) {
            return new Err(e.getMessage());
        }
    }

    /** SCAN from cursor 0 until it is 0 again: the keys it returned, each once; or the first error. */
    private static Object scanAll(Jedis j, String[] options) {
        ProtocolCommand scan = () -> "SCAN".getBytes(StandardCharsets.UTF_8);
        Set<String> seen = new LinkedHashSet<>();
        List<Object> keys = new ArrayList<>();
        String cursor = "0";
        do {
            String[] args = Stream.concat(Stream.of(cursor), Stream.of(options)).toArray(String[]::new);
            Object r;
            try {
                r = j.sendCommand(scan, args);
            } catch (JedisDataException e) {
                return new Err(e.getMessage());
            }
            List<?> step = (List<?>) r;
            cursor = new String((byte[]) step.get(0), StandardCharsets.UTF_8);
            for (Object k : (List<?>) step.get(1)) {
                if (seen.add(new String((byte[]) k, StandardCharsets.UTF_8))) keys.add(k);
            }
        } while (!cursor.equals("0"));
        return keys;
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
