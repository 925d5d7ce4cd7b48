package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoreConfig;
import dev.kvs.server.config.NodeConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The string and counter commands over RESP, with Redis 7's replies and error words. */
class StringCommandsTest {
    private static final String NOT_INTEGER = "-ERR value is not an integer or out of range\r\n";
    private static final String NOT_FLOAT = "-ERR value is not a valid float\r\n";

    private RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    private static String bulk(String s) {
        return "$" + s.length() + "\r\n" + s + "\r\n";
    }

    @Test
    void getRepliesReadIntoTheReplyBatchKeepTheirOrderAndBytes() {
        resp.command("SET", "a", "alpha");
        resp.command("SET", "b", "x".repeat(3000));
        resp.command("HSET", "h", "f", "v");
        String pipelined = RespChannel.encode("GET", "a")
                + RespChannel.encode("GET", "missing")
                + RespChannel.encode("GET", "h")
                + RespChannel.encode("GET", "b")
                + RespChannel.encode("GET", "a");
        assertThat(resp.send(pipelined))
                .isEqualTo(bulk("alpha") + "$-1\r\n"
                        + "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n"
                        + bulk("x".repeat(3000)) + bulk("alpha"));
        // EXEC's GETs, one of them a script's run on this thread: each reply is read before the next
        resp.command("MULTI");
        resp.command("GET", "a");
        resp.command("EVAL", "return redis.call('get', KEYS[1])", "1", "b");
        resp.command("GET", "b");
        assertThat(resp.command("EXEC"))
                .isEqualTo("*3\r\n" + bulk("alpha") + bulk("x".repeat(3000)) + bulk("x".repeat(3000)));
        assertThat(resp.send(RespChannel.encode("CLIENT", "REPLY", "SKIP")
                        + RespChannel.encode("GET", "a")
                        + RespChannel.encode("GET", "b")))
                .as("a skipped GET's reply is dropped, its room reused")
                .isEqualTo(bulk("x".repeat(3000)));
    }

    @Test
    void incrDecrAndTheirByForms() {
        assertThat(resp.command("INCR", "n")).isEqualTo(":1\r\n");
        assertThat(resp.command("INCR", "n")).isEqualTo(":2\r\n");
        assertThat(resp.command("INCRBY", "n", "40")).isEqualTo(":42\r\n");
        assertThat(resp.command("DECR", "n")).isEqualTo(":41\r\n");
        assertThat(resp.command("DECRBY", "n", "-9")).isEqualTo(":50\r\n");
        assertThat(resp.command("DECRBY", "missing", "3")).isEqualTo(":-3\r\n");
        assertThat(resp.command("GET", "n")).isEqualTo(bulk("50"));
        assertThat(resp.command("SET", "m", "-10")).isEqualTo("+OK\r\n");
        assertThat(resp.command("incr", "m")).isEqualTo(":-9\r\n");
    }

    @Test
    void incrRefusesNonIntegersAndOverflowWithRedisWords() {
        for (String bad : new String[] {"abc", "1.5", " 1", "1 ", "+1", "01", "-0", "", "99999999999999999999"}) {
            resp.command("SET", "s", bad);
            assertThat(resp.command("INCR", "s")).as(bad).isEqualTo(NOT_INTEGER);
            assertThat(resp.command("INCRBY", "n", bad)).as(bad).isEqualTo(NOT_INTEGER);
        }
        assertThat(resp.command("GET", "s")).isEqualTo(bulk("99999999999999999999"));
        assertThat(resp.command("GET", "n")).isEqualTo("$-1\r\n");
        resp.command("SET", "max", Long.toString(Long.MAX_VALUE));
        assertThat(resp.command("INCR", "max")).isEqualTo("-ERR increment or decrement would overflow\r\n");
        assertThat(resp.command("GET", "max")).isEqualTo(bulk(Long.toString(Long.MAX_VALUE)));
        resp.command("SET", "min", Long.toString(Long.MIN_VALUE));
        assertThat(resp.command("DECRBY", "min", "1")).isEqualTo("-ERR increment or decrement would overflow\r\n");
        assertThat(resp.command("DECRBY", "x", Long.toString(Long.MIN_VALUE)))
                .isEqualTo("-ERR decrement would overflow\r\n");
        assertThat(resp.command("INCR", "a", "b")).isEqualTo("-ERR wrong number of arguments for 'incr' command\r\n");
        assertThat(resp.command("INCRBY", "a")).isEqualTo("-ERR wrong number of arguments for 'incrby' command\r\n");
    }

