package dev.kvs.core;

/**
 * A member of a hash or set: its name (a hash's field) and value (empty for a set). Arrays are not
 * copied, as everywhere in {@link KvStore}.
 */
public record Member(byte[] name, byte[] value) {
    private static final byte[] EMPTY = new byte[0];

    public Member {
        if (name == null) throw new NullPointerException("name == null");
        if (value == null) throw new NullPointerException("value == null");
    }

    /** A set's member. */
    public static Member of(byte[] name) {
        return new Member(name, EMPTY);
    }
}
