package dev.kvs.replication;

import dev.kvs.core.TxId;
import java.util.concurrent.CompletableFuture;

/**
 * The ordering of one client command's writes. A command calls {@link #put} or {@link #delete} for each key it writes,
 * inside the store's lock for that key (so per key, TxId order is store order), then exactly one of
 * {@link #commit()} (the store write succeeded) or {@link #abort()} (it failed: the TxIds are
 * announced as skipped so the sequence stays gap-free). Not thread-safe: one per command.
 */
public interface WriteOrder {
    /** Assigns the next TxId to a write of {@code value} to {@code key}, without expiry. */
    default TxId put(byte[] key, byte[] value) {
        return put(key, value, 0);
    }

    /**
     * Assigns the next TxId to a write of {@code value} to {@code key} that expires at {@code
     * expireAtMillis} (epoch millis, 0 for never): the absolute time travels in the key packet and
     * with the value, so the backup expires the key at the same moment.
     */
    TxId put(byte[] key, byte[] value, long expireAtMillis);

    /**
     * As {@link #put(byte[], byte[], long)}, for a caller that has computed the value's checksum
     * ({@code Checksums.crc32c(value)}) for its own record: the key packet carries it, so a write's value
     * is checksummed once (a CRC32C pass over a 1 MiB value is about 30 µs on the write's path). This
     * default, for orders that do not carry checksums, ignores it.
     */
    default TxId put(byte[] key, byte[] value, int checksum, long expireAtMillis) {
        return put(key, value, expireAtMillis);
    }

    /**
     * As {@link #put(byte[], byte[], int, long)} for a value of {@code valueLength} bytes that is not in
     * a heap array (staged in the store as it arrived): the order needs only its length and checksum.
     * This default, for orders that need the bytes, refuses.
     *
     * @throws UnsupportedOperationException if this order needs the value's bytes
     */
    default TxId put(byte[] key, int valueLength, int checksum, long expireAtMillis) {
        throw new UnsupportedOperationException(getClass().getName() + " needs the value's bytes");
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
     * Assigns one TxId to the rename of {@code source} to {@code key} (RENAME): {@code source} is
     * deleted and {@code key} gets {@code value}, both at that TxId, under both keys' locks. The backup
     * sees both or neither.
     */
    default TxId rename(byte[] source, byte[] key, byte[] value) {
        return rename(source, key, value, 0);
    }

    /** The same, for a {@code source} that expires at {@code expireAtMillis} (epoch ms; 0: never): the key keeps it. */
    TxId rename(byte[] source, byte[] key, byte[] value, long expireAtMillis);

    /** As {@link #rename(byte[], byte[], byte[], long)}, with the value's checksum computed by the caller. */
    default TxId rename(byte[] source, byte[] key, byte[] value, int checksum, long expireAtMillis) {
        return rename(source, key, value, expireAtMillis);
    }

    /**
     * The writes are in the store. The future completes when the command may be answered in its
     * replication mode, or fails with {@link ReplicationTimeoutException}, or (not in {@code async}
     * mode) with {@link BackupCannotStoreException} while the backup's store refuses values.
     */
    CompletableFuture<Void> commit();

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