    @Test
    void incrByFloatFormatsAsRedis() {
        // redis.io's INCRBYFLOAT example
        resp.command("SET", "mykey", "10.50");
        assertThat(resp.command("INCRBYFLOAT", "mykey", "0.1")).isEqualTo(bulk("10.6"));
        assertThat(resp.command("INCRBYFLOAT", "mykey", "-5")).isEqualTo(bulk("5.6"));
        resp.command("SET", "mykey", "5.0e3");
        assertThat(resp.command("INCRBYFLOAT", "mykey", "2.0e2")).isEqualTo(bulk("5200"));
        assertThat(resp.command("GET", "mykey")).isEqualTo(bulk("5200"));
        assertThat(resp.command("INCRBYFLOAT", "f", "3")).isEqualTo(bulk("3"));
        assertThat(resp.command("INCRBYFLOAT", "f", "-3")).isEqualTo(bulk("0"));
        assertThat(resp.command("INCRBYFLOAT", "g", "1e20")).isEqualTo(bulk("100000000000000000000"));
        assertThat(resp.command("INCRBYFLOAT", "g", "abc")).isEqualTo(NOT_FLOAT);
        assertThat(resp.command("INCRBYFLOAT", "g", " 1")).isEqualTo(NOT_FLOAT);
        assertThat(resp.command("INCRBYFLOAT", "g", "nan")).isEqualTo(NOT_FLOAT);
        resp.command("SET", "word", "hello");
        assertThat(resp.command("INCRBYFLOAT", "word", "1")).isEqualTo(NOT_FLOAT);
        assertThat(resp.command("INCRBYFLOAT", "h", "inf"))
                .isEqualTo("-ERR increment would produce NaN or Infinity\r\n");
        assertThat(resp.command("EXISTS", "h")).isEqualTo(":0\r\n");
    }

    @Test
    void appendGetSetGetDelSetNx() {
        assertThat(resp.command("APPEND", "k", "Hello")).isEqualTo(":5\r\n");
        assertThat(resp.command("APPEND", "k", " World")).isEqualTo(":11\r\n");
        assertThat(resp.command("GET", "k")).isEqualTo(bulk("Hello World"));
        assertThat(resp.command("GETSET", "k", "new")).isEqualTo(bulk("Hello World"));
        assertThat(resp.command("GETSET", "fresh", "v")).isEqualTo("$-1\r\n");
        assertThat(resp.command("GET", "fresh")).isEqualTo(bulk("v"));
        assertThat(resp.command("GETDEL", "k")).isEqualTo(bulk("new"));
        assertThat(resp.command("GETDEL", "k")).isEqualTo("$-1\r\n");
        assertThat(resp.command("EXISTS", "k")).isEqualTo(":0\r\n");
        assertThat(resp.command("SETNX", "nx", "first")).isEqualTo(":1\r\n");
        assertThat(resp.command("SETNX", "nx", "second")).isEqualTo(":0\r\n");
        assertThat(resp.command("GET", "nx")).isEqualTo(bulk("first"));
        assertThat(resp.command("SETNX", "nx")).isEqualTo("-ERR wrong number of arguments for 'setnx' command\r\n");
        assertThat(resp.command("GETDEL", "a", "b"))
                .isEqualTo("-ERR wrong number of arguments for 'getdel' command\r\n");
    }

    @Test
    void msetNxIsAllOrNothing() {
        assertThat(resp.command("MSETNX", "a", "1", "b", "2")).isEqualTo(":1\r\n");
        assertThat(resp.command("MSETNX", "b", "x", "c", "3")).isEqualTo(":0\r\n");
        assertThat(resp.command("MGET", "a", "b", "c")).isEqualTo("*3\r\n$1\r\n1\r\n$1\r\n2\r\n$-1\r\n");
        assertThat(resp.command("MSETNX", "a", "1", "b"))
                .isEqualTo("-ERR wrong number of arguments for 'msetnx' command\r\n");
        assertThat(resp.command("EXISTS", "c")).isEqualTo(":0\r\n");
    }

    @Test
    void getRangeWithNegativeIndicesAsRedis() {
        resp.command("SET", "mykey", "This is a string");
        // redis.io's GETRANGE examples
        assertThat(resp.command("GETRANGE", "mykey", "0", "3")).isEqualTo(bulk("This"));
        assertThat(resp.command("GETRANGE", "mykey", "-3", "-1")).isEqualTo(bulk("ing"));
        assertThat(resp.command("GETRANGE", "mykey", "0", "-1")).isEqualTo(bulk("This is a string"));
        assertThat(resp.command("GETRANGE", "mykey", "10", "100")).isEqualTo(bulk("string"));
        assertThat(resp.command("GETRANGE", "mykey", "5", "3")).isEqualTo(bulk(""));
        assertThat(resp.command("GETRANGE", "mykey", "-1", "-5")).isEqualTo(bulk(""));
        assertThat(resp.command("GETRANGE", "mykey", "-100", "1")).isEqualTo(bulk("Th"));
        assertThat(resp.command("GETRANGE", "missing", "0", "-1")).isEqualTo(bulk(""));
        assertThat(resp.command("GETRANGE", "mykey", "a", "1")).isEqualTo(NOT_INTEGER);
    }

