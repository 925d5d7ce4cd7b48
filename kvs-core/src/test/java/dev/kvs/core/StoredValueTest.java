package dev.kvs.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class StoredValueTest {
    @Test
    void completeComputesTheChecksumAndLength() {
        StoredValue v = StoredValue.complete(TxId.of(1, 2), "abc".getBytes());
        assertThat(v.header())
                .isEqualTo(
                        new RecordHeader(RecordState.COMPLETE, TxId.of(1, 2), Checksums.crc32c("abc".getBytes()), 3));
        assertThat(v.state()).isEqualTo(RecordState.COMPLETE);
        assertThat(v.txId()).isEqualTo(TxId.of(1, 2));
        assertThat(v.header().isServable()).isTrue();
    }

    @Test
    void recordsWithoutAValueCarryAnEmptyOne() {
        assertThat(StoredValue.unfinished(TxId.of(1, 1), 5, 100).value()).isEmpty();
        assertThat(StoredValue.lost(TxId.of(1, 1), 5, 100).header().isServable())
                .isFalse();
        assertThat(StoredValue.tombstone(TxId.of(1, 1)).header().valueLength()).isZero();
    }

    @Test
    void equalityComparesValueBytes() {
        assertThat(StoredValue.complete(TxId.of(1, 1), new byte[] {1}))
                .isEqualTo(StoredValue.complete(TxId.of(1, 1), new byte[] {1}))
                .hasSameHashCodeAs(StoredValue.complete(TxId.of(1, 1), new byte[] {1}))
                .isNotEqualTo(StoredValue.complete(TxId.of(1, 1), new byte[] {2}));
        assertThat(StoredValue.complete(TxId.of(1, 1), new byte[7]).toString()).contains("7 bytes");
    }

    @Test
    void rejectsInconsistentRecords() {
        RecordHeader complete = new RecordHeader(RecordState.COMPLETE, TxId.ZERO, 0, 2);
        assertThatThrownBy(() -> new StoredValue(complete, new byte[3]))
                .hasMessage("valueLength != value.length: 2 != 3");
        RecordHeader tomb = new RecordHeader(RecordState.TOMBSTONE, TxId.ZERO, 0, 0);
        assertThatThrownBy(() -> new StoredValue(tomb, new byte[1])).hasMessageContaining("TOMBSTONE record carries");
        assertThatThrownBy(() -> new StoredValue(null, new byte[0])).isInstanceOf(NullPointerException.class);
        assertThatThrownBy(() -> new RecordHeader(RecordState.LOST, TxId.ZERO, 0, -1))
                .hasMessage("valueLength < 0: -1");
    }
}
