package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.server.config.NodeConfig;
import dev.kvs.server.internal.AckOnDemandReplication;
import dev.kvs.server.internal.TestClock;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The hash commands over RESP on one primary, with Redis 7.0.15's replies and error words. */
class HashCommandsTest {
    private static final String WRONGTYPE = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    private static final String NIL = "$-1\r\n";
    private static final String EMPTY = "*0\r\n";

    private RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    private static String array(String... bulks) {
        StringBuilder b = new StringBuilder("*").append(bulks.length).append("\r\n");
        for (String s : bulks) b.append(bulk(s));
        return b.toString();
    }

    @Test
    void hsetAddsAndUpdatesFieldsAndTheReadsSeeThem() {
        assertThat(resp.command("HSET", "h", "a", "1", "b", "2", "a", "3")).isEqualTo(":2\r\n");
        assertThat(resp.command("HSET", "h", "b", "two", "c", "")).isEqualTo(":1\r\n");
        assertThat(resp.command("HMSET", "h", "d", "4")).isEqualTo("+OK\r\n");
        assertThat(resp.command("HGET", "h", "a")).isEqualTo(bulk("3"));
        assertThat(resp.command("HGET", "h", "c")).isEqualTo(bulk(""));
        assertThat(resp.command("HGET", "h", "zz")).isEqualTo(NIL);
        assertThat(resp.command("HGET", "nokey", "a")).isEqualTo(NIL);
        assertThat(resp.command("HMGET", "h", "b", "zz", "d")).isEqualTo("*3\r\n" + bulk("two") + NIL + bulk("4"));
        assertThat(resp.command("HMGET", "nokey", "a", "b")).isEqualTo("*2\r\n" + NIL + NIL);
        assertThat(resp.command("HLEN", "h")).isEqualTo(":4\r\n");
        assertThat(resp.command("HLEN", "nokey")).isEqualTo(":0\r\n");
        assertThat(resp.command("HSTRLEN", "h", "b")).isEqualTo(":3\r\n");
        assertThat(resp.command("HSTRLEN", "h", "zz")).isEqualTo(":0\r\n");
        assertThat(resp.command("HEXISTS", "h", "c")).isEqualTo(":1\r\n");
        assertThat(resp.command("HEXISTS", "h", "zz")).isEqualTo(":0\r\n");
        assertThat(resp.command("HGETALL", "nokey")).isEqualTo(EMPTY);
        assertThat(resp.command("HKEYS", "nokey")).isEqualTo(EMPTY);
        assertThat(resp.command("HVALS", "nokey")).isEqualTo(EMPTY);
        assertThat(resp.command("HSET", "one", "f", "v")).isEqualTo(":1\r\n");
        assertThat(resp.command("HGETALL", "one")).isEqualTo(array("f", "v"));
        assertThat(resp.command("HKEYS", "one")).isEqualTo(array("f"));
        assertThat(resp.command("HVALS", "one")).isEqualTo(array("v"));
        assertThat(pairs(resp.command("HGETALL", "h"))).isEqualTo(Map.of("a", "3", "b", "two", "c", "", "d", "4"));
    }

    @Test
    void hsetnxSetsOnlyAnAbsentField() {
        assertThat(resp.command("HSETNX", "h", "a", "1")).isEqualTo(":1\r\n");
        assertThat(resp.command("HSETNX", "h", "a", "2")).isEqualTo(":0\r\n");
        assertThat(resp.command("HGET", "h", "a")).isEqualTo(bulk("1"));
    }

    @Test
    void hdelCountsTheFieldsRemovedAndTheLastOneDeletesTheKey() {
        resp.command("HSET", "h", "a", "1", "b", "2", "c", "3");
        assertThat(resp.command("HDEL", "h", "a", "zz", "a")).isEqualTo(":1\r\n");
        assertThat(resp.command("HDEL", "nokey", "a")).isEqualTo(":0\r\n");
        assertThat(resp.command("HDEL", "h", "b", "c", "d")).isEqualTo(":2\r\n");
        assertThat(resp.command("EXISTS", "h")).isEqualTo(":0\r\n");
        assertThat(resp.command("HLEN", "h")).isEqualTo(":0\r\n");
    }

