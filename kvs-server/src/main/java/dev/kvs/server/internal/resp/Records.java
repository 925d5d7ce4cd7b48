package dev.kvs.server.internal.resp;

import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.ValueType;
import dev.kvs.core.WrongTypeException;

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
     * True if {@code h} is a hash or set whose record is complete: what TYPE, WRONGTYPE and the
     * structure paths of RENAME, COPY and EXPIRE go by. A structure's record that is not complete (a
     * backup's unfinished key, a fenced one) is left to the paths every incomplete record takes.
     */
    static boolean structure(RecordHeader h) {
        return h != null && h.state() == RecordState.COMPLETE && h.type().isStructure();
    }

    /**
     * Refuses a string command's read or write of a hash or set (Redis's {@code WRONGTYPE}); under a
     * write's lock it writes nothing.
     *
     * @throws WrongTypeException if {@link #structure}
     */
    static void requireString(RecordHeader h) {
        if (structure(h)) throw new WrongTypeException(ValueType.STRING, h.type());
    }

    /** {@link #requireString} of {@code v}'s header ({@code null}: absent). */
    static void requireString(StoredValue v) {
        if (v != null) requireString(v.header());
    }

    /** Redis's name of a type, as TYPE answers and SCAN's TYPE option matches it. */
    static String typeName(ValueType type) {
        return switch (type) {
            case STRING -> "string";
            case HASH -> "hash";
            case SET -> "set";
            case LIST -> "list";
        };
    }

    /**
     * The expiry a read-modify-write keeps: INCR, INCRBYFLOAT, APPEND and SETRANGE keep the key's TTL,
     * as in Redis (GETSET, SET and MSET clear it).
     */
    static long ttlOf(StoredValue v) {
        return complete(v) ? v.expireAtMillis() : RecordHeader.NO_EXPIRY;
    }

    /** True if {@code w} removed a structure's last member, and so the key: Redis then publishes {@code del}. */
    static boolean emptied(MemberWrite w) {
        return w.written() && !live(w.header());
    }
}
