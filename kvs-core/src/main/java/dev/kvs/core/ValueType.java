package dev.kvs.core;

/**
 * What a key's record holds: Redis's {@code TYPE}. A string's record holds its value; a hash's or a
 * set's holds a small header and its members live in pages of their own, so a write to a structure of
 * any size rewrites one page. The code of each type is persisted in the record (a record written
 * before types existed reads as a {@link #STRING}); new types (sorted set) take the next codes.
 */
public enum ValueType {
    STRING,
    /** Fields with values. */
    HASH,
    /** Members without values (stored as a hash of empty values). */
    SET,
    /**
     * Elements in order, each a member named by its position ({@link ListLayout}): pushes and pops at
     * either end write one member and the list's bounds.
     */
    LIST;

    /** {@link #values()}, which copies its array on every call: read for every record read. */
    private static final ValueType[] ALL = values();

    /** The persisted code: the ordinal, fixed once written. */
    public int code() {
        return ordinal();
    }

    /** @throws IllegalArgumentException if {@code code} names no type */
    public static ValueType ofCode(int code) {
        ValueType[] all = ALL;
        if (code < 0 || code >= all.length) throw new IllegalArgumentException("no value type of code " + code);
        return all[code];
    }

    /** True for types whose members live in pages (everything but a string). */
    public boolean isStructure() {
        return this != STRING;
    }
}
