package dev.kvs.server.internal.expiry;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.KvStore;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.server.internal.TestClock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Reads hide expired records; the clock is read only for a record that has an expiry (one read per GET saved). */
class LiveReadsTest {
    private static final long T = 1_700_000_000_000L;

    private final KvStore store =
            KvStore.builder().maxEntries(10).maxBytes(1 << 16).open();
    private final TestClock clock = TestClock.fixedAt(T);
    private final LiveReads reads = new LiveReads(store, clock);
    private final byte[] plain = "plain".getBytes();
    private final byte[] expiring = "expiring".getBytes();

    LiveReadsTest() {
        store.put(plain, StoredValue.complete(TxId.of(1, 1), "p".getBytes()));
        store.put(expiring, StoredValue.complete(TxId.of(1, 2), "e".getBytes(), T));
    }

    @AfterEach
    void close() {
        store.close();
    }

    @Test
    void aRecordWithoutExpiryIsReadWithoutTheClock() {
        assertThat(reads.get(plain).value()).isEqualTo("p".getBytes());
        assertThat(reads.header(plain)).isNotNull();
        assertThat(reads.exists(plain)).isTrue();
        assertThat(clock.reads()).isZero();
    }

    @Test
    void aRecordWithAnExpiryIsHiddenOnceItPassed() {
        assertThat(reads.get(expiring)).isNotNull();
        assertThat(reads.exists(expiring)).isTrue();
        assertThat(clock.reads()).isPositive();
        clock.advance(Duration.ofMillis(1)); // an expiry passes after its millisecond
        assertThat(reads.get(expiring)).isNull();
        assertThat(reads.header(expiring)).isNull();
        assertThat(reads.exists(expiring)).isFalse();
        assertThat(reads.getAll(List.of(plain, expiring)))
                .satisfiesExactly(
                        v -> assertThat(v.value()).isEqualTo("p".getBytes()),
                        v -> assertThat(v).isNull());
    }
}
