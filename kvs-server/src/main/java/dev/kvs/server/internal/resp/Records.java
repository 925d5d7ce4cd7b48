package dev.kvs.server.internal.resp;

import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;

/** What commands ask of a record's state, answered in one place. */
final class Records {
    private Records() {}

    /** True if {@code h} is a key that exists for DEL, SETNX and the like: held and not deleted. */
    static boolean live(RecordHeader h) {
        return h != null && h.state() != RecordState.TOMBSTONE;
    }

    /** True if {@code v} holds its whole value (not a tombstone, not a key whose value is still to come). */
    static boolean complete(StoredValue v) {
        return v != null && v.state() == RecordState.COMPLETE;
    }

    /**
     * The expiry a read-modify-write keeps: INCR, INCRBYFLOAT, APPEND and SETRANGE keep the key's TTL,
     * as in Redis (GETSET, SET and MSET clear it).
     */
    static long ttlOf(StoredValue v) {
        return complete(v) ? v.expireAtMillis() : RecordHeader.NO_EXPIRY;
    }
}
