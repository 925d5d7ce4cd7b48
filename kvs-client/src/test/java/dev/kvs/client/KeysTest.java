package dev.kvs.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

class KeysTest {
    @Test
    void printableUtf8IsKept() {
        assertThat(Keys.printable("user:42 é".getBytes(StandardCharsets.UTF_8))).isEqualTo("user:42 é");
        assertThat(Keys.printable(new byte[0])).isEmpty();
    }

    @Test
    void controlAndInvalidBytesAreEscaped() {
        assertThat(Keys.printable(new byte[] {'a', 0, '\n', (byte) 0xc3})).isEqualTo("a\\x00\\x0a\\xc3");
        assertThat(Keys.printable("a\\b".getBytes(StandardCharsets.UTF_8))).isEqualTo("a\\x5cb");
    }

    @Test
    void longKeysAreCut() {
        byte[] key = new byte[1000];
        Arrays.fill(key, (byte) 'x');
        assertThat(Keys.printable(key)).isEqualTo("x".repeat(200) + "...(1000 bytes)");
    }
}
