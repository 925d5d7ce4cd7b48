package dev.kvs.core.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.io.IORuntimeException;
import org.junit.jupiter.api.Test;

class RecordMarshallerTest {
    private static final RecordMarshaller M = RecordMarshaller.INSTANCE;

    private static Record roundTrip(Record r, Record using) {
        Bytes<?> bytes = Bytes.allocateElasticOnHeap(64);
        long size = M.size(r);
        M.write(bytes, size, r);
        assertThat(bytes.writePosition()).isEqualTo(size);
        return M.read(bytes, size, using);
    }

    @Test
    void inlineRecordsRoundTripInEveryState() {
        for (StoredValue v : new StoredValue[] {
            StoredValue.complete(TxId.of(Long.MAX_VALUE, 2), "hello".getBytes()),
            StoredValue.complete(TxId.of(0, 0), new byte[0]),
            StoredValue.unfinished(TxId.of(3, 4), -5, 600),
            StoredValue.lost(TxId.of(5, 6), 7, Integer.MAX_VALUE),
            StoredValue.tombstone(TxId.of(8, 9))
        }) {
            Record back = roundTrip(Record.inline(v), null);
            assertThat(back.toStoredValue()).isEqualTo(v);
            assertThat(back.isChunked()).isFalse();
        }
    }

    @Test
    void anExpiryAddsEightBytesAndRoundTripsInlineAndChunked() {
        StoredValue inline = StoredValue.complete(TxId.of(3, 4), "hello".getBytes(), 1_700_000_000_123L);
        assertThat(M.size(Record.inline(inline))).isEqualTo(RecordMarshaller.HEADER_BYTES + 8 + 5);
        assertThat(roundTrip(Record.inline(inline), null).toStoredValue()).isEqualTo(inline);
        Record header = roundTrip(Record.inline(inline), RecordMarshaller.HEADER_ONLY);
        assertThat(header.header().expireAtMillis()).isEqualTo(1_700_000_000_123L);

        StoredValue big = StoredValue.complete(TxId.of(1, 2), new byte[100_000], 42);
        Record chunked = Record.chunked(big.header(), 77);
        assertThat(M.size(chunked)).isEqualTo(RecordMarshaller.HEADER_BYTES + 8 + 8);
        Record back = roundTrip(chunked, null);
        assertThat(back.blobId).isEqualTo(77);
        assertThat(back.header()).isEqualTo(big.header());
    }

    @Test
    void onlyACompleteValueTakesRoomInline() {
        assertThat(M.size(Record.inline(StoredValue.complete(TxId.ZERO, new byte[10]))))
                .isEqualTo(RecordMarshaller.HEADER_BYTES + 10);
        assertThat(M.size(Record.inline(StoredValue.unfinished(TxId.ZERO, 1, 1 << 20))))
                .isEqualTo(RecordMarshaller.HEADER_BYTES);
    }

    @Test
    void chunkedRecordsCarryTheBlobIdInsteadOfTheValue() {
        StoredValue v = StoredValue.complete(TxId.of(1, 2), new byte[100_000]);
        Record r = Record.chunked(v.header(), 77);
        assertThat(M.size(r)).isEqualTo(RecordMarshaller.HEADER_BYTES + 8);
        Record back = roundTrip(r, null);
        assertThat(back.blobId).isEqualTo(77);
        assertThat(back.header()).isEqualTo(v.header());
        assertThat(back.value).isNull();
    }

    @Test
    void aHeaderOnlyReadSkipsTheValue() {
        StoredValue v = StoredValue.complete(TxId.of(1, 2), "hello".getBytes());
        Record back = roundTrip(Record.inline(v), RecordMarshaller.HEADER_ONLY);
        assertThat(back.value).isNull();
        assertThat(back.header()).isEqualTo(v.header());
        assertThat(back.storedValueBytes(3)).isEqualTo(5);
    }

    @Test
    void aRecordWhoseSizeDisagreesWithItsLengthIsCorrupt() {
        Bytes<?> bytes = Bytes.allocateElasticOnHeap(64);
        Record r = Record.inline(StoredValue.complete(TxId.of(1, 2), "hello".getBytes()));
        M.write(bytes, M.size(r), r);
        assertThatThrownBy(() -> M.read(bytes, M.size(r) - 1, null))
                .isInstanceOf(IORuntimeException.class)
                .hasMessageContaining("corrupt record");
    }

    /**
     * The bytes the store wrote before types existed (flags: state, chunked, expires; epoch, seq,
     * checksum, length, expiry, value), written here by hand: they read as a string, unchanged.
     */
    @Test
    void aRecordFromBeforeTypesReadsAsAString() {
        Bytes<?> bytes = Bytes.allocateElasticOnHeap(64);
        bytes.writeByte((byte) (RecordState.COMPLETE.ordinal() | 8)); // expires
        bytes.writeLong(3).writeLong(4).writeInt(0x1234_5678).writeInt(5).writeLong(1_700_000_000_123L);
        bytes.write("hello".getBytes());
        Record back = M.read(bytes, bytes.writePosition(), null);
        assertThat(back.header())
                .isEqualTo(new RecordHeader(RecordState.COMPLETE, TxId.of(3, 4), 0x1234_5678, 5, 1_700_000_000_123L));
        assertThat(back.header().type()).isEqualTo(ValueType.STRING);
        assertThat(back.value).isEqualTo("hello".getBytes());
    }

    @Test
    void aStructureCarriesItsMembersHeaderEvenInAHeaderOnlyRead() {
        MembersHeader members = new MembersHeader(7, 3, 2, -42, 300);
        Record r = Record.structure(
                RecordHeader.structure(RecordState.COMPLETE, TxId.of(1, 2), ValueType.SET, 99), members);
        assertThat(M.size(r)).isEqualTo(RecordMarshaller.HEADER_BYTES + 8 + MembersHeader.BYTES);
        for (Record using : new Record[] {null, RecordMarshaller.HEADER_ONLY}) {
            Record back = roundTrip(r, using);
            assertThat(back.members).isEqualTo(members);
            assertThat(back.header()).isEqualTo(r.header());
            assertThat(back.toStoredValue().value()).isEmpty();
        }
        assertThat(r.storedValueBytes(3)).isEqualTo(MembersHeader.BYTES + members.footprint(3));
        Record lost = Record.inline(new StoredValue(
                RecordHeader.structure(RecordState.LOST, TxId.of(1, 3), ValueType.HASH, 0), new byte[0]));
        assertThat(roundTrip(lost, null).header()).isEqualTo(lost.header());
        assertThat(lost.storedValueBytes(3)).isZero();
        assertThatThrownBy(() -> Record.inline(new StoredValue(
                        RecordHeader.structure(RecordState.COMPLETE, TxId.of(1, 3), ValueType.HASH, 0), new byte[0])))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void stateCodesFitTwoBits() {
        assertThat(RecordState.values()).hasSizeLessThanOrEqualTo(4);
        assertThat(M.readResolve()).isSameAs(M);
    }
}
