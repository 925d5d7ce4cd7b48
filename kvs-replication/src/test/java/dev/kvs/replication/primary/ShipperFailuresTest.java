package dev.kvs.replication.primary;

import static dev.kvs.replication.primary.ShipperFailures.FIRST_RETRY_NANOS;
import static dev.kvs.replication.primary.ShipperFailures.MAX_RETRY_NANOS;
import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.replication.primary.ShipperFailures.Kind;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class ShipperFailuresTest {
    private static final RuntimeException FAILURE = new IllegalStateException("test");
    private static final long T = 1_000_000_000L;

    private final ShipperFailures failures = new ShipperFailures();

    private static byte[] key(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    @Test
    void aKeyPutBackIsDueOnceItsBackoffIsOver() {
        failures.retryLater(key("a"), Kind.READ, FAILURE, T);

        assertThat(failures.due(T + FIRST_RETRY_NANOS - 1)).isEmpty();
        assertThat(failures.due(T + FIRST_RETRY_NANOS)).containsExactly(key("a"));
        assertThat(failures.due(T + FIRST_RETRY_NANOS + 1))
                .as("handed back once")
                .isEmpty();
    }

    @Test
    void eachFailureOfAKeyInARowDoublesItsBackoffUpToTheMost() {
        assertThat(ShipperFailures.backoffNanos(1)).isEqualTo(FIRST_RETRY_NANOS);
        assertThat(ShipperFailures.backoffNanos(2)).isEqualTo(2 * FIRST_RETRY_NANOS);
        assertThat(ShipperFailures.backoffNanos(3)).isEqualTo(4 * FIRST_RETRY_NANOS);
        assertThat(ShipperFailures.backoffNanos(1_000)).isEqualTo(MAX_RETRY_NANOS);

        failures.retryLater(key("a"), Kind.READ, FAILURE, T);
        long again = T + FIRST_RETRY_NANOS;
        assertThat(failures.due(again)).containsExactly(key("a"));
        failures.retryLater(key("a"), Kind.READ, FAILURE, again);
        assertThat(failures.due(again + 2 * FIRST_RETRY_NANOS - 1)).isEmpty();
        assertThat(failures.due(again + 2 * FIRST_RETRY_NANOS)).containsExactly(key("a"));
    }

    @Test
    void aKeyThatStoppedFailingStartsAgainFromTheFirstBackoff() {
        failures.retryLater(key("a"), Kind.READ, FAILURE, T);
        assertThat(failures.due(T + FIRST_RETRY_NANOS)).containsExactly(key("a"));
        long later = T + FIRST_RETRY_NANOS + MAX_RETRY_NANOS + 1;
        assertThat(failures.due(later)).isEmpty(); // forgets it

        failures.retryLater(key("a"), Kind.READ, FAILURE, later);
        assertThat(failures.due(later + FIRST_RETRY_NANOS)).containsExactly(key("a"));
    }

    @Test
    void otherKeysAreNotHeldBackByOneThatKeepsFailing() {
        for (int i = 0; i < 5; i++) failures.retryLater(key("bad"), Kind.READ, FAILURE, T);
        failures.retryLater(key("good"), Kind.CHUNK, FAILURE, T);

        assertThat(failures.due(T + FIRST_RETRY_NANOS)).containsExactly(key("good"));
        assertThat(failures.due(T + ShipperFailures.backoffNanos(5))).containsExactly(key("bad"));
    }

    @Test
    void everyFailureIsCounted() {
        failures.failed(Kind.ROUND, FAILURE);
        failures.failed(Kind.ROUND, FAILURE); // logged once, counted twice
        failures.retryLater(key("a"), Kind.SEND, FAILURE, T);

        assertThat(failures.count()).isEqualTo(3);
    }
}
