package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** CONFIG SET and GET of Redis's encoding thresholds, which kvs shows but does not use. */
class EncodingSettingsTest {
    private final RespChannel resp = RespChannel.withDefaults();

    @AfterEach
    void close() {
        resp.close();
    }

    private static String pair(String name, String value) {
        return "*2\r\n$" + name.length() + "\r\n" + name + "\r\n$" + value.length() + "\r\n" + value + "\r\n";
    }

    @Test
    void configGetShowsRedisDefaultsAndConfigSetChangesThemUnderEitherName() {
        assertThat(resp.command("CONFIG", "GET", "hash-max-ziplist-value"))
                .isEqualTo(pair("hash-max-ziplist-value", "64"));
        assertThat(resp.command("CONFIG", "GET", "set-max-intset-entries"))
                .isEqualTo(pair("set-max-intset-entries", "512"));
        assertThat(resp.command("CONFIG", "SET", "hash-max-ziplist-value", "10", "HASH-MAX-LISTPACK-ENTRIES", "5"))
                .isEqualTo("+OK\r\n");
        assertThat(resp.command("CONFIG", "GET", "hash-max-listpack-value"))
                .isEqualTo(pair("hash-max-listpack-value", "10"));
        assertThat(resp.command("CONFIG", "GET", "hash-max-ziplist-entries"))
                .isEqualTo(pair("hash-max-ziplist-entries", "5"));
    }

    @Test
    void aBadValueSetsNothingAndOtherParametersStayUnsupported() {
        assertThat(resp.command("CONFIG", "SET", "hash-max-ziplist-entries", "7", "hash-max-ziplist-value", "x"))
                .isEqualTo("-ERR CONFIG SET failed (possibly related to argument 'hash-max-ziplist-value') - argument"
                        + " must be a memory value\r\n");
        assertThat(resp.command("CONFIG", "GET", "hash-max-ziplist-entries"))
                .isEqualTo(pair("hash-max-ziplist-entries", "512"));
        assertThat(resp.command("CONFIG", "SET", "hash-max-ziplist-value", "10", "save", "900 1"))
                .startsWith("-ERR CONFIG SET failed (possibly related to argument 'save')");
        assertThat(resp.command("CONFIG", "GET", "hash-max-ziplist-value"))
                .isEqualTo(pair("hash-max-ziplist-value", "64"));
        assertThat(resp.command("CONFIG", "SET", "appendonly", "yes")).startsWith("-ERR CONFIG SET failed");
    }

    @Test
    void theListParametersAreIntegersUnderEitherName() {
        assertThat(resp.command("CONFIG", "GET", "list-max-ziplist-size"))
                .isEqualTo(pair("list-max-ziplist-size", "-2"));
        assertThat(resp.command("CONFIG", "SET", "list-max-listpack-size", "-3"))
                .isEqualTo("+OK\r\n");
        assertThat(resp.command("CONFIG", "GET", "list-max-ziplist-size"))
                .isEqualTo(pair("list-max-ziplist-size", "-3"));
        // (redis 7.0.15) the words of an int config's refusals
        assertThat(resp.command("CONFIG", "SET", "list-max-listpack-size", "x"))
                .isEqualTo("-ERR CONFIG SET failed (possibly related to argument 'list-max-listpack-size') - argument"
                        + " couldn't be parsed into an integer\r\n");
        assertThat(resp.command("CONFIG", "SET", "list-max-ziplist-size", "99999999999"))
                .isEqualTo("-ERR CONFIG SET failed (possibly related to argument 'list-max-ziplist-size') - argument"
                        + " must be between -2147483648 and 2147483647 inclusive\r\n");
        assertThat(resp.command("CONFIG", "SET", "list-compress-depth", "2")).isEqualTo("+OK\r\n");
        assertThat(resp.command("CONFIG", "SET", "list-compress-depth", "-1"))
                .isEqualTo("-ERR CONFIG SET failed (possibly related to argument 'list-compress-depth') - argument"
                        + " must be between 0 and 2147483647 inclusive\r\n");
    }
}
