package dev.kvs.replication.primary;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RateLimiterTest {
    @Test
    void sendingThreeSecondsWorthAfterTheBurstTakesAtLeastTwoSeconds() {
        long rate = 1 << 20; // 1 MiB/s, burst of one second
        RateLimiter r = new RateLimiter(rate);
        long start = System.nanoTime();
        for (int i = 0; i < 3 * 16; i++) r.acquire((int) (rate / 16));
        // the first second's worth passes at once (the burst); the other two must wait for tokens
        assertThat(System.nanoTime() - start).isGreaterThanOrEqualTo(1_900_000_000L);
    }
}
