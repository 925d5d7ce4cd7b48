package dev.kvs.core.internal;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;

/**
 * A record as the Chronicle record maps hold it: header fields plus either the value itself (inline)
 * or the id of the blob in {@link ValueChunks} that holds it, or for a complete hash or set its
 * {@link MembersHeader} (its members live in {@link MemberPages}). Encoded by {@link RecordMarshaller}.
 */
sealed class Record permits ValueInto {
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
    /** What the record holds; a structure has no value and no blob. */
    final ValueType type;
    /** A complete structure's members header, read even for a header-only read; else null. */
    final MembersHeader members;

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
        this(state, epoch, seq, checksum, valueLength, blobId, value, expireAt, ValueType.STRING, null);
    }

    Record(
            RecordState state,
            long epoch,
            long seq,
            int checksum,
            int valueLength,
            long blobId,
            byte[] value,
            long expireAt,
            ValueType type,
            MembersHeader members) {
        if (type.isStructure() && (blobId != NO_BLOB || (state == RecordState.COMPLETE) != (members != null))) {
            throw new IllegalArgumentException(
                    "a " + state + " " + type + " record with blob " + blobId + " and members " + members);
        }
        this.type = type;
        this.members = members;
        this.state = state;
        this.epoch = epoch;
        this.seq = seq;
        this.checksum = checksum;
        this.valueLength = valueLength;
        this.blobId = blobId;
        this.value = value;
        this.expireAt = expireAt;
    }

    /**
     * The record of a string value, or of a structure that is not complete (a key packet whose value has
     * not arrived, or was lost).
     *
     * @throws IllegalArgumentException for a complete structure: its members are written with {@link
     *     #structure}
     */
    static Record inline(StoredValue v) {
        RecordHeader h = v.header();
        if (h.type().isStructure() && h.state() == RecordState.COMPLETE) {
            throw new IllegalArgumentException(
                    "a complete " + h.type() + " is written by the structure operations, not as a value");
        }
        return new Record(
                h.state(),
                h.txId().epoch(),
                h.txId().seq(),
                h.checksum(),
                h.valueLength(),
                NO_BLOB,
                v.value(),
                h.expireAtMillis(),
                h.type(),
                null);
    }

    /** The record of a complete structure with {@code members}. */
    static Record structure(RecordHeader h, MembersHeader members) {
        return new Record(
                h.state(),
                h.txId().epoch(),
                h.txId().seq(),
                0,
                0,
                NO_BLOB,
                null,
                h.expireAtMillis(),
                h.type(),
                members);
    }

    /** This record with another TxId and expiry, its value, blob or members kept. */
    Record restamped(TxId txId, long expireAtMillis) {
        return new Record(
                state, txId.epoch(), txId.seq(), checksum, valueLength, blobId, value, expireAtMillis, type, members);
    }

    /**
     * This record fenced: {@link RecordState#LOST}, its TxId, type, checksum, length and expiry kept, its
     * value, blob or members dropped. For a key whose bytes a crash tore, so what it held is not known.
     */
    Record fenced() {
        return new Record(RecordState.LOST, epoch, seq, checksum, valueLength, NO_BLOB, null, expireAt, type, null);
    }

    boolean isStructure() {
        return type.isStructure();
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

    /**
     * Value bytes this record holds (counted against maxBytes): only a complete value has any; a
     * structure counts its members header and its pages ({@link MembersHeader#footprint}).
     */
    long storedValueBytes(int keyLength) {
        if (state != RecordState.COMPLETE) return 0;
        return members == null ? valueLength : MembersHeader.BYTES + members.footprint(keyLength);
    }

    RecordHeader header() {
        return new RecordHeader(state, new TxId(epoch, seq), checksum, valueLength, expireAt, type);
    }

    /** The stored value of an inline record. */
    StoredValue toStoredValue() {
        return new StoredValue(header(), state == RecordState.COMPLETE && !isStructure() ? value : EMPTY);
    }

    StoredValue toStoredValue(byte[] chunkedValue) {
        return new StoredValue(header(), chunkedValue);
    }
}