    @Test
    void getRangeOfALargeValueReadsOnlyTheRangeAcrossItsStoredChunks() {
        long seed = System.nanoTime();
        System.out.println("getRangeOfALargeValue seed " + seed);
        java.util.Random random = new java.util.Random(seed);
        char[] chars = new char[200_000]; // stored in 64 KiB chunks
        for (int i = 0; i < chars.length; i++) chars[i] = (char) ('a' + random.nextInt(26));
        String value = new String(chars);
        byte[] bytes = value.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        resp.command("SET", "big", value);
        java.util.List<long[]> ranges = new java.util.ArrayList<>(java.util.List.of(
                new long[] {0, 9},
                new long[] {65_530, 65_545}, // across the first chunk boundary
                new long[] {-10, -1},
                new long[] {65_536, 131_072},
                new long[] {0, -1},
                new long[] {199_990, 300_000},
                new long[] {-300_000, 5},
                new long[] {150_000, 100}));
        for (int i = 0; i < 20; i++) {
            ranges.add(new long[] {random.nextInt(400_000) - 200_000, random.nextInt(400_000) - 200_000});
        }
        for (long[] r : ranges) {
            String expected =
                    new String(StringCommands.range(bytes, r[0], r[1]), java.nio.charset.StandardCharsets.US_ASCII);
            assertThat(resp.command("GETRANGE", "big", Long.toString(r[0]), Long.toString(r[1])))
                    .as("GETRANGE big %d %d (seed %d)", r[0], r[1], seed)
                    .isEqualTo(bulk(expected));
        }
        assertThat(resp.command("GETRANGE", "big", "65535", "65536")).isEqualTo(bulk(value.substring(65_535, 65_537)));
    }

    @Test
    void setRangePadsWithZerosAndChecksItsOffset() {
        // redis.io's SETRANGE examples
        resp.command("SET", "key1", "Hello World");
        assertThat(resp.command("SETRANGE", "key1", "6", "Redis")).isEqualTo(":11\r\n");
        assertThat(resp.command("GET", "key1")).isEqualTo(bulk("Hello Redis"));
        assertThat(resp.command("SETRANGE", "key2", "6", "Redis")).isEqualTo(":11\r\n");
        assertThat(resp.command("GET", "key2")).isEqualTo(bulk("\0\0\0\0\0\0Redis"));
        assertThat(resp.command("SETRANGE", "key3", "3", "")).isEqualTo(":0\r\n");
        assertThat(resp.command("EXISTS", "key3")).isEqualTo(":0\r\n");
        assertThat(resp.command("SETRANGE", "key1", "100", "")).isEqualTo(":11\r\n");
        assertThat(resp.command("SETRANGE", "key1", "-1", "x")).isEqualTo("-ERR offset is out of range\r\n");
        assertThat(resp.command("SETRANGE", "key1", "x", "x")).isEqualTo(NOT_INTEGER);
    }

    @Test
    void setRangeAndAppendStopAtTheNodesValueLimit() {
        resp.close();
        resp = new RespChannel(NodeConfig.builder()
                .store(StoreConfig.builder()
                        .maxEntries(100)
                        .maxBytes(1 << 20)
                        .maxValueBytes(10)
                        .build())
                .build());
        String tooBig = "-ERR string exceeds maximum allowed size (proto-max-bulk-len)\r\n";
        assertThat(resp.command("SETRANGE", "k", "8", "abc")).isEqualTo(tooBig);
        assertThat(resp.command("SETRANGE", "k", "7", "abc")).isEqualTo(":10\r\n");
        assertThat(resp.command("APPEND", "k", "x")).isEqualTo(tooBig);
        assertThat(resp.command("STRLEN", "k")).isEqualTo(":10\r\n");
    }

    @Test
    void typeTimeAndRoleOnALonePrimary() {
        resp.command("SET", "k", "v");
        assertThat(resp.command("TYPE", "k")).isEqualTo("+string\r\n");
        assertThat(resp.command("TYPE", "nope")).isEqualTo("+none\r\n");
        long before = System.currentTimeMillis() / 1000;
        String time = resp.command("TIME");
        String[] parts = time.split("\r\n");
        assertThat(parts[0]).isEqualTo("*2");
        assertThat(Long.parseLong(parts[2])).isBetween(before, before + 60);
        assertThat(Long.parseLong(parts[4])).isBetween(0L, 999_999L);
        resp.command("INCR", "n");
        // offset: the seq of the node's last TxId (the lone test primary starts at seq 0)
        assertThat(resp.command("ROLE")).isEqualTo("*3\r\n$6\r\nmaster\r\n:2\r\n*0\r\n");
    }

    @Test
    void newCommandsAreListedWithTheirFlags() {
        assertThat(resp.command("COMMAND", "INFO", "incr", "getrange", "msetnx"))
                .contains("$4\r\nincr\r\n:2\r\n*1\r\n+write\r\n:1\r\n:1\r\n:1\r\n")
                .contains("$8\r\ngetrange\r\n:4\r\n*1\r\n+readonly\r\n")
                .contains("$6\r\nmsetnx\r\n:-3\r\n*1\r\n+write\r\n:1\r\n:-1\r\n:2\r\n");
    }
}
