package dev.kvs.core;

/**
 * What a store knows about a record without reading its value: cheap to fetch even for a 64 MiB
 * value.
 *
 * @param state the replication state
 * @param txId the TxId of the write that produced this record
 * @param checksum CRC32C of the value (0 for an empty, tombstone or missing value)
 * @param valueLength length of the value in bytes; for an {@code UNFINISHED} or {@code LOST} record,
 *     the length the missing value is expected to have
 */
public record RecordHeader(RecordState state, TxId txId, int checksum, int valueLength) {
    public RecordHeader {
        if (state == null) throw new NullPointerException("state == null");
        if (txId == null) throw new NullPointerException("txId == null");
        if (valueLength < 0) throw new IllegalArgumentException("valueLength < 0: " + valueLength);
    }

    /** True if reads should serve this record's value. */
    public boolean isServable() {
        return state == RecordState.COMPLETE;
    }
}
