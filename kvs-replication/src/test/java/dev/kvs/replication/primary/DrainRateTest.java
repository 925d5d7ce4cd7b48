package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.TxId;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The rate the backup acknowledges value bytes at, on a clock the test moves. */
class DrainRateTest {
    private static final long SECOND = 1_000_000_000L;
    /** The pipe is full from this many bytes in flight. */
    private static final int FULL = 100;

    private final AtomicLong clock = new AtomicLong(-3 * SECOND);
    private final DrainRate rate = new DrainRate(FULL, clock::get);
    private long seq;

    private long bytesPerSecond() {
        double r = rate.bytesPerNano();
        return r < 0 ? -1 : Math.round(r * 1e9);
    }

    private TxId ship(int bytes) {
        TxId t = TxId.of(1, ++seq);
        rate.shipped(t, bytes);
        return t;
    }

    /** A value of {@code bytes} shipped into an empty pipe and acknowledged {@code seconds} later. */
    private void alone(int bytes, long seconds) {
        TxId t = ship(bytes);
        clock.addAndGet(seconds * SECOND);
        rate.acked(t);
    }

    @Test
    void withoutFullTimeTheRateIsUnknown() {
        assertThat(bytesPerSecond()).isEqualTo(-1);
        alone(1_000, 1);
        assertThat(bytesPerSecond()).isEqualTo(1_000);
        clock.addAndGet(DrainRate.WINDOW_NANOS);
        assertThat(bytesPerSecond()).isEqualTo(-1);
    }

    @Test
    void theRateIsTheBytesOverTheFullTimeOfTheLastTenSeconds() {
        alone(1_000, 1);
        alone(3_000, 1);
        assertThat(bytesPerSecond()).isEqualTo(2_000);

        clock.addAndGet(DrainRate.WINDOW_NANOS); // the link became slower
        alone(500, 1);
        assertThat(bytesPerSecond()).isEqualTo(500);
    }

    @Test
    void aBurstOfAcknowledgementsDoesNotLookLikeAFastLink() {
        TxId[] shipped = new TxId[4];
        for (int i = 0; i < 4; i++) shipped[i] = ship(1_000);
        clock.addAndGet(4 * SECOND);
        for (TxId t : shipped) rate.acked(t); // four values acknowledged at the same moment
        assertThat(bytesPerSecond()).isEqualTo(1_000);
    }

    @Test
    void smallValuesOneAtATimeSayNothingOfTheLink() {
        for (int i = 0; i < 20; i++) alone(FULL - 1, 1); // each a round trip: the writer's pace
        assertThat(bytesPerSecond()).isEqualTo(-1);
    }

    @Test
    void timeWithNothingInFlightIsNotCountedButAStalledLinkIs() {
        alone(1_000, 1);
        clock.addAndGet(2 * SECOND); // idle
        alone(1_000, 1);
        assertThat(bytesPerSecond()).isEqualTo(1_000);

        ship(1_000);
        rate.unshippedAll(); // the stream dropped: what was in flight is requeued
        clock.addAndGet(2 * SECOND); // the link down
        assertThat(bytesPerSecond()).isEqualTo(1_000);

        ship(1_000);
        clock.addAndGet(2 * SECOND); // in flight, nothing acknowledged: a stalled link
        assertThat(bytesPerSecond()).isEqualTo(500);
    }
}
