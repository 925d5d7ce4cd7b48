package dev.kvs.server.internal.write;

import dev.kvs.core.Checksums;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import dev.kvs.replication.StructureEffect;
import dev.kvs.replication.WriteOrder;
import java.util.List;

/**
 * {@link Writes.Ordering} over one {@link WriteOrder}: what a command's decision calls, under the
 * store's lock for the key, to give a write its TxId. Remembers whether it ordered one (for {@link
 * LastWrite}). Confined to the command's thread.
 */
final class OrderingOf implements Writes.Ordering {
    private final WriteOrder order;
    /** True once a TxId was ordered. */
    boolean ordered;

    OrderingOf(WriteOrder order) {
        this.order = order;
    }

    /** Orders the write of {@code value} to {@code key}; its record, checksummed once for both. */
    StoredValue complete(byte[] key, byte[] value, long expireAtMillis) {
        ordered = true;
        int checksum = Checksums.crc32c(value);
        TxId t = order.put(key, value.length, checksum, expireAtMillis);
        return new StoredValue(
                new RecordHeader(RecordState.COMPLETE, t, checksum, value.length, expireAtMillis), value);
    }

    /** Orders the write of a staged value of {@code length} bytes to {@code key}; its record's header. */
    RecordHeader completeStaged(byte[] key, int length, int checksum, long expireAtMillis) {
        ordered = true;
        TxId t = order.put(key, length, checksum, expireAtMillis);
        return new RecordHeader(RecordState.COMPLETE, t, checksum, length, expireAtMillis);
    }

    @Override
    public Write put(byte[] key, byte[] value, long expireAtMillis) {
        return Write.put(complete(key, value, expireAtMillis));
    }

    @Override
    public Write remove(byte[] key) {
        ordered = true;
        order.delete(key);
        return Write.remove();
    }

    @Override
    public TxId structure(byte[] key, ValueType type, long expireAtMillis) {
        ordered = true;
        return order.putStructure(key, type, expireAtMillis);
    }

    @Override
    public TxId structure(byte[] key, ValueType type, long expireAtMillis, StructureEffect effect) {
        ordered = true;
        return order.putStructure(key, type, expireAtMillis, effect);
    }

    @Override
    public TxId renameStructure(byte[] source, byte[] key, long expireAtMillis) {
        ordered = true;
        // no value crosses with the key packet: a structure's header has no length or checksum
        return order.rename(source, key, 0, 0, expireAtMillis);
    }

    @Override
    public List<Write> rename(byte[] source, byte[] key, byte[] value, long expireAtMillis) {
        ordered = true;
        int checksum = Checksums.crc32c(value);
        // the key keeps the source's expiry
        TxId t = order.rename(source, key, value.length, checksum, expireAtMillis);
        return List.of(
                Write.remove(),
                Write.put(new StoredValue(
                        new RecordHeader(RecordState.COMPLETE, t, checksum, value.length, expireAtMillis), value)));
    }
}
