package dev.kvs.core;

import java.util.Arrays;

/**
 * One record of a {@link KvStore}: a value with the metadata replication needs.
 *
 * <p>The value array is not copied: callers must not modify it after handing it over, nor modify the
 * array they get back.
 *
 * @param header state, TxId, checksum and length
 * @param value the value bytes; empty for {@code UNFINISHED}, {@code LOST} and {@code TOMBSTONE}
 */
public record StoredValue(RecordHeader header, byte[] value) {
    private static final byte[] EMPTY = new byte[0];

    public StoredValue {
        if (header == null) throw new NullPointerException("header == null");
        if (value == null) throw new NullPointerException("value == null");
        if (header.state() == RecordState.COMPLETE && header.valueLength() != value.length) {
            throw new IllegalArgumentException(
                    "valueLength != value.length: " + header.valueLength() + " != " + value.length);
        }
        if (header.state() != RecordState.COMPLETE && value.length != 0) {
            throw new IllegalArgumentException(
                    header.state() + " record carries a value of " + value.length + " bytes");
        }
    }

    /** A whole value written by {@code txId}; computes its checksum. */
    public static StoredValue complete(TxId txId, byte[] value) {
        return complete(txId, value, RecordHeader.NO_EXPIRY);
    }

    /**
     * A whole value written by {@code txId} that expires at {@code expireAtMillis} (epoch millis; {@link
     * RecordHeader#NO_EXPIRY} for never); computes its checksum.
     */
    public static StoredValue complete(TxId txId, byte[] value, long expireAtMillis) {
        return new StoredValue(
                new RecordHeader(RecordState.COMPLETE, txId, Checksums.crc32c(value), value.length, expireAtMillis),
                value);
    }

    /** A key whose value (of {@code valueLength} bytes with {@code checksum}) has not arrived. */
    public static StoredValue unfinished(TxId txId, int checksum, int valueLength) {
        return new StoredValue(new RecordHeader(RecordState.UNFINISHED, txId, checksum, valueLength), EMPTY);
    }

    /** A key whose value will never arrive. */
    public static StoredValue lost(TxId txId, int checksum, int valueLength) {
        return new StoredValue(new RecordHeader(RecordState.LOST, txId, checksum, valueLength), EMPTY);
    }

    /** A delete made by {@code txId}. */
    public static StoredValue tombstone(TxId txId) {
        return new StoredValue(new RecordHeader(RecordState.TOMBSTONE, txId, 0, 0), EMPTY);
    }

    public RecordState state() {
        return header.state();
    }

    public TxId txId() {
        return header.txId();
    }

    /** When the key expires (epoch millis), or {@link RecordHeader#NO_EXPIRY}. */
    public long expireAtMillis() {
        return header.expireAtMillis();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof StoredValue s && header.equals(s.header) && Arrays.equals(value, s.value);
    }

    @Override
    public int hashCode() {
        return header.hashCode() * 31 + Arrays.hashCode(value);
    }

    @Override
    public String toString() {
        return "StoredValue[" + header + ", " + value.length + " bytes]";
    }
}
