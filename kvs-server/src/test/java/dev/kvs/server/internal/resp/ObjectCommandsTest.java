package dev.kvs.server.internal.resp;

import static dev.kvs.server.internal.resp.StructureFixtures.hset;
import static dev.kvs.server.internal.resp.StructureFixtures.sadd;
import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** OBJECT ENCODING: what Redis 7.0.15 answers for the same contents, at its default thresholds. */
class ObjectCommandsTest {
    private final RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    private String encoding(String key) {
        return resp.command("OBJECT", "ENCODING", key);
    }

    @Test
    void stringsAreIntEmbstrOrRaw() {
        resp.command("SET", "i", "-12345");
        resp.command("SET", "zero", "0");
        resp.command("SET", "lead", "012");
        resp.command("SET", "e", "x".repeat(44));
        resp.command("SET", "r", "x".repeat(45));
        resp.command("SET", "huge", "123456789012345678901"); // 21 digits: not a long
        assertThat(encoding("i")).isEqualTo("+int\r\n");
        assertThat(encoding("zero")).isEqualTo("+int\r\n");
        assertThat(encoding("lead")).isEqualTo("+embstr\r\n");
        assertThat(encoding("e")).isEqualTo("+embstr\r\n");
        assertThat(encoding("r")).isEqualTo("+raw\r\n");
        assertThat(encoding("huge")).isEqualTo("+embstr\r\n");
    }

    @Test
    void hashesAreListpackUntil128FieldsOr64ByteValues() {
        hset(resp, "small", "f", "v");
        hset(resp, "long", "f", "x".repeat(65));
        hset(resp, "edge", "x".repeat(64), "y".repeat(64));
        for (int i = 0; i < 128; i++) hset(resp, "many", "f" + i, "v");
        assertThat(encoding("small")).isEqualTo("+listpack\r\n");
        assertThat(encoding("long")).isEqualTo("+hashtable\r\n");
        assertThat(encoding("edge")).isEqualTo("+listpack\r\n");
        assertThat(encoding("many")).isEqualTo("+listpack\r\n");
        hset(resp, "many", "f128", "v");
        assertThat(encoding("many")).isEqualTo("+hashtable\r\n");
    }

    @Test
    void setsAreIntsetUntil512IntegersElseHashtable() {
        sadd(resp, "ints", "1", "-2", "300");
        sadd(resp, "words", "1", "a");
        sadd(resp, "padded", "01");
        assertThat(encoding("ints")).isEqualTo("+intset\r\n");
        assertThat(encoding("words")).isEqualTo("+hashtable\r\n");
        assertThat(encoding("padded")).isEqualTo("+hashtable\r\n");
        String[] many = new String[513];
        for (int i = 0; i < many.length; i++) many[i] = Integer.toString(i);
        sadd(resp, "many", java.util.Arrays.copyOf(many, 512));
        assertThat(encoding("many")).isEqualTo("+intset\r\n");
        sadd(resp, "many", many);
        assertThat(encoding("many")).isEqualTo("+hashtable\r\n");
    }

    @Test
    void missingKeysAndBadSubcommandsAnswerAsRedis() {
        assertThat(encoding("none")).isEqualTo("$-1\r\n");
        assertThat(resp.command("OBJECT", "ENCODING"))
                .isEqualTo("-ERR wrong number of arguments for 'object|encoding' command\r\n");
        assertThat(resp.command("OBJECT", "foo", "k")).isEqualTo("-ERR unknown subcommand 'foo'. Try OBJECT HELP.\r\n");
        assertThat(resp.command("OBJECT")).isEqualTo("-ERR wrong number of arguments for 'object' command\r\n");
    }
}
