package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ChecksumsTest {
    @Test
    void isCrc32c() {
        // the CRC-32C check value of "123456789" is 0xE3069283
        assertThat(Checksums.crc32c("123456789".getBytes(StandardCharsets.US_ASCII)))
                .isEqualTo(0xE3069283);
        assertThat(Checksums.crc32c(new byte[0])).isZero();
        assertThat(Checksums.crc32c("x123456789y".getBytes(StandardCharsets.US_ASCII), 1, 9))
                .isEqualTo(0xE3069283);
    }
}
