package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import org.junit.jupiter.api.Test;

class DeltaTest {
    private static final StoredValue FIVE = StoredValue.complete(TxId.of(1, 1), new byte[5]);

    @Test
    void insertAddsAnEntryItsKeyAndValue() {
        assertThat(Delta.of(3, false, false, 0, FIVE)).isEqualTo(new Delta(1, 1, 3, 5));
    }

    @Test
    void insertOfATombstoneIsAnEntryButNotLive() {
        assertThat(Delta.of(3, false, false, 0, StoredValue.tombstone(TxId.of(1, 1))))
                .isEqualTo(new Delta(1, 0, 3, 0));
    }

    @Test
    void overwriteChangesOnlyTheValueAndLiveness() {
        assertThat(Delta.of(3, true, false, 9, FIVE)).isEqualTo(new Delta(0, 1, 0, -4));
        assertThat(Delta.of(3, true, true, 9, FIVE)).isEqualTo(new Delta(0, 0, 0, -4));
    }

    @Test
    void removeTakesAwayWhatTheRecordHeld() {
        assertThat(Delta.of(3, true, true, 9, null)).isEqualTo(new Delta(-1, -1, -3, -9));
        assertThat(Delta.of(3, false, false, 0, null)).isEqualTo(Delta.NONE);
    }

    @Test
    void deltasAddUp() {
        Delta sum = new Delta(1, 1, 3, 5).plus(new Delta(-1, 0, -2, 7));
        assertThat(sum).isEqualTo(new Delta(0, 1, 1, 12));
        assertThat(sum.bytes()).isEqualTo(13);
    }
}
