package dev.kvs.wan;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class LatenessHistogramTest {
    @Test
    void emptyReportsNothing() {
        assertThat(new LatenessHistogram().snapshot()).isEqualTo(WanLinkStats.Lateness.NONE);
    }

    @Test
    void valuesBelow32MicrosecondsAreExact() {
        LatenessHistogram h = new LatenessHistogram();
        for (int micros = 0; micros < 31; micros++) h.record(micros * 1000L + 999);

        assertThat(h.snapshot()).isEqualTo(new WanLinkStats.Lateness(31, 15, 30, 30));
    }

    @Test
    void everyBucketHoldsAContiguousRangeWithinOneSixteenthAndTheBucketsAreInOrder() {
        long lowest = 0;
        for (int i = 0; i < LatenessHistogram.BUCKETS; i++) {
            long highest = LatenessHistogram.highest(i);
            assertThat(LatenessHistogram.bucket(lowest))
                    .as("bucket of %d", lowest)
                    .isEqualTo(i);
            assertThat(LatenessHistogram.bucket(highest))
                    .as("bucket of %d", highest)
                    .isEqualTo(i);
            assertThat(highest - lowest).as("width of bucket %d", i).isLessThanOrEqualTo(Math.max(0, lowest / 16));
            lowest = highest + 1;
        }
        assertThat(LatenessHistogram.bucket(lowest)).isEqualTo(LatenessHistogram.BUCKETS - 1);
        assertThat(LatenessHistogram.bucket(Long.MAX_VALUE / 1000)).isEqualTo(LatenessHistogram.BUCKETS - 1);
    }

    @Test
    void percentilesAreUpperBoundsWithinOneSixteenthAndTheMaximumIsExact() {
        long seed = Long.getLong("lateness.seed", System.nanoTime());
        System.out.println("lateness seed=" + seed + " (replay with -Dlateness.seed=" + seed + ")");
        Random random = new Random(seed);
        LatenessHistogram h = new LatenessHistogram();
        long[] micros = new long[10_001];
        for (int i = 0; i < micros.length; i++) {
            micros[i] = (long) Math.exp(random.nextDouble() * 16); // 1 us to 9 s, log-uniform
            h.record(micros[i] * 1000);
        }
        Arrays.sort(micros);

        WanLinkStats.Lateness l = h.snapshot();

        assertThat(l.chunks()).isEqualTo(micros.length);
        assertThat(l.maxMicros()).isEqualTo(micros[micros.length - 1]);
        long p50 = micros[micros.length / 2];
        long p99 = micros[(int) Math.ceil(micros.length * 0.99) - 1];
        assertThat(l.p50Micros()).isBetween(p50, p50 + p50 / 16);
        assertThat(l.p99Micros()).isBetween(p99, p99 + p99 / 16);
    }

    @Test
    void negativeLatenessCountsAsZero() {
        LatenessHistogram h = new LatenessHistogram();
        h.record(-5_000);

        assertThat(h.snapshot()).isEqualTo(new WanLinkStats.Lateness(1, 0, 0, 0));
    }
}
