package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.resp.StructureFixtures.b;
import static dev.kvs.server.internal.resp.StructureFixtures.hset;
import static dev.kvs.server.internal.resp.StructureFixtures.members;
import static dev.kvs.server.internal.resp.StructureFixtures.sadd;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.ValueType;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The string commands (and the counters) meeting a hash or a set, with Redis 7.0.15's replies: the
 * ones that read or modify a string answer WRONGTYPE and write nothing, MGET answers nil, SET and MSET
 * replace the structure (its members freed), SETNX and MSETNX see it as an existing key.
 */
class StringCommandsOnStructuresTest {
    static final String WRONGTYPE = "-WRONGTYPE Operation against a key holding the wrong kind of value\r\n";
    private static final String NIL = "$-1\r\n";

    private final RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    private String cmd(String... args) {
        return resp.command(args);
    }

    /** Every string command that reads or modifies a value, with {@code k} as its key. */
    static final List<String[]> STRING_COMMANDS = List.of(
            new String[] {"GET", "k"},
            new String[] {"GETRANGE", "k", "0", "1"},
            new String[] {"SUBSTR", "k", "0", "1"},
            new String[] {"STRLEN", "k"},
            new String[] {"APPEND", "k", "x"},
            new String[] {"SETRANGE", "k", "0", "x"},
            new String[] {"SETRANGE", "k", "0", ""},
            new String[] {"INCR", "k"},
            new String[] {"DECR", "k"},
            new String[] {"INCRBY", "k", "2"},
            new String[] {"DECRBY", "k", "2"},
            new String[] {"INCRBYFLOAT", "k", "1.5"},
            new String[] {"GETSET", "k", "x"},
            new String[] {"GETDEL", "k"},
            new String[] {"GETEX", "k"},
            new String[] {"GETEX", "k", "PERSIST"},
            new String[] {"GETEX", "k", "EX", "100"},
            new String[] {"SET", "k", "x", "GET"},
            new String[] {"SET", "k", "x", "NX", "GET"},
            new String[] {"SET", "k", "x", "XX", "GET"});

    @Test
    void everyStringCommandAnswersWrongTypeForAHashOrASetAndWritesNothing() {
        for (String type : List.of("hash", "set")) {
            if (type.equals("hash")) hset(resp, "k", "f", "v");
            else sadd(resp, "k", "m");
            RecordHeader before = resp.store.header(b("k"));
            for (String[] c : STRING_COMMANDS) {
                assertThat(cmd(c)).as("%s on a %s", String.join(" ", c), type).isEqualTo(WRONGTYPE);
            }
            assertThat(resp.store.header(b("k"))).as("nothing written").isEqualTo(before);
            assertThat(cmd("DEL", "k")).isEqualTo(":1\r\n");
        }
    }

    @Test
    void argumentErrorsComeBeforeTheTypeAsInRedis() {
        hset(resp, "k", "f", "v");
        assertThat(cmd("GETRANGE", "k", "a", "b")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(cmd("INCRBY", "k", "x")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(cmd("SETRANGE", "k", "-1", "x")).isEqualTo("-ERR offset is out of range\r\n");
        assertThat(cmd("SET", "k", "x", "GET", "FOO")).isEqualTo("-ERR syntax error\r\n");
    }

    @Test
    void mgetAnswersNilForAStructure() {
        hset(resp, "h", "f", "v");
        sadd(resp, "s", "m");
        cmd("SET", "str", "v");
        assertThat(cmd("MGET", "h", "s", "str", "none")).isEqualTo("*4\r\n" + NIL + NIL + "$1\r\nv\r\n" + NIL);
    }

    @Test
    void setAndMsetReplaceAStructureAndFreeItsMembers() {
        hset(resp, "h", "f", "v", "g", "w");
        sadd(resp, "s", "a", "b");
        hset(resp, "h2", "f", "v");
        sadd(resp, "s2", "a");
        assertThat(cmd("SET", "h", "now a string")).isEqualTo("+OK\r\n");
        assertThat(cmd("SET", "s", "x", "XX", "EX", "100")).isEqualTo("+OK\r\n");
        assertThat(cmd("MSET", "h2", "1", "s2", "2")).isEqualTo("+OK\r\n");
        assertThat(cmd("SETEX", "h", "100", "again")).isEqualTo("+OK\r\n");
        assertThat(cmd("MGET", "h", "s", "h2", "s2"))
                .isEqualTo("*4\r\n$5\r\nagain\r\n$1\r\nx\r\n$1\r\n1\r\n$1\r\n2\r\n");
        assertThat(cmd("TYPE", "s")).isEqualTo("+string\r\n");
        assertThat(cmd("TYPE", "h2")).isEqualTo("+string\r\n");
        assertThat(cmd("DEL", "h", "s", "h2", "s2")).isEqualTo(":4\r\n");
        assertThat(resp.store.stats().valueBytes()).as("every member freed").isZero();
    }

    @Test
    void setnxMsetnxAndSetNxSeeAStructureAsAnExistingKey() {
        hset(resp, "h", "f", "v");
        sadd(resp, "s", "m");
        assertThat(cmd("SETNX", "h", "x")).isEqualTo(":0\r\n");
        assertThat(cmd("MSETNX", "new", "1", "s", "2")).isEqualTo(":0\r\n");
        assertThat(cmd("SET", "s", "x", "NX")).isEqualTo(NIL);
        assertThat(cmd("EXISTS", "new")).isEqualTo(":0\r\n");
        assertThat(members(resp, "h", ValueType.HASH)).containsExactly("f=v");
        assertThat(members(resp, "s", ValueType.SET)).containsExactly("m=");
    }
}