    @Test
    void hincrbyCountsAndRefusesWithRedisWords() {
        assertThat(resp.command("HINCRBY", "h", "n", "5")).isEqualTo(":5\r\n");
        assertThat(resp.command("HINCRBY", "h", "n", "-7")).isEqualTo(":-2\r\n");
        assertThat(resp.command("HGET", "h", "n")).isEqualTo(bulk("-2"));
        assertThat(resp.command("HINCRBY", "h", "n", "1.5"))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        for (String bad : new String[] {"foo", " 1", "1 ", "1.5", "01", ""}) {
            resp.command("HSET", "h", "bad", bad);
            assertThat(resp.command("HINCRBY", "h", "bad", "1"))
                    .as(bad)
                    .isEqualTo("-ERR hash value is not an integer\r\n");
        }
        resp.command("HSET", "h", "max", Long.toString(Long.MAX_VALUE));
        assertThat(resp.command("HINCRBY", "h", "max", "1"))
                .isEqualTo("-ERR increment or decrement would overflow\r\n");
        assertThat(resp.command("HGET", "h", "max")).isEqualTo(bulk(Long.toString(Long.MAX_VALUE)));
        assertThat(resp.command("HINCRBY", "missing", "f", "x"))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(resp.command("EXISTS", "missing")).isEqualTo(":0\r\n");
    }

    @Test
    void hincrbyfloatFormatsAndRefusesAsRedis() {
        assertThat(resp.command("HINCRBYFLOAT", "h", "f", "10.50")).isEqualTo(bulk("10.5"));
        assertThat(resp.command("HINCRBYFLOAT", "h", "f", "0.1")).isEqualTo(bulk("10.6"));
        resp.command("HSET", "h", "e", "5.0e3");
        assertThat(resp.command("HINCRBYFLOAT", "h", "e", "2.0e2")).isEqualTo(bulk("5200"));
        assertThat(resp.command("HGET", "h", "e")).isEqualTo(bulk("5200"));
        // issue #2846 of Redis
        assertThat(resp.command("HINCRBYFLOAT", "h", "g", "1.23")).isEqualTo(bulk("1.23"));
        assertThat(resp.command("HINCRBYFLOAT", "h", "g", "0.77")).isEqualTo(bulk("2"));
        assertThat(resp.command("HINCRBYFLOAT", "h", "g", "-0.1")).isEqualTo(bulk("1.9"));
        assertThat(resp.command("HINCRBYFLOAT", "h", "f", "abc")).isEqualTo("-ERR value is not a valid float\r\n");
        assertThat(resp.command("HINCRBYFLOAT", "h", "f", "+inf")).isEqualTo("-ERR value is NaN or Infinity\r\n");
        resp.command("HSET", "h", "word", "1\u00002");
        assertThat(resp.command("HINCRBYFLOAT", "h", "word", "1")).isEqualTo("-ERR hash value is not a float\r\n");
        // a long double, as Redis's: twice a double's largest is finite (309 digits), twice 1e4932 is not
        resp.command("HSET", "h", "big", "1.7976931348623157e308");
        assertThat(resp.command("HINCRBYFLOAT", "h", "big", "1.7976931348623157e308"))
                .startsWith("$309\r\n359538626972463139991842093548");
        resp.command("HSET", "h", "big", "1e4932");
        assertThat(resp.command("HINCRBYFLOAT", "h", "big", "1e4932"))
                .isEqualTo("-ERR increment would produce NaN or Infinity\r\n");
        assertThat(resp.command("HINCRBYFLOAT", "hfoo", "f", "inf")).isEqualTo("-ERR value is NaN or Infinity\r\n");
        assertThat(resp.command("EXISTS", "hfoo")).isEqualTo(":0\r\n");
    }

    @Test
    void aHashCommandOnAStringAnswersWrongtypeAndWritesNothing() {
        resp.command("SET", "s", "v");
        for (String[] c : new String[][] {
            {"HSET", "s", "a", "1"},
            {"HMSET", "s", "a", "1"},
            {"HSETNX", "s", "a", "1"},
            {"HDEL", "s", "a"},
            {"HINCRBY", "s", "a", "1"},
            {"HINCRBYFLOAT", "s", "a", "1"},
            {"HGET", "s", "a"},
            {"HMGET", "s", "a"},
            {"HGETALL", "s"},
            {"HKEYS", "s"},
            {"HVALS", "s"},
            {"HEXISTS", "s", "a"},
            {"HLEN", "s"},
            {"HSTRLEN", "s", "a"},
            {"HRANDFIELD", "s"},
            {"HRANDFIELD", "s", "0"},
            {"HSCAN", "s", "0"}
        }) {
            assertThat(resp.command(c)).as(String.join(" ", c)).isEqualTo(WRONGTYPE);
        }
        assertThat(resp.command("GET", "s")).isEqualTo(bulk("v"));
        // argument errors come before the key's type, as in Redis
        assertThat(resp.command("HINCRBY", "s", "a", "x"))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(resp.command("HRANDFIELD", "s", "x")).isEqualTo("-ERR value is not an integer or out of range\r\n");
    }

