package dev.kvs.core.log;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class ThrottledLogTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final ThrottledLog log =
            new ThrottledLog(LoggerFactory.getLogger(ThrottledLogTest.class), Duration.ofSeconds(10), now::get);

    @Test
    void theFirstEventIsWrittenAndTheRestOfItsIntervalOnlyCounted() {
        assertThat(log.warn("refused {}", "a")).isTrue();
        for (int i = 0; i < 1000; i++) assertThat(log.warn("refused {}", i)).isFalse();
        assertThat(log.events()).isEqualTo(1001);
    }

    @Test
    void aLineIsWrittenAgainOnceTheIntervalHasPassed() {
        log.warn("x");
        now.addAndGet(Duration.ofSeconds(10).toNanos() - 1);
        assertThat(log.warn("x")).isFalse();
        now.addAndGet(1);
        assertThat(log.warn("x")).isTrue();
        assertThat(log.warn("x")).isFalse();
    }

    @Test
    void aTightLoopWritesAtMostOneLinePerInterval() {
        int written = 0;
        for (int i = 0; i < 100_000; i++) {
            if (log.warn("refused {}", i)) written++;
            now.addAndGet(Duration.ofMillis(1).toNanos()); // 100 s in all
        }
        assertThat(written).isBetween(10, 11);
        assertThat(log.events()).isEqualTo(100_000);
    }

    @Test
    void anIntervalMustBePositive() {
        assertThatThrownBy(() -> new ThrottledLog(LoggerFactory.getLogger("x"), Duration.ZERO, now::get))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("PT0S");
    }
}
