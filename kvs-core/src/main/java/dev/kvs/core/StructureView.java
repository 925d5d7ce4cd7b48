package dev.kvs.core;

import java.util.List;

/**
 * The keys of a {@link KvStore#updateStructures} call as its function sees them, under all their
 * locks: each key's header and, read on demand, the members of its hash or set. Valid only while the
 * function runs. The member reads throw as the store's ({@link KvStore#members} and the rest) do.
 */
public interface StructureView {
    /** The header of the {@code i}-th key's record, or {@code null} if the store holds none. */
    RecordHeader header(int i);

    /**
     * Every member of the {@code type} at the {@code i}-th key, empty if it holds nothing.
     *
     * @throws WrongTypeException if it holds another type
     * @throws IllegalStateException if its record of this type is not complete
     */
    List<Member> members(int i, ValueType type);

    /**
     * The values of {@code names} in the {@code type} at the {@code i}-th key, {@code null} where absent.
     *
     * @throws WrongTypeException, IllegalStateException as for {@link #members}
     */
    List<byte[]> getMembers(int i, ValueType type, List<byte[]> names);

    /**
     * Members of the {@code type} at the {@code i}-th key, 0 if it holds nothing.
     *
     * @throws WrongTypeException, IllegalStateException as for {@link #members}
     */
    long memberCount(int i, ValueType type);
}
