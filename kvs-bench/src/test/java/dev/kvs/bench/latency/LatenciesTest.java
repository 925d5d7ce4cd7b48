package dev.kvs.bench.latency;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

class LatenciesTest {
    @Test
    void percentilesAreNearestRankInMilliseconds() {
        // 1..100 ms, shuffled order does not matter
        long[] micros =
                LongStream.rangeClosed(1, 100).map(i -> (101 - i) * 1000).toArray();
        Latencies l = Latencies.of(micros);

        assertThat(l.count()).isEqualTo(100);
        assertThat(l.percentileMs(50)).isEqualTo(50.0);
        assertThat(l.percentileMs(99)).isEqualTo(99.0);
        assertThat(l.percentileMs(100)).isEqualTo(100.0);
        assertThat(l.maxMs()).isEqualTo(100.0);
    }

    @Test
    void aFewSamplesRoundTheRankUp() {
        Latencies l = Latencies.of(3000, 1000, 2000);
        assertThat(l.percentileMs(50)).isEqualTo(2.0);
        assertThat(l.percentileMs(99)).isEqualTo(3.0);
        assertThat(l.percentileMs(1)).isEqualTo(1.0);
    }

    @Test
    void noSamplesHaveNoPercentiles() {
        Latencies l = Latencies.of();
        assertThat(l.count()).isZero();
        assertThat(l.percentileMs(50)).isNull();
        assertThat(l.maxMs()).isNull();
    }

    @Test
    void badInputIsRefused() {
        assertThatThrownBy(() -> Latencies.of(-1)).hasMessage("latency < 0: -1");
        assertThatThrownBy(() -> Latencies.of(1).percentileMs(0)).hasMessage("percentile not in (0, 100]: 0.0");
        assertThatThrownBy(() -> Latencies.of(1).percentileMs(101)).hasMessage("percentile not in (0, 100]: 101.0");
    }
}
