package dev.kvs.server.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class ByteSizeTest {

    @ParameterizedTest
    @CsvSource({
        "0, 0",
        "1048576, 1048576",
        "7B, 7",
        "512KiB, 524288",
        "64MiB, 67108864",
        "1GiB, 1073741824",
        "2TiB, 2199023255552",
        "1k, 1024",
        "3M, 3145728",
        "1g, 1073741824",
        "64mib, 67108864",
        "'64 MiB', 67108864",
        "' 1GiB ', 1073741824",
        "1KB, 1000",
        "10MB, 10000000",
        "2GB, 2000000000",
        "1tb, 1000000000000",
        "1.5KiB, 1536",
        "0.5MB, 500000",
    })
    void parsesNumbersWithUnits(String text, long bytes) {
        assertThat(ByteSize.parse(text).bytes()).isEqualTo(bytes);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", " ", "abc", "-1", "12XB", "MiB", "1.2.3MB", "10 M B", "0x10", "1e6", "5 KiBs"})
    void rejectsWhatIsNotASize(String text) {
        assertThatThrownBy(() -> ByteSize.parse("maxBytes", text))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("maxBytes is not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): " + text);
    }

    @Test
    void withoutAFieldTheMessageStartsWithTheProblem() {
        assertThatThrownBy(() -> ByteSize.parse("lots"))
                .hasMessage("not a byte size (e.g. 1048576, 512KiB, 64MiB, 1GiB, 10MB): lots");
    }

    @Test
    void rejectsFractionsOfAByte() {
        assertThatThrownBy(() -> ByteSize.parse("maxBytes", "0.5B"))
                .hasMessage("maxBytes is not a whole number of bytes up to 9223372036854775807: 0.5B");
    }

    @Test
    void rejectsSizesBeyondALong() {
        assertThatThrownBy(() -> ByteSize.parse("maxBytes", "9999999TiB"))
                .hasMessage("maxBytes is not a whole number of bytes up to 9223372036854775807: 9999999TiB");
    }

    @Test
    void rejectsNull() {
        assertThatThrownBy(() -> ByteSize.parse("maxBytes", null)).hasMessageEndingWith(": null");
    }

    @Test
    void rejectsNegativeBytes() {
        assertThatThrownBy(() -> new ByteSize(-1)).hasMessage("bytes < 0: -1");
    }

    @Test
    void toIntRejectsSizesAboveIntMaxNamingTheField() {
        assertThat(ByteSize.parse("1GiB").toInt("maxBulkBytes")).isEqualTo(1 << 30);
        assertThat(new ByteSize(Integer.MAX_VALUE).toInt("x")).isEqualTo(Integer.MAX_VALUE);
        assertThatThrownBy(() -> ByteSize.parse("2GiB").toInt("maxBulkBytes"))
                .hasMessage("maxBulkBytes is larger than 2147483647 bytes: 2GiB (2147483648)");
    }

    @ParameterizedTest
    @CsvSource({"0, 0", "1024, 1KiB", "67108864, 64MiB", "10000000, 10MB", "1536, 1536", "1000001, 1000001"})
    void toStringIsTheShortestExactForm(long bytes, String text) {
        assertThat(new ByteSize(bytes)).hasToString(text);
    }

    @Test
    void toStringParsesBackToTheSameSize() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 10_000; i++) {
            long bytes = switch (i % 3) {
                case 0 -> random.nextLong() & Long.MAX_VALUE;
                case 1 -> (long) random.nextInt(1 << 20) << (10 * random.nextInt(4));
                default -> (long) random.nextInt(1_000_000) * (long) Math.pow(1000, random.nextInt(4));
            };
            assertThat(ByteSize.parse(new ByteSize(bytes).toString()).bytes())
                    .as("seed %d, bytes %d", seed, bytes)
                    .isEqualTo(bytes);
        }
    }
}
