package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.StoreConfig;
import dev.kvs.core.StoreFullException;
import org.junit.jupiter.api.Test;

class CapacityTest {
    private final Capacity capacity =
            new Capacity(StoreConfig.builder().maxEntries(2).maxBytes(100).build());

    @Test
    void reserveThenCommitCountsTheWrite() {
        Delta insert = new Delta(1, 1, 3, 10);
        capacity.reserve(insert);
        capacity.commit(insert);
        assertThat(capacity.entries()).isEqualTo(1);
        assertThat(capacity.live()).isEqualTo(1);
        assertThat(capacity.keyBytes()).isEqualTo(3);
        assertThat(capacity.valueBytes()).isEqualTo(10);
    }

    @Test
    void cancelGivesBackTheReservation() {
        Delta insert = new Delta(1, 1, 3, 10);
        capacity.reserve(insert);
        capacity.cancel(insert);
        assertThat(capacity.entries()).isZero();
        assertThat(capacity.valueBytes() + capacity.keyBytes()).isZero();
    }

    @Test
    void tooManyEntriesIsRefusedWithTheCountAndLimit() {
        capacity.reserve(new Delta(2, 2, 2, 0));
        assertThatThrownBy(() -> capacity.reserve(new Delta(1, 1, 1, 0)))
                .isInstanceOf(StoreFullException.class)
                .hasMessage("store full: 2 entries (maxEntries 2)");
        assertThat(capacity.tryReserve(new Delta(1, 1, 1, 0))).isFalse();
        assertThat(capacity.entries()).isEqualTo(2);
    }

    @Test
    void tooManyBytesIsRefusedWithoutReservingTheEntry() {
        assertThatThrownBy(() -> capacity.reserve(new Delta(1, 1, 1, 100)))
                .isInstanceOf(StoreFullException.class)
                .hasMessage("store full: 0 bytes + 101 new (maxBytes 100)");
        assertThat(capacity.tryReserve(new Delta(1, 1, 1, 100))).isFalse();
        assertThat(capacity.entries()).isZero();
    }

    @Test
    void shrinkingIsAppliedOnlyOnCommit() {
        Delta insert = new Delta(1, 1, 1, 50);
        capacity.reserve(insert);
        capacity.commit(insert);
        Delta shrink = new Delta(0, 0, 0, -40);
        capacity.reserve(shrink);
        assertThat(capacity.valueBytes()).isEqualTo(50);
        capacity.commit(shrink);
        assertThat(capacity.valueBytes()).isEqualTo(10);
    }

    @Test
    void settleReplacesAnInsertReservationWithWhatAnOverwriteUsed() {
        Delta first = new Delta(1, 1, 1, 40);
        capacity.reserve(first);
        capacity.commit(first);
        Delta asNew = new Delta(1, 1, 1, 30);
        assertThat(capacity.tryReserve(asNew)).isTrue();
        capacity.settle(asNew, new Delta(0, 0, 0, -10));
        assertThat(capacity.entries()).isEqualTo(1);
        assertThat(capacity.live()).isEqualTo(1);
        assertThat(capacity.keyBytes()).isEqualTo(1);
        assertThat(capacity.valueBytes()).isEqualTo(30);
    }

    @Test
    void resetSetsEveryCounter() {
        capacity.reset(5, 4, 3, 2);
        assertThat(new long[] {capacity.entries(), capacity.live(), capacity.keyBytes(), capacity.valueBytes()})
                .containsExactly(5, 4, 3, 2);
        assertThat(capacity.maxEntries()).isEqualTo(2);
        assertThat(capacity.maxBytes()).isEqualTo(100);
    }
}
