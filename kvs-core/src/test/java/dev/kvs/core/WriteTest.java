package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class WriteTest {
    @Test
    void keepAndRemoveAreSingletonsAndPutCarriesItsValue() {
        assertThat(Write.keep()).isSameAs(Write.Keep.INSTANCE);
        assertThat(Write.remove()).isSameAs(Write.Remove.INSTANCE);
        StoredValue v = StoredValue.tombstone(TxId.of(1, 1));
        assertThat(Write.put(v)).isEqualTo(new Write.Put(v));
        assertThatThrownBy(() -> Write.put(null)).isInstanceOf(NullPointerException.class);
    }
}
