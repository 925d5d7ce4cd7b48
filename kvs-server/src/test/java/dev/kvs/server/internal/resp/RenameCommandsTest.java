package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.resp.StructureFixtures.b;
import static dev.kvs.server.internal.resp.StructureFixtures.hset;
import static dev.kvs.server.internal.resp.StructureFixtures.members;
import static dev.kvs.server.internal.resp.StructureFixtures.sadd;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.ValueType;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** RENAME, RENAMENX and COPY of strings, hashes and sets, with Redis 7.0.15's replies. */
class RenameCommandsTest {
    private final RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    private String cmd(String... args) {
        return resp.command(args);
    }

    @Test
    void renameMovesAHashOrSetOntoAnyKeyWithItsExpiry() {
        hset(resp, "h", "f", "v", "g", "w");
        sadd(resp, "s", "a", "b");
        cmd("SET", "str", "old");
        cmd("EXPIRE", "h", "1000");
        long before = resp.commands.roles().current().lastTxId().seq();
        assertThat(cmd("RENAME", "h", "str")).isEqualTo("+OK\r\n");
        assertThat(resp.commands.roles().current().lastTxId().seq())
                .as("one TxId")
                .isEqualTo(before + 1);
        assertThat(cmd("EXISTS", "h")).isEqualTo(":0\r\n");
        assertThat(cmd("TYPE", "str")).isEqualTo("+hash\r\n");
        assertThat(cmd("TTL", "str")).isEqualTo(":1000\r\n");
        assertThat(members(resp, "str", ValueType.HASH)).containsExactly("f=v", "g=w");
        assertThat(cmd("RENAMENX", "s", "str")).isEqualTo(":0\r\n");
        assertThat(cmd("RENAMENX", "s", "s2")).isEqualTo(":1\r\n");
        assertThat(members(resp, "s2", ValueType.SET)).containsExactly("a=", "b=");
        assertThat(cmd("RENAME", "s2", "str")).isEqualTo("+OK\r\n");
        assertThat(cmd("TYPE", "str")).isEqualTo("+set\r\n");
        assertThat(cmd("RENAME", "str", "str")).isEqualTo("+OK\r\n");
        assertThat(cmd("RENAME", "nope", "x")).isEqualTo("-ERR no such key\r\n");
        assertThat(cmd("DBSIZE")).isEqualTo(":1\r\n");
        cmd("DEL", "str");
        assertThat(resp.store.stats().valueBytes()).as("nothing left behind").isZero();
    }

    @Test
    void aStringRenamedOntoAHashReplacesIt() {
        hset(resp, "h", "f", "v");
        cmd("SET", "str", "value");
        assertThat(cmd("RENAME", "str", "h")).isEqualTo("+OK\r\n");
        assertThat(cmd("GET", "h")).isEqualTo("$5\r\nvalue\r\n");
        cmd("DEL", "h");
        assertThat(resp.store.stats().valueBytes()).isZero();
    }

    @Test
    void copyCopiesEveryTypeAndReplacesOnlyWhenAsked() {
        hset(resp, "h", "f", "v");
        sadd(resp, "s", "a");
        cmd("SET", "str", "value", "EX", "500");
        assertThat(cmd("COPY", "h", "h2")).isEqualTo(":1\r\n");
        assertThat(cmd("COPY", "s", "h2")).isEqualTo(":0\r\n");
        assertThat(cmd("TYPE", "h2")).isEqualTo("+hash\r\n");
        assertThat(cmd("COPY", "s", "h2", "REPLACE")).isEqualTo(":1\r\n");
        assertThat(cmd("TYPE", "h2")).isEqualTo("+set\r\n");
        assertThat(members(resp, "h2", ValueType.SET)).containsExactly("a=");
        assertThat(members(resp, "h", ValueType.HASH)).as("the source stays").containsExactly("f=v");
        assertThat(cmd("COPY", "str", "str2", "DB", "0")).isEqualTo(":1\r\n");
        assertThat(cmd("GET", "str2")).isEqualTo("$5\r\nvalue\r\n");
        assertThat(cmd("TTL", "str2")).isEqualTo(":500\r\n");
        assertThat(cmd("COPY", "str", "h", "replace")).isEqualTo(":1\r\n");
        assertThat(cmd("GET", "h")).isEqualTo("$5\r\nvalue\r\n");
        assertThat(cmd("COPY", "nope", "x")).isEqualTo(":0\r\n");
        assertThat(cmd("EXISTS", "x")).isEqualTo(":0\r\n");
        assertThat(resp.store.header(b("str")).type()).isEqualTo(ValueType.STRING);
    }

    @Test
    void copyRefusesBadArgumentsWithRedisWords() {
        cmd("SET", "k", "v");
        assertThat(cmd("COPY", "k", "k")).isEqualTo("-ERR source and destination objects are the same\r\n");
        assertThat(cmd("COPY", "k", "x", "DB", "y")).isEqualTo("-ERR value is not an integer or out of range\r\n");
        assertThat(cmd("COPY", "k", "x", "DB", "1")).startsWith("-ERR DB index is out of range");
        assertThat(cmd("COPY", "k", "x", "FOO")).isEqualTo("-ERR syntax error\r\n");
        assertThat(cmd("COPY", "k", "x", "DB")).isEqualTo("-ERR syntax error\r\n");
        assertThat(cmd("COPY", "k")).isEqualTo("-ERR wrong number of arguments for 'copy' command\r\n");
        assertThat(cmd("EXISTS", "x")).isEqualTo(":0\r\n");
    }
}
