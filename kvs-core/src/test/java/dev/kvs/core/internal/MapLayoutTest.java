package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MapLayoutTest {
    @ParameterizedTest
    @CsvSource({
        "1, 100, 5000, 64, 1",
        "10, 1000, 70000, 256, 4",
        "1000000, 1200000000, 4500, 64, 1",
        "100000000, 100000000000, 4500, 64, 1",
        "16000, 1000000000, 65000, 1024, 2"
    })
    void holdsTheNeedWithHeadroomAndTwoOfTheLargestEntriesPerTier(
            long entries, long payload, long maxEntry, int chunk, int divisor) {
        MapLayout layout = MapLayout.of(entries, payload, maxEntry, chunk, divisor);
        assertThat(Integer.bitCount(layout.segments())).isEqualTo(1);
        assertThat(layout.segments()).isBetween(4, 1024);
        assertThat(layout.chunksPerTier() * chunk).isGreaterThanOrEqualTo(2 * maxEntry);
        assertThat(layout.maxChunksPerEntry() * (long) chunk).isGreaterThanOrEqualTo(maxEntry);
        double firstTiers = layout.baseBytes();
        double withExtraTiers = firstTiers * (1 + layout.maxBloatFactor());
        assertThat(firstTiers).isGreaterThanOrEqualTo(payload * MapLayout.HEADROOM / divisor);
        assertThat(withExtraTiers).isGreaterThanOrEqualTo(payload * MapLayout.HEADROOM);
        assertThat(layout.entriesPerSegment() * layout.segments() * (1 + layout.maxBloatFactor()))
                .isGreaterThanOrEqualTo(entries);
    }

    @Test
    void rejectsNonsense() {
        assertThatThrownBy(() -> MapLayout.of(0, 1, 1, 1, 1)).hasMessage("entries <= 0: 0");
        assertThatThrownBy(() -> MapLayout.of(1, 1, 1, 0, 1)).hasMessage("chunkSize <= 0: 0");
        assertThatThrownBy(() -> MapLayout.of(1, 1, 1, 1, 0)).hasMessage("divisor < 1: 0");
    }

    @Test
    void saturatedArithmeticNeverOverflows() {
        assertThat(MapLayout.saturatedMultiply(Long.MAX_VALUE / 2, 3)).isEqualTo(Long.MAX_VALUE);
        assertThat(MapLayout.saturatedMultiply(1L << 40, 1 << 20)).isEqualTo(1L << 60);
        assertThat(MapLayout.saturatedAdd(Long.MAX_VALUE, 1)).isEqualTo(Long.MAX_VALUE);
        assertThat(MapLayout.saturatedAdd(40, 2)).isEqualTo(42);
    }
}
