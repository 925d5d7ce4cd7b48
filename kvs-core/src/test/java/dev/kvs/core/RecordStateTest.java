package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RecordStateTest {
    @Test
    void codesAreOrdinals() {
        for (RecordState s : RecordState.values())
            assertThat(RecordState.ofCode(s.ordinal())).isSameAs(s);
        assertThatThrownBy(() -> RecordState.ofCode(4)).hasMessage("state code out of range: 4");
        assertThatThrownBy(() -> RecordState.ofCode(-1)).hasMessage("state code out of range: -1");
    }
}
