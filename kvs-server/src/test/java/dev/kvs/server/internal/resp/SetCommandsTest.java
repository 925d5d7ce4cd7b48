package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.Member;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import io.netty.handler.codec.redis.ArrayRedisMessage;
import io.netty.handler.codec.redis.FullBulkStringRedisMessage;
import io.netty.handler.codec.redis.RedisMessage;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The set commands over RESP on a primary alone, with Redis 7.0.15's replies and error words (each
 * expected reply below was taken from a local {@code redis-server} 7.0.15), and the distribution of
 * SPOP's and SRANDMEMBER's picks with a seeded generator.
 */
class SetCommandsTest {
    private static final String WRONGTYPE = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    private static final String EMPTY = "*0\r\n";

    private final RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    private String r(String... command) {
        return resp.command(command);
    }

    private static String bulks(String... items) {
        StringBuilder b = new StringBuilder("*").append(items.length).append("\r\n");
        for (String s : items)
            b.append('$').append(s.length()).append("\r\n").append(s).append("\r\n");
        return b.toString();
    }

    @Test
    void addRemoveAndReadsAsRedis() {
        assertThat(r("SADD", "s", "3", "1", "2")).isEqualTo(":3\r\n");
        assertThat(r("SMEMBERS", "s")).as("an intset replies in order").isEqualTo(bulks("1", "2", "3"));
        assertThat(r("SADD", "s", "1", "4", "4")).isEqualTo(":1\r\n");
        assertThat(r("SREM", "s", "1", "9")).isEqualTo(":1\r\n");
        assertThat(r("SREM", "none", "1")).isEqualTo(":0\r\n");
        assertThat(r("SMEMBERS", "s")).isEqualTo(bulks("2", "3", "4"));
        assertThat(r("SCARD", "s")).isEqualTo(":3\r\n");
        assertThat(r("SCARD", "none")).isEqualTo(":0\r\n");
        assertThat(r("SISMEMBER", "s", "2")).isEqualTo(":1\r\n");
        assertThat(r("SISMEMBER", "s", "9")).isEqualTo(":0\r\n");
        assertThat(r("SMISMEMBER", "s", "2", "9")).isEqualTo("*2\r\n:1\r\n:0\r\n");
        assertThat(r("SMISMEMBER", "none", "a")).isEqualTo("*1\r\n:0\r\n");
        assertThat(r("SMEMBERS", "none")).isEqualTo(EMPTY);
        assertThat(r("SREM", "s", "2", "3", "4")).isEqualTo(":3\r\n");
        assertThat(r("EXISTS", "s")).as("the last member gone, the key is").isEqualTo(":0\r\n");
    }

    @Test
    void everySetCommandOnAStringOrAHashAnswersWrongType() {
        r("SET", "str", "v");
        resp.store.putMembers(
                "h".getBytes(),
                ValueType.HASH,
                List.of(new Member("f".getBytes(), "v".getBytes())),
                false,
                () -> TxId.of(1, 1_000_000));
        r("SADD", "s", "a");
        for (String key : new String[] {"str", "h"}) {
            for (String[] c : new String[][] {
                {"SADD", key, "a"},
                {"SREM", key, "a"},
                {"SMEMBERS", key},
                {"SISMEMBER", key, "a"},
                {"SMISMEMBER", key, "a"},
                {"SCARD", key},
                {"SPOP", key},
                {"SPOP", key, "0"},
                {"SRANDMEMBER", key},
                {"SRANDMEMBER", key, "0"},
                {"SSCAN", key, "0"},
                {"SINTER", "s", key},
                {"SINTER", "none", key},
                {"SUNION", key, "s"},
                {"SDIFF", "none", key},
                {"SINTERSTORE", "d", "s", key},
                {"SUNIONSTORE", "d", key},
                {"SDIFFSTORE", "d", "s", key},
                {"SINTERCARD", "2", "s", key},
                {"SMOVE", key, "s", "a"},
                {"SMOVE", "s", key, "a"},
                {"SMOVE", "s", key, "not-in-s"}
            }) {
                assertThat(r(c)).as(String.join(" ", c)).isEqualTo(WRONGTYPE);
            }
        }
        assertThat(r("SMOVE", "none", "str", "a"))
                .as("no source: 0 before the type check")
                .isEqualTo(":0\r\n");
        assertThat(r("SMEMBERS", "s")).isEqualTo(bulks("a"));
        assertThat(r("GET", "str")).isEqualTo("$1\r\nv\r\n");
        assertThat(r("EXISTS", "d")).isEqualTo(":0\r\n");
    }

