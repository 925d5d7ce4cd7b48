package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import org.junit.jupiter.api.Test;

class RecordTest {
    @Test
    void inlineRecordGivesBackItsStoredValue() {
        StoredValue v = StoredValue.complete(TxId.of(2, 3), "abc".getBytes());
        Record r = Record.inline(v);
        assertThat(r.isChunked()).isFalse();
        assertThat(r.isLive()).isTrue();
        assertThat(r.storedValueBytes(3)).isEqualTo(3);
        assertThat(r.toStoredValue()).isEqualTo(v);
    }

    @Test
    void onlyCompleteRecordsHoldValueBytesAndTombstonesAreNotLive() {
        assertThat(Record.inline(StoredValue.lost(TxId.of(1, 1), 1, 500)).storedValueBytes(3))
                .isZero();
        assertThat(Record.inline(StoredValue.tombstone(TxId.of(1, 1))).isLive()).isFalse();
    }

    @Test
    void chunkedRecordTakesItsValueFromTheChunks() {
        StoredValue v = StoredValue.complete(TxId.of(2, 3), new byte[10_000]);
        Record r = Record.chunked(v.header(), 9);
        assertThat(r.isChunked()).isTrue();
        assertThat(r.storedValueBytes(3)).isEqualTo(10_000);
        assertThat(r.toStoredValue(v.value())).isEqualTo(v);
    }
}
