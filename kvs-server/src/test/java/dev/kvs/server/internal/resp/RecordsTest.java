package dev.kvs.server.internal.resp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;
import org.junit.jupiter.api.Test;

/**
 * WRONGTYPE is decided from complete records only: a hash whose members have not arrived (a backup's
 * unfinished key) or are lost keeps the behaviour every incomplete record has.
 */
class RecordsTest {
    private static RecordHeader hash(RecordState state) {
        return RecordHeader.structure(state, TxId.of(1, 1), ValueType.HASH, 0);
    }

    @Test
    void onlyACompleteStructureIsAWrongTypeForAStringCommand() {
        assertThatThrownBy(() -> Records.requireString(hash(RecordState.COMPLETE)))
                .isInstanceOf(WrongTypeException.class);
        assertThatThrownBy(() -> Records.requireString(new StoredValue(hash(RecordState.COMPLETE), new byte[0])))
                .isInstanceOf(WrongTypeException.class);
        for (RecordState state : new RecordState[] {RecordState.UNFINISHED, RecordState.LOST}) {
            Records.requireString(hash(state));
            assertThat(Records.structure(hash(state))).as("%s", state).isFalse();
        }
        Records.requireString((RecordHeader) null);
        Records.requireString(StoredValue.tombstone(TxId.of(1, 2)));
        Records.requireString(StoredValue.complete(TxId.of(1, 3), "v".getBytes()));
        assertThat(Records.structure(hash(RecordState.COMPLETE))).isTrue();
        assertThat(Records.typeName(ValueType.SET)).isEqualTo("set");
    }
}
