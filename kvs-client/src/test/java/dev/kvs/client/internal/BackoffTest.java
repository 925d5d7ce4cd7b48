package dev.kvs.client.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class BackoffTest {
    @Test
    void doublesFromTenMillisecondsUpToHalfASecond() {
        List<Long> millis = new ArrayList<>();
        for (int i = 0; i < 9; i++) millis.add(TimeUnit.NANOSECONDS.toMillis(Backoff.delayNanos(i)));
        assertThat(millis).containsExactly(10L, 20L, 40L, 80L, 160L, 320L, 500L, 500L, 500L);
    }

    @Test
    void neverOverflows() {
        assertThat(Backoff.delayNanos(Integer.MAX_VALUE)).isEqualTo(Backoff.MAX_NANOS);
        assertThatThrownBy(() -> Backoff.delayNanos(-1)).hasMessage("retry < 0: -1");
    }
}
