package dev.kvs.core;

/**
 * What a {@link KvStore#copyMembers} decision writes: the destination's header (the members are the
 * source's) and what becomes of the source.
 *
 * @param destination the destination's header after the copy: a {@code COMPLETE} structure of the
 *     source's type, with the TxId and expiry the caller chose (RENAME and COPY keep the source's expiry)
 * @param source {@link Write#keep()} (COPY), {@link Write#remove()} (RENAME on a primary, whose key
 *     packet orders the source's delete), or a put of a tombstone (a backup's RENAME, which keeps the
 *     delete's TxId)
 */
public record MemberCopy(RecordHeader destination, Write source) {
    public MemberCopy {
        if (destination == null) throw new NullPointerException("destination == null");
        if (source == null) throw new NullPointerException("source == null");
        if (!destination.type().isStructure() || destination.state() != RecordState.COMPLETE) {
            throw new IllegalArgumentException("destination is not a complete structure: " + destination);
        }
        if (source instanceof Write.Put put && put.value().state() != RecordState.TOMBSTONE) {
            throw new IllegalArgumentException(
                    "the source may only become a tombstone: " + put.value().header());
        }
    }

    /** COPY: the source stays as it is. */
    public static MemberCopy keepingSource(RecordHeader destination) {
        return new MemberCopy(destination, Write.keep());
    }

    /** RENAME on a primary: the source is removed. */
    public static MemberCopy removingSource(RecordHeader destination) {
        return new MemberCopy(destination, Write.remove());
    }
}