    @Test
    void algebraAndItsStoreFormsAsRedis() {
        r("SADD", "a", "1", "2", "3", "4");
        r("SADD", "b", "3", "4", "5");
        r("SADD", "c", "4", "x");
        assertThat(r("SINTER", "a", "b")).isEqualTo(bulks("3", "4"));
        assertThat(r("SINTER", "a", "b", "c")).isEqualTo(bulks("4"));
        assertThat(r("SINTER", "a", "none")).isEqualTo(EMPTY);
        assertThat(r("SUNION", "a", "b", "none")).isEqualTo(bulks("1", "2", "3", "4", "5"));
        assertThat(r("SDIFF", "a", "b")).isEqualTo(bulks("1", "2"));
        assertThat(r("SDIFF", "none", "a")).isEqualTo(EMPTY);
        assertThat(r("SINTERCARD", "2", "a", "b")).isEqualTo(":2\r\n");
        assertThat(r("SINTERCARD", "2", "a", "b", "LIMIT", "1")).isEqualTo(":1\r\n");
        assertThat(r("SINTERCARD", "2", "a", "b", "limit", "0")).isEqualTo(":2\r\n");
        r("SET", "dst", "a string with a TTL", "EX", "1000");
        assertThat(r("SUNIONSTORE", "dst", "a", "b")).isEqualTo(":5\r\n");
        assertThat(r("TTL", "dst")).as("the destination loses its TTL").isEqualTo(":-1\r\n");
        assertThat(r("SMEMBERS", "dst")).isEqualTo(bulks("1", "2", "3", "4", "5"));
        assertThat(r("SINTERSTORE", "a", "a", "b"))
                .as("a source as destination")
                .isEqualTo(":2\r\n");
        assertThat(r("SMEMBERS", "a")).isEqualTo(bulks("3", "4"));
        assertThat(r("SDIFFSTORE", "d", "a", "b")).isEqualTo(":0\r\n");
        assertThat(r("EXISTS", "d")).isEqualTo(":0\r\n");
        assertThat(r("SINTERSTORE", "dst", "a", "none"))
                .as("an empty result deletes")
                .isEqualTo(":0\r\n");
        assertThat(r("EXISTS", "dst")).isEqualTo(":0\r\n");
    }

    @Test
    void smoveMovesOneMemberAsRedis() {
        r("SADD", "src", "a", "b");
        r("SADD", "dst", "b");
        assertThat(r("SMOVE", "src", "dst", "a")).isEqualTo(":1\r\n");
        assertThat(r("SMOVE", "src", "dst", "a")).isEqualTo(":0\r\n");
        assertThat(r("SMOVE", "src", "dst", "b"))
                .as("already in the destination")
                .isEqualTo(":1\r\n");
        assertThat(r("EXISTS", "src")).isEqualTo(":0\r\n");
        assertThat(r("SMEMBERS", "dst")).isIn(bulks("a", "b"), bulks("b", "a"));
        assertThat(r("SMOVE", "dst", "dst", "a")).isEqualTo(":1\r\n");
        assertThat(r("SMOVE", "dst", "dst", "z")).isEqualTo(":0\r\n");
        assertThat(r("SMOVE", "dst", "new", "a")).isEqualTo(":1\r\n");
        assertThat(r("SMEMBERS", "new")).isEqualTo(bulks("a"));
    }

