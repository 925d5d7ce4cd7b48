package dev.kvs.core;

/** The replication state of a stored record. */
public enum RecordState {
    /** The value is present and whole. */
    COMPLETE,
    /** The key is known (its key packet arrived) but its value has not arrived yet. */
    UNFINISHED,
    /** The value will never arrive from the old primary; access is fenced until resolved. */
    LOST,
    /** The key was deleted by the write with this record's TxId. */
    TOMBSTONE;

    private static final RecordState[] VALUES = values();

    /** The state with ordinal {@code code}. */
    public static RecordState ofCode(int code) {
        if (code < 0 || code >= VALUES.length) throw new IllegalArgumentException("state code out of range: " + code);
        return VALUES[code];
    }
}
