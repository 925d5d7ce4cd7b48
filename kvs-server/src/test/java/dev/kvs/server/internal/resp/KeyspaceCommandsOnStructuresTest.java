package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.resp.StructureFixtures.b;
import static dev.kvs.server.internal.resp.StructureFixtures.hset;
import static dev.kvs.server.internal.resp.StructureFixtures.sadd;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.ValueType;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The keyspace commands on hashes and sets: TYPE, SCAN's TYPE, KEYS, EXISTS, DBSIZE, RANDOMKEY count
 * them; DEL, UNLINK and FLUSHDB free their members; MEMORY USAGE counts them.
 */
class KeyspaceCommandsOnStructuresTest {
    private final RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    private String cmd(String... args) {
        return resp.command(args);
    }

    private void threeTypes() {
        cmd("SET", "str", "v");
        hset(resp, "h", "f", "v");
        sadd(resp, "s", "1", "2");
    }

    @Test
    void typeNamesEveryType() {
        threeTypes();
        assertThat(cmd("TYPE", "str")).isEqualTo("+string\r\n");
        assertThat(cmd("TYPE", "h")).isEqualTo("+hash\r\n");
        assertThat(cmd("TYPE", "s")).isEqualTo("+set\r\n");
        assertThat(cmd("TYPE", "none")).isEqualTo("+none\r\n");
    }

    /** The keys of a whole SCAN with {@code options}. */
    private Set<String> scan(String... options) {
        Set<String> keys = new HashSet<>();
        String cursor = "0";
        do {
            String[] c = new String[2 + options.length];
            c[0] = "SCAN";
            c[1] = cursor;
            System.arraycopy(options, 0, c, 2, options.length);
            String reply = cmd(c);
            String[] lines = reply.split("\r\n");
            cursor = lines[2];
            for (int i = 5; i < lines.length; i += 2) keys.add(lines[i]);
        } while (!cursor.equals("0"));
        return keys;
    }

    @Test
    void scanKeysExistsDbsizeAndRandomKeyCountStructures() {
        threeTypes();
        assertThat(scan()).containsExactlyInAnyOrder("str", "h", "s");
        assertThat(scan("TYPE", "hash")).containsExactly("h");
        assertThat(scan("TYPE", "SET")).containsExactly("s");
        assertThat(scan("TYPE", "string")).containsExactly("str");
        assertThat(scan("TYPE", "zset")).isEmpty();
        assertThat(scan("MATCH", "h*", "TYPE", "set")).isEmpty();
        assertThat(cmd("KEYS", "*"))
                .contains("$1\r\nh\r\n")
                .contains("$1\r\ns\r\n")
                .startsWith("*3\r\n");
        assertThat(cmd("EXISTS", "h", "s", "str", "nope")).isEqualTo(":3\r\n");
        assertThat(cmd("DBSIZE")).isEqualTo(":3\r\n");
        cmd("DEL", "str");
        Set<String> picked = new HashSet<>();
        for (int i = 0; i < 200 && picked.size() < 2; i++) picked.add(cmd("RANDOMKEY"));
        assertThat(picked).containsExactlyInAnyOrder("$1\r\nh\r\n", "$1\r\ns\r\n");
    }

    @Test
    void delAndUnlinkFreeTheMembers() {
        hset(resp, "h", "f", "v", "g", "w");
        sadd(resp, "s", "a");
        sadd(resp, "s2", "b");
        assertThat(resp.store.stats().valueBytes()).isPositive();
        assertThat(cmd("DEL", "h")).isEqualTo(":1\r\n");
        assertThat(cmd("UNLINK", "s", "s2", "s")).isEqualTo(":2\r\n");
        assertThat(cmd("TYPE", "h")).isEqualTo("+none\r\n");
        assertThat(resp.store.stats().valueBytes()).isZero();
        assertThat(resp.store.memberCount(b("s"), ValueType.SET)).isZero();
    }

    @Test
    void flushdbFreesEveryStructure() {
        threeTypes();
        for (int i = 0; i < 50; i++) hset(resp, "big", "field" + i, "value" + i);
        resp.channel.writeInbound(io.netty.buffer.Unpooled.wrappedBuffer(b(RespChannel.encode("FLUSHDB"))));
        assertThat(resp.awaitReply()).isEqualTo("+OK\r\n");
        assertThat(cmd("DBSIZE")).isEqualTo(":0\r\n");
        assertThat(resp.store.stats().entries()).isZero();
        assertThat(resp.store.stats().valueBytes())
                .as("members freed by the sweep")
                .isZero();
        assertThat(resp.store.memberCount(b("big"), ValueType.HASH)).isZero();
    }

    @Test
    void memoryUsageCountsTheMembers() {
        hset(resp, "h", "f", "v");
        long small = Long.parseLong(cmd("MEMORY", "USAGE", "h").trim().substring(1));
        for (int i = 0; i < 100; i++) hset(resp, "h", "field" + i, "x".repeat(100));
        long big = Long.parseLong(cmd("MEMORY", "USAGE", "h").trim().substring(1));
        assertThat(small).isGreaterThan(1 + 2 + ServerCommands.RECORD_OVERHEAD);
        assertThat(big)
                .isGreaterThan(small + 100 * 100)
                .isEqualTo(1 + resp.store.stats().valueBytes() + ServerCommands.RECORD_OVERHEAD);
        assertThat(cmd("MEMORY", "USAGE", "none")).isEqualTo("$-1\r\n");
    }
}