    @Test
    void popRandomAndScanAsRedis() {
        assertThat(r("SPOP", "none")).isEqualTo("$-1\r\n");
        assertThat(r("SPOP", "none", "2")).isEqualTo(EMPTY);
        assertThat(r("SRANDMEMBER", "none")).isEqualTo("$-1\r\n");
        assertThat(r("SRANDMEMBER", "none", "-3")).isEqualTo(EMPTY);
        assertThat(r("SSCAN", "none", "0")).isEqualTo("*2\r\n$1\r\n0\r\n*0\r\n");
        assertThat(r("SSCAN", "none", "0", "COUNT", "0"))
                .as("no options read for no key")
                .isEqualTo("*2\r\n$1\r\n0\r\n*0\r\n");
        r("SADD", "s", "a");
        assertThat(r("SRANDMEMBER", "s", "-5")).isEqualTo(bulks("a", "a", "a", "a", "a"));
        assertThat(r("SRANDMEMBER", "s", "5")).isEqualTo(bulks("a"));
        assertThat(r("SRANDMEMBER", "s")).isEqualTo("$1\r\na\r\n");
        assertThat(r("SPOP", "s", "0")).isEqualTo(EMPTY);
        assertThat(r("SSCAN", "s", "0", "MATCH", "a*")).isEqualTo("*2\r\n$1\r\n0\r\n" + bulks("a"));
        assertThat(r("SSCAN", "s", "0", "MATCH", "b*")).isEqualTo("*2\r\n$1\r\n0\r\n*0\r\n");
        assertThat(r("SPOP", "s")).isEqualTo("$1\r\na\r\n");
        assertThat(r("EXISTS", "s")).isEqualTo(":0\r\n");
        r("SADD", "s", "a", "b", "c");
        assertThat(r("SPOP", "s", "5")).startsWith("*3\r\n");
        assertThat(r("EXISTS", "s")).isEqualTo(":0\r\n");
    }

