package dev.kvs.replication;

import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The ordering of one client command's writes. A command calls {@link #put} or {@link #delete} for each key it writes,
 * inside the store's lock for that key (so per key, TxId order is store order), then exactly one of
 * {@link #commit()} (the store write succeeded) or {@link #abort()} (it failed: the TxIds are
 * announced as skipped so the sequence stays gap-free). Not thread-safe: one per command.
 */
public interface WriteOrder {
    /**
     * Assigns the next TxId to a write to {@code key} of a value of {@code valueLength} bytes whose CRC32C
     * is {@code checksum} ({@code Checksums.crc32c}), expiring at {@code expireAtMillis} (epoch millis, 0
     * for never). An order needs only the value's length and checksum, not its bytes (which may be staged
     * in the store, not in a heap array): the caller computes the checksum once for its own record too (a
     * CRC32C pass over a 1 MiB value is about 30 µs on the write's path), the key packet carries it, and
     * the absolute expiry travels in the key packet and with the value, so the backup expires the key at
     * the same moment.
     */
    TxId put(byte[] key, int valueLength, int checksum, long expireAtMillis);

    /**
     * Assigns the next TxId to a write that leaves a hash or set of {@code type} at {@code key}, expiring
     * at {@code expireAtMillis} (epoch millis, 0 for never: a new structure has none, a written one keeps
     * its own). Called under the key's lock as the store writes the members. The key packet carries the
     * type and expiry, no length or checksum: the backup receives the structure's canonical image when it
     * ships ({@code KvStore.image}), read from the store then, like a string's value. A write that removes
     * the last member leaves a tombstone of this TxId, and ships as the key's delete. This default, for
     * orders without a backup, orders it as a put of an empty value.
     */
    default TxId putStructure(byte[] key, ValueType type, long expireAtMillis) {
        if (!type.isStructure()) throw new IllegalArgumentException("not a structure: " + type);
        return put(key, 0, 0, expireAtMillis);
    }

    /**
     * {@link #putStructure(byte[], ValueType, long)} of a write whose {@code effect} on the structure at its
     * base is known (HSET, SADD, HDEL, SREM): the primary may ship the effect instead of the whole image
     * while the backup was last sent that base. This default ignores the effect.
     */
    default TxId putStructure(byte[] key, ValueType type, long expireAtMillis, StructureEffect effect) {
        return putStructure(key, type, expireAtMillis);
    }

    /** Assigns the next TxId to the deletion of {@code key} (replicated as a tombstone). */
    TxId delete(byte[] key);

    /**
     * Assigns the next TxId to a flush of the whole store (FLUSHDB): every key written before it is
     * gone, every later write stays. Call it while holding every key's lock ({@code KvStore.exclusive}),
     * so no write ordered before it is still on its way to the store. Replicated as a key packet in
     * every mode, {@code async} included.
     */
    TxId flush();

    /**
     * Assigns one TxId to the rename of {@code source} to {@code key} (RENAME): {@code source} is deleted
     * and {@code key} gets the source's value ({@code valueLength} bytes, CRC32C {@code checksum}) and its
     * expiry ({@code expireAtMillis}, epoch ms; 0: never), both at that TxId, under both keys' locks. The
     * backup sees both or neither.
     */
    TxId rename(byte[] source, byte[] key, int valueLength, int checksum, long expireAtMillis);

    /**
     * The writes are in the store. The future completes when the command may be answered in its
     * replication mode, or fails with {@link ReplicationTimeoutException}, or (not in {@code async}
     * mode) with {@link BackupCannotStoreException} while the backup's store refuses values.
     */
    CompletableFuture<Void> commit();

    /**
     * Commits this order and {@code later} (the orders of the following writes of one {@code EXEC}, in the
     * order they were made) as ONE unit, instead of {@link #commit()} on each: the backup makes the unit's
     * writes visible together, and a failover leaves them all complete or all fenced. Each future completes
     * as that order's {@link #commit()} would (a commit that throws gives a failed future). A primary with
     * a backup marks the unit's key packets with it and ships its values only once the backup has
     * acknowledged its last key packet (so a {@code sync} unit waits one round trip more). This default,
     * for orders without a backup, commits each on its own.
     */
    default List<CompletableFuture<Void>> commitUnit(List<WriteOrder> later) {
        List<CompletableFuture<Void>> replies = new ArrayList<>(1 + later.size());
        replies.add(WriteOrder.commitOrFail(this));
        for (WriteOrder o : later) replies.add(WriteOrder.commitOrFail(o));
        return replies;
    }

    /** {@code order.commit()}, or its exception as a failed future. */
    static CompletableFuture<Void> commitOrFail(WriteOrder order) {
        try {
            return order.commit();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
    }

    /** The store write failed; nothing was written. */
    void abort();

    /**
     * After {@link #commit()}: completes when the backup has confirmed every write of this order in
     * the meaning of its mode, with no timeout: {@code id-first} and {@code id-first-after-reply}
     * when the last key packet is acknowledged, {@code sync} and {@code async} when every value (or a
     * newer one of its key) is acknowledged, applied. For {@code WAIT}. This default, for a node
     * without a backup, never completes.
     */
    default CompletableFuture<Void> confirmed() {
        return new CompletableFuture<>();
    }
}