    @Test
    void arityErrorsNameTheCommand() {
        assertThat(resp.command("HSET", "h", "a")).isEqualTo("-ERR wrong number of arguments for 'hset' command\r\n");
        assertThat(resp.command("HSET", "h", "a", "1", "b"))
                .isEqualTo("-ERR wrong number of arguments for 'hset' command\r\n");
        assertThat(resp.command("HMSET", "h", "a", "1", "b"))
                .isEqualTo("-ERR wrong number of arguments for 'hmset' command\r\n");
        assertThat(resp.command("HGET", "h")).isEqualTo("-ERR wrong number of arguments for 'hget' command\r\n");
        assertThat(resp.command("HSCAN", "h")).isEqualTo("-ERR wrong number of arguments for 'hscan' command\r\n");
        assertThat(resp.command("EXISTS", "h")).isEqualTo(":0\r\n");
    }

    @Test
    void hrandfieldPicksDistinctFieldsForAPositiveCountAndRepeatsForANegativeOne() {
        resp.command("HSET", "h", "a", "1", "b", "2", "c", "3");
        Map<String, String> all = Map.of("a", "1", "b", "2", "c", "3");
        assertThat(all).containsKey(bulks(resp.command("HRANDFIELD", "h")).get(0));
        assertThat(resp.command("HRANDFIELD", "nokey")).isEqualTo(NIL);
        assertThat(resp.command("HRANDFIELD", "nokey", "3")).isEqualTo(EMPTY);
        assertThat(resp.command("HRANDFIELD", "h", "0")).isEqualTo(EMPTY);
        assertThat(pairs(resp.command("HRANDFIELD", "h", "5", "WITHVALUES"))).isEqualTo(all);
        List<String> two = bulks(resp.command("HRANDFIELD", "h", "2"));
        assertThat(two).hasSize(2).doesNotHaveDuplicates();
        assertThat(all.keySet()).containsAll(two);
        List<String> many = bulks(resp.command("HRANDFIELD", "h", "-100", "withvalues"));
        assertThat(many).hasSize(200);
        for (int i = 0; i < many.size(); i += 2)
            assertThat(all.get(many.get(i))).isEqualTo(many.get(i + 1));
        assertThat(new HashSet<>(bulks(resp.command("HRANDFIELD", "h", "-300"))))
                .isEqualTo(all.keySet());
        assertThat(resp.command("HRANDFIELD", "h", "1", "foo")).isEqualTo("-ERR syntax error\r\n");
        assertThat(resp.command("HRANDFIELD", "h", "1", "withvalues", "x")).isEqualTo("-ERR syntax error\r\n");
        assertThat(resp.command("HRANDFIELD", "h", "-9223372036854770000", "withvalues"))
                .isEqualTo("-ERR value is out of range\r\n");
        assertThat(resp.command("HRANDFIELD", "h", "-9223372036854775808"))
                .isEqualTo("-ERR value is out of range, value must between -9223372036854775807 and"
                        + " 9223372036854775807\r\n");
    }

    @Test
    void hscanVisitsEveryFieldOfALargeHashWithMatchAndCount() {
        Map<String, String> want = new HashMap<>();
        List<String> args = new ArrayList<>(List.of("HSET", "h"));
        for (int i = 0; i < 2000; i++) {
            args.add("f" + i);
            args.add("v" + i);
            if (i % 10 == 7) want.put("f" + i, "v" + i);
        }
        resp.command(args.toArray(new String[0]));
        Map<String, String> seen = new HashMap<>();
        String cursor = "0";
        int steps = 0;
        do {
            List<String> step = bulks(resp.command("HSCAN", "h", cursor, "MATCH", "f*7", "COUNT", "50"));
            cursor = step.get(0);
            for (int i = 1; i < step.size(); i += 2) seen.put(step.get(i), step.get(i + 1));
            steps++;
        } while (!cursor.equals("0"));
        assertThat(seen).isEqualTo(want);
        assertThat(steps).isGreaterThan(1);
        assertThat(resp.command("HSCAN", "nokey", "0")).isEqualTo("*2\r\n" + bulk("0") + EMPTY);
        // as Redis: a missing key's empty scan comes before the options are read, the cursor before both
        assertThat(resp.command("HSCAN", "nokey", "0", "COUNT", "0")).isEqualTo("*2\r\n" + bulk("0") + EMPTY);
        assertThat(resp.command("HSCAN", "nokey", "x")).isEqualTo("-ERR invalid cursor\r\n");
        assertThat(resp.command("HSCAN", "h", "x")).isEqualTo("-ERR invalid cursor\r\n");
        assertThat(resp.command("HSCAN", "h", "0", "COUNT", "0")).isEqualTo("-ERR syntax error\r\n");
        assertThat(resp.command("HSCAN", "h", "0", "COUNT", "x"))
                .isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(resp.command("HSCAN", "h", "0", "MATCH")).isEqualTo("-ERR syntax error\r\n");
        assertThat(resp.command("HSCAN", "h", "0", "TYPE", "hash")).isEqualTo("-ERR syntax error\r\n");
    }

