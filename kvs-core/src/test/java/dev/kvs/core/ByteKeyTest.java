package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class ByteKeyTest {
    @Test
    void equalBytesAreEqualKeys() {
        assertThat(new ByteKey(new byte[] {1, 2})).isEqualTo(new ByteKey(new byte[] {1, 2}));
        assertThat(new ByteKey(new byte[] {1, 2})).hasSameHashCodeAs(new ByteKey(new byte[] {1, 2}));
        assertThat(new ByteKey(new byte[] {1, 2})).isNotEqualTo(new ByteKey(new byte[] {1, 2, 0}));
        assertThat(new ByteKey(new byte[0])).isEqualTo(new ByteKey(new byte[0]));
    }
}
