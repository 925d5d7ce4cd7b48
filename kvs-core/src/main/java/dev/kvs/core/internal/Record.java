package dev.kvs.core.internal;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;

/**
 * A record as the Chronicle record maps hold it: header fields plus either the value itself (inline)
 * or the id of the blob in {@link ValueChunks} that holds it. Encoded by {@link RecordMarshaller}.
 */
final class Record {
    static final long NO_BLOB = -1;
    private static final byte[] EMPTY = new byte[0];

    final RecordState state;
    final long epoch;
    final long seq;
    final int checksum;
    final int valueLength;
    /** {@link #NO_BLOB} when the value is inline. */
    final long blobId;
    /** The inline value; {@code null} for a chunked value or a header-only read. */
    final byte[] value;
    /** Epoch millis the key expires at, or {@link RecordHeader#NO_EXPIRY}. */
    final long expireAt;

    Record(RecordState state, long epoch, long seq, int checksum, int valueLength, long blobId, byte[] value) {
        this(state, epoch, seq, checksum, valueLength, blobId, value, RecordHeader.NO_EXPIRY);
    }

    Record(
            RecordState state,
            long epoch,
            long seq,
            int checksum,
            int valueLength,
            long blobId,
            byte[] value,
            long expireAt) {
        this.state = state;
        this.epoch = epoch;
        this.seq = seq;
        this.checksum = checksum;
        this.valueLength = valueLength;
        this.blobId = blobId;
        this.value = value;
        this.expireAt = expireAt;
    }

    static Record inline(StoredValue v) {
        RecordHeader h = v.header();
        return new Record(
                h.state(),
                h.txId().epoch(),
                h.txId().seq(),
                h.checksum(),
                h.valueLength(),
                NO_BLOB,
                v.value(),
                h.expireAtMillis());
    }

    static Record chunked(RecordHeader h, long blobId) {
        return new Record(
                h.state(),
                h.txId().epoch(),
                h.txId().seq(),
                h.checksum(),
                h.valueLength(),
                blobId,
                null,
                h.expireAtMillis());
    }

    boolean hasExpiry() {
        return expireAt != RecordHeader.NO_EXPIRY;
    }

    boolean isChunked() {
        return blobId != NO_BLOB;
    }

    boolean isLive() {
        return state != RecordState.TOMBSTONE;
    }

    /** Value bytes this record holds (counted against maxBytes): only a complete value has any. */
    long storedValueBytes() {
        return state == RecordState.COMPLETE ? valueLength : 0;
    }

    RecordHeader header() {
        return new RecordHeader(state, new TxId(epoch, seq), checksum, valueLength, expireAt);
    }

    /** The stored value of an inline record. */
    StoredValue toStoredValue() {
        return new StoredValue(header(), state == RecordState.COMPLETE ? value : EMPTY);
    }

    StoredValue toStoredValue(byte[] chunkedValue) {
        return new StoredValue(header(), chunkedValue);
    }
}