    @Test
    void anExpiredHashReadsAsAbsentAndAWriteStartsAfresh() {
        resp.close();
        TestClock clock = TestClock.fixedAt(1_700_000_000_000L);
        resp = new RespChannel(
                NodeConfig.builder()
                        .store(StoreConfig.builder()
                                .maxEntries(10_000)
                                .maxBytes(64L << 20)
                                .build())
                        .build(),
                null,
                null,
                false,
                clock);
        resp.command("HSET", "h", "a", "1", "b", "2");
        // an expiry set behind the commands' back (EXPIRE is another group's): one second from now
        resp.store.updateHeader("h".getBytes(StandardCharsets.UTF_8), x -> x.withExpireAt(clock.millis() + 1000));
        assertThat(resp.command("HLEN", "h")).isEqualTo(":2\r\n");
        clock.advance(Duration.ofMillis(1001));
        assertThat(resp.command("HGET", "h", "a")).isEqualTo(NIL);
        assertThat(resp.command("HLEN", "h")).isEqualTo(":0\r\n");
        assertThat(resp.command("HGETALL", "h")).isEqualTo(EMPTY);
        assertThat(resp.command("HSET", "h", "c", "3")).isEqualTo(":1\r\n");
        assertThat(resp.command("HGETALL", "h")).isEqualTo(array("c", "3"));
    }

    @Test
    void aRecordWhoseValueHasNotArrivedReadsAsAbsent() {
        byte[] key = "u".getBytes(StandardCharsets.UTF_8);
        resp.store.put(key, StoredValue.unfinished(new TxId(1, 99), 0, 5));
        assertThat(resp.command("HGET", "u", "a")).isEqualTo(NIL);
        assertThat(resp.command("HLEN", "u")).isEqualTo(":0\r\n");
        assertThat(resp.command("HGETALL", "u")).isEqualTo(EMPTY);
        assertThat(resp.command("HRANDFIELD", "u")).isEqualTo(NIL);
    }

    @Test
    void aWritesReplyWaitsForTheBackup() {
        resp.close();
        AckOnDemandReplication backup = new AckOnDemandReplication();
        resp = RespChannel.withDefaults(backup);
        assertThat(resp.command("HSET", "h", "a", "1")).isEmpty();
        backup.ackAll();
        assertThat(resp.awaitReply()).isEqualTo(":1\r\n");
        assertThat(resp.command("HINCRBY", "h", "n", "2")).isEmpty();
        backup.ackAll();
        assertThat(resp.awaitReply()).isEqualTo(":2\r\n");
        assertThat(resp.command("HDEL", "h", "a", "n")).isEmpty();
        backup.ackAll();
        assertThat(resp.awaitReply()).isEqualTo(":2\r\n");
    }

    /** The bulk strings of a flat RESP array (a nested one is flattened), in order. */
    private static List<String> bulks(String reply) {
        List<String> out = new ArrayList<>();
        int i = 0;
        while (i < reply.length()) {
            int eol = reply.indexOf("\r\n", i);
            String line = reply.substring(i, eol);
            i = eol + 2;
            if (line.startsWith("$")) {
                int n = Integer.parseInt(line.substring(1));
                if (n < 0) {
                    out.add(null);
                    continue;
                }
                out.add(reply.substring(i, i + n));
                i += n + 2;
            }
        }
        return out;
    }

    /** A flat array of name, value, name, value... as a map (names distinct). */
    private static Map<String, String> pairs(String reply) {
        List<String> b = bulks(reply);
        Map<String, String> out = new HashMap<>();
        for (int i = 0; i < b.size(); i += 2)
            assertThat(out.put(b.get(i), b.get(i + 1))).isNull();
        return out;
    }
}
