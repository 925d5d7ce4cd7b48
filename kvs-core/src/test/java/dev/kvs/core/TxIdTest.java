package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class TxIdTest {
    @Test
    void ordersByEpochThenSeq() {
        assertThat(TxId.of(1, 9)).isLessThan(TxId.of(2, 0));
        assertThat(TxId.of(2, 1).isAfter(TxId.of(2, 0))).isTrue();
        assertThat(TxId.of(2, 0).isBefore(TxId.of(2, 1))).isTrue();
        assertThat(TxId.of(3, 4).next()).isEqualTo(TxId.of(3, 5));
        assertThat(TxId.ZERO).isEqualTo(TxId.of(0, 0));
    }

    @Test
    void parsesWhatItPrints() {
        assertThat(TxId.parse(TxId.of(12, 345).toString())).isEqualTo(TxId.of(12, 345));
        assertThat(TxId.of(12, 345)).hasToString("12:345");
    }

    @Test
    void rejectsNegativesAndBadText() {
        assertThatThrownBy(() -> TxId.of(-1, 0)).hasMessage("epoch < 0: -1");
        assertThatThrownBy(() -> TxId.of(0, -2)).hasMessage("seq < 0: -2");
        for (String bad : new String[] {"", ":", "1:", ":1", "a:1", "1:b", "12"}) {
            assertThatThrownBy(() -> TxId.parse(bad))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining(bad);
        }
    }
}
