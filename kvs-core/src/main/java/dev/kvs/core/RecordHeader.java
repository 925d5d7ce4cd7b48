package dev.kvs.core;

import java.time.Clock;

/**
 * What a store knows about a record without reading its value: cheap to fetch even for a 64 MiB
 * value.
 *
 * @param state the replication state
 * @param txId the TxId of the write that produced this record
 * @param checksum CRC32C of the value (0 for an empty, tombstone or missing value)
 * @param valueLength length of the value in bytes; for an {@code UNFINISHED} or {@code LOST} record,
 *     the length the missing value is expected to have
 * @param expireAtMillis when the key expires, in milliseconds since the epoch (the primary's clock
 *     turned every relative TTL into this absolute time); {@link #NO_EXPIRY} (0) if it never does
 * @param type what the record holds: for a hash or set (whose members live apart, read with {@link
 *     KvStore#getMembers} and the like) checksum and valueLength are 0, and TYPE/WRONGTYPE are decided
 *     from this header alone
 */
public record RecordHeader(
        RecordState state, TxId txId, int checksum, int valueLength, long expireAtMillis, ValueType type) {
    /** The {@code expireAtMillis} of a key without a TTL. */
    public static final long NO_EXPIRY = 0;

    public RecordHeader {
        if (state == null) throw new NullPointerException("state == null");
        if (txId == null) throw new NullPointerException("txId == null");
        if (valueLength < 0) throw new IllegalArgumentException("valueLength < 0: " + valueLength);
        if (expireAtMillis < 0) throw new IllegalArgumentException("expireAtMillis < 0: " + expireAtMillis);
        if (type == null) throw new NullPointerException("type == null");
        if (type.isStructure() && (checksum != 0 || valueLength != 0)) {
            throw new IllegalArgumentException(type + " header with checksum " + checksum + ", length " + valueLength);
        }
    }

    /** A string's header. */
    public RecordHeader(RecordState state, TxId txId, int checksum, int valueLength, long expireAtMillis) {
        this(state, txId, checksum, valueLength, expireAtMillis, ValueType.STRING);
    }

    /** The header of a structure (hash, set) written by {@code txId}. */
    public static RecordHeader structure(RecordState state, TxId txId, ValueType type, long expireAtMillis) {
        if (!type.isStructure()) throw new IllegalArgumentException("not a structure: " + type);
        return new RecordHeader(state, txId, 0, 0, expireAtMillis, type);
    }

    /** A header without expiry. */
    public RecordHeader(RecordState state, TxId txId, int checksum, int valueLength) {
        this(state, txId, checksum, valueLength, NO_EXPIRY);
    }

    /** True if the key has a TTL. */
    public boolean hasExpiry() {
        return expireAtMillis != NO_EXPIRY;
    }

    /**
     * True if the key has expired at {@code nowMillis}: as in Redis, a key lives up to and including
     * its expiry millisecond and is gone after it.
     */
    public boolean expiredAt(long nowMillis) {
        return expired(expireAtMillis, nowMillis);
    }

    /**
     * True if this header's expiry has passed on {@code clock}; the clock is read only if it has one (a read of
     * the wall clock per GET and SET of a key without expiry is not free).
     */
    public boolean expiredAt(Clock clock) {
        return hasExpiry() && expiredAt(clock.millis());
    }

    /** True if an expiry of {@code expireAtMillis} ({@link #NO_EXPIRY}: none) has passed at {@code nowMillis}. */
    public static boolean expired(long expireAtMillis, long nowMillis) {
        return expireAtMillis != NO_EXPIRY && nowMillis > expireAtMillis;
    }

    /** This header with another expiry. */
    public RecordHeader withExpireAt(long expireAtMillis) {
        return new RecordHeader(state, txId, checksum, valueLength, expireAtMillis, type);
    }

    /** This header with another TxId: a rewrite of the same value (an EXPIRE, PERSIST). */
    public RecordHeader withTxId(TxId txId) {
        return new RecordHeader(state, txId, checksum, valueLength, expireAtMillis, type);
    }

    /** True if reads should serve this record's value. */
    public boolean isServable() {
        return state == RecordState.COMPLETE;
    }
}