    @Test
    void argumentErrorsWithRedisWords() {
        r("SADD", "s", "a");
        assertThat(r("SPOP", "s", "x")).isEqualTo("-ERR value is out of range, must be positive\r\n");
        assertThat(r("SPOP", "s", "-1")).isEqualTo("-ERR value is out of range, must be positive\r\n");
        assertThat(r("SPOP", "s", "1", "2")).isEqualTo("-ERR syntax error\r\n");
        assertThat(r("SRANDMEMBER", "s", "x")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(r("SRANDMEMBER", "s", "-9223372036854775808"))
                .isEqualTo("-ERR value is out of range, value must between -9223372036854775807 and "
                        + "9223372036854775807\r\n");
        assertThat(r("SRANDMEMBER", "s", "1", "2")).isEqualTo("-ERR syntax error\r\n");
        assertThat(r("SINTERCARD", "0", "a")).isEqualTo("-ERR numkeys should be greater than 0\r\n");
        assertThat(r("SINTERCARD", "x", "a")).isEqualTo("-ERR numkeys should be greater than 0\r\n");
        assertThat(r("SINTERCARD", "2", "a")).isEqualTo("-ERR Number of keys can't be greater than number of args\r\n");
        assertThat(r("SINTERCARD", "1", "a", "LIMIT", "-1")).isEqualTo("-ERR LIMIT can't be negative\r\n");
        assertThat(r("SINTERCARD", "1", "a", "LIMIT", "x")).isEqualTo("-ERR LIMIT can't be negative\r\n");
        assertThat(r("SINTERCARD", "1", "a", "FOO")).isEqualTo("-ERR syntax error\r\n");
        assertThat(r("SINTERCARD", "1", "a", "LIMIT")).isEqualTo("-ERR syntax error\r\n");
        assertThat(r("SSCAN", "s", "x")).isEqualTo("-ERR invalid cursor\r\n");
        assertThat(r("SSCAN", "s", "0", "COUNT", "0")).isEqualTo("-ERR syntax error\r\n");
        assertThat(r("SSCAN", "s", "0", "COUNT", "x")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(r("SSCAN", "s", "0", "TYPE", "string")).isEqualTo("-ERR syntax error\r\n");
        assertThat(r("SSCAN", "s", "0", "MATCH")).isEqualTo("-ERR syntax error\r\n");
        for (String[] c : new String[][] {
            {"SADD", "s"}, {"SREM", "s"}, {"SMEMBERS"}, {"SISMEMBER", "s"}, {"SMISMEMBER", "s"}, {"SCARD"},
            {"SPOP"}, {"SRANDMEMBER"}, {"SSCAN", "s"}, {"SMOVE", "a", "b"}, {"SINTER"}, {"SUNIONSTORE", "d"},
            {"SINTERCARD", "1"}
        }) {
            assertThat(r(c)).isEqualTo("-ERR wrong number of arguments for '" + c[0].toLowerCase() + "' command\r\n");
        }
    }

    /**
     * A set whose expiry has passed is absent to every set read, and a write to it (SADD, SMOVE's
     * destination, a STORE's source) starts from an empty key, as in Redis.
     */
    @Test
    void anExpiredSetIsAbsentToReadsAndWrites() {
        dev.kvs.server.internal.TestClock clock = dev.kvs.server.internal.TestClock.fixedAt(1_000_000);
        try (RespChannel timed = new RespChannel(
                dev.kvs.server.config.NodeConfig.builder()
                        .store(dev.kvs.core.StoreConfig.builder()
                                .maxEntries(10_000)
                                .maxBytes(64L << 20)
                                .build())
                        .build(),
                null,
                null,
                false,
                clock)) {
            for (String key : new String[] {"s", "dst"}) {
                timed.command("SADD", key, "old");
                timed.store.updateHeader(key.getBytes(), h -> h.withExpireAt(1_000_500));
            }
            timed.command("SADD", "live", "x");
            assertThat(timed.command("SCARD", "s")).isEqualTo(":1\r\n");
            clock.advance(java.time.Duration.ofMillis(501));
            assertThat(timed.command("SCARD", "s")).isEqualTo(":0\r\n");
            assertThat(timed.command("SMEMBERS", "s")).isEqualTo(EMPTY);
            assertThat(timed.command("SISMEMBER", "s", "old")).isEqualTo(":0\r\n");
            assertThat(timed.command("SRANDMEMBER", "s")).isEqualTo("$-1\r\n");
            assertThat(timed.command("SUNION", "s", "live")).isEqualTo(bulks("x"));
            assertThat(timed.command("SINTERCARD", "2", "s", "live")).isEqualTo(":0\r\n");
            assertThat(timed.command("SMOVE", "live", "dst", "x")).isEqualTo(":1\r\n");
            assertThat(timed.command("SMEMBERS", "dst"))
                    .as("not the expired member")
                    .isEqualTo(bulks("x"));
            assertThat(timed.command("TTL", "dst")).isEqualTo(":-1\r\n");
            assertThat(timed.command("SADD", "s", "new")).isEqualTo(":1\r\n");
            assertThat(timed.command("SMEMBERS", "s")).isEqualTo(bulks("new"));
        }
    }

    /** COMMAND INFO gives each set command Redis 7.0.15's arity, read or write flag, and key positions. */
    @Test
    void commandInfoAsRedis() {
        String[] redis = { // name arity flag firstKey lastKey keyStep, from redis-server 7.0.15
            "sadd -3 write 1 1 1", "srem -3 write 1 1 1", "smembers 2 readonly 1 1 1",
            "sismember 3 readonly 1 1 1", "smismember -3 readonly 1 1 1", "scard 2 readonly 1 1 1",
            "spop -2 write 1 1 1", "srandmember -2 readonly 1 1 1", "sscan -3 readonly 1 1 1",
            "smove 4 write 1 2 1", "sinter -2 readonly 1 -1 1", "sunion -2 readonly 1 -1 1",
            "sdiff -2 readonly 1 -1 1", "sinterstore -3 write 1 -1 1", "sunionstore -3 write 1 -1 1",
            "sdiffstore -3 write 1 -1 1", "sintercard -3 readonly 0 0 0"
        };
        java.util.regex.Pattern integer = java.util.regex.Pattern.compile("\r\n:(-?\\d+)");
        java.util.regex.Pattern flag = java.util.regex.Pattern.compile("\\+(\\w+)");
        for (String line : redis) {
            String[] want = line.split(" ");
            String reply = r("COMMAND", "INFO", want[0]);
            List<String> ints = new ArrayList<>();
            java.util.regex.Matcher m = integer.matcher(reply);
            while (m.find()) ints.add(m.group(1));
            java.util.regex.Matcher f = flag.matcher(reply);
            assertThat(f.find()).as(reply).isTrue();
            assertThat(String.join(" ", want[0], ints.get(0), f.group(1), ints.get(1), ints.get(2), ints.get(3)))
                    .isEqualTo(line);
        }
    }

    /** Redis's set unit sets {@code set-max-intset-entries} to its default first: a no-op kvs accepts. */
    @Test
    void configSetOfTheIntsetSizeIsShownAndChangesNoReply() {
        assertThat(r("CONFIG", "GET", "set-max-intset-entries")).isEqualTo(bulks("set-max-intset-entries", "512"));
        assertThat(r("SADD", "ints", "3", "1", "2")).isEqualTo(":3\r\n");
        String before = r("SMEMBERS", "ints");
        assertThat(r("CONFIG", "SET", "set-max-intset-entries", "1")).isEqualTo("+OK\r\n");
        assertThat(r("CONFIG", "GET", "set-max-intset-entries")).isEqualTo(bulks("set-max-intset-entries", "1"));
        assertThat(r("SMEMBERS", "ints")).isEqualTo(before); // kvs keeps every set one way
        assertThat(r("CONFIG", "SET", "set-max-intset-entries", "512")).isEqualTo("+OK\r\n");
        assertThat(r("CONFIG", "SET", "save", "900 1")).startsWith("-ERR CONFIG SET failed");
    }

    @Test
    void aScanVisitsEveryMemberOfALargeSet() {
        List<String> add = new ArrayList<>(List.of("SADD", "big"));
        for (int i = 0; i < 2_000; i++) add.add("member-" + i);
        assertThat(r(add.toArray(String[]::new))).isEqualTo(":2000\r\n");
        Set<String> seen = new HashSet<>();
        String cursor = "0";
        int steps = 0;
        do {
            String reply = r("SSCAN", "big", cursor, "COUNT", "100");
            String[] lines = reply.split("\r\n");
            cursor = lines[2];
            for (int i = 4; i < lines.length; i += 2) seen.add(lines[i + 1]);
            steps++;
        } while (!cursor.equals("0"));
        assertThat(seen).hasSize(2_000);
        assertThat(steps).as("a scan in steps, not all at once").isGreaterThan(1);
    }

    /**
     * SPOP and SRANDMEMBER (distinct and with repeats) each pick every member of a ten-member set about
     * equally often: a chi-square test at p = 1e-6 on 9 degrees of freedom, with a seeded generator
     * (replay with {@code -Dkvs.test.seed=}). A pick that favours some members fails it.
     */
    @Test
    void popAndRandomPicksAreUniform() {
        long seed = Long.getLong("kvs.test.seed", System.nanoTime());
        System.out.println("popAndRandomPicksAreUniform seed " + seed);
        Random random = new Random(seed);
        CommandTable table = new CommandTable();
        new SetCommands(resp.commands, new KeyGate(resp.commands, null, table), () -> random).register(table);
        Session session = new Session(1, "test", null);
        List<String> add = new ArrayList<>(List.of("SADD", "s"));
        for (int i = 0; i < 10; i++) add.add("m" + i);
        run(table, session, add.toArray(String[]::new));

        Map<String, Integer> repeats = new HashMap<>();
        for (String m : run(table, session, "SRANDMEMBER", "s", "-20000")) repeats.merge(m, 1, Integer::sum);
        assertUniform("SRANDMEMBER -20000", repeats, 20_000);

        Map<String, Integer> distinct = new HashMap<>();
        for (int i = 0; i < 5_000; i++) {
            List<String> three = run(table, session, "SRANDMEMBER", "s", "3");
            assertThat(new HashSet<>(three)).hasSize(3);
            for (String m : three) distinct.merge(m, 1, Integer::sum);
        }
        assertUniform("SRANDMEMBER 3", distinct, 15_000);

        Map<String, Integer> popped = new HashMap<>();
        for (int i = 0; i < 5_000; i++) {
            String m = run(table, session, "SPOP", "s").get(0);
            popped.merge(m, 1, Integer::sum);
            run(table, session, "SADD", "s", m);
        }
        assertUniform("SPOP", popped, 5_000);
    }

    private static void assertUniform(String what, Map<String, Integer> counts, int total) {
        double expected = total / 10.0;
        double chi2 = 0;
        for (int i = 0; i < 10; i++) {
            double d = counts.getOrDefault("m" + i, 0) - expected;
            chi2 += d * d / expected;
        }
        assertThat(chi2).as(what + " counts " + counts).isLessThan(42.0); // p = 3.3e-6, 9 degrees of freedom
    }

    /** Runs one command straight on the table: its reply's bulk strings. */
    private static List<String> run(CommandTable table, Session session, String... command) {
        byte[][] args = new byte[command.length][];
        for (int i = 0; i < command.length; i++) args[i] = command[i].getBytes(StandardCharsets.UTF_8);
        RedisMessage reply = table.lookup(args[0]).command().execute(session, args);
        try {
            List<String> out = new ArrayList<>();
            if (reply instanceof ArrayRedisMessage array) {
                for (RedisMessage m : array.children()) out.add(text(m));
            } else if (reply instanceof FullBulkStringRedisMessage) {
                out.add(text(reply));
            }
            return out;
        } finally {
            ReferenceCountUtil.release(reply);
        }
    }

    private static String text(RedisMessage m) {
        return ((FullBulkStringRedisMessage) m).content().toString(StandardCharsets.UTF_8);
    }
}
