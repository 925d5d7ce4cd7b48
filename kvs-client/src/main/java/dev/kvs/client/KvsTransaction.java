package dev.kvs.client;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One Redis transaction ({@code WATCH}, {@code MULTI} ... {@code EXEC}) on a connection of its own to
 * the primary of its keys, from {@link KvsClient#transaction(List)}: read what the writes depend on,
 * queue the writes, {@link #commit()}. The writes apply together or, if a watched key was written by
 * anyone since it was watched (including its expiry), not at all: the optimistic check-and-set of
 * Redis. On kvs an {@code EXEC}'s writes are one unit for replication too: acknowledged in the
 * client's {@link ReplicationMode} once all of them are, and after a failover all complete or all
 * fenced.
 *
 * <pre>{@code
 * byte[] key = "account:42".getBytes(UTF_8);
 * while (true) {
 *     try (KvsTransaction tx = kvs.transaction(List.of(key))) {
 *         long balance = Long.parseLong(new String(tx.hashGetAll(key).getOrDefault("balance", ZERO), UTF_8));
 *         tx.hashPut(key, Map.of("balance", Long.toString(balance - 10).getBytes(UTF_8)));
 *         if (tx.commit().isPresent()) break; // else someone wrote the account meanwhile: read again
 *     }
 * }
 * }</pre>
 *
 * Reads run at once and see the data as it is; writes are queued in the client and sent with {@code
 * MULTI} and {@code EXEC} at {@link #commit()}, in one round trip. Not thread-safe: one thread uses a
 * transaction, then closes it (which discards it if not committed, and closes its connection).
 */
public interface KvsTransaction extends AutoCloseable {
    /**
     * Watches more keys ({@code WATCH}): the commit applies nothing if any of them is written before it.
     *
     * @throws IllegalStateException if a write is already queued
     */
    void watch(List<byte[]> keys);

    /**
     * The value of {@code key} now ({@code GET}).
     *
     * @throws IllegalStateException if a write is already queued
     */
    byte[] get(byte[] key);

    /** Every field of the hash at {@code key} now ({@code HGETALL}); see {@link #get}. */
    Map<String, byte[]> hashGetAll(byte[] key);

    /** Queues {@code SET key value}. */
    KvsTransaction put(byte[] key, byte[] value);

    /** Queues {@code DEL key}. */
    KvsTransaction delete(byte[] key);

    /** Queues {@code HSET key field value ...}; its result is the number of new fields. */
    KvsTransaction hashPut(byte[] key, Map<String, byte[]> fields);

    /** Queues {@code HDEL key fields...}; its result is the number removed. */
    KvsTransaction hashDelete(byte[] key, List<byte[]> fields);

    /** Queues {@code HINCRBY key field by}; its result is the new value. */
    KvsTransaction hashIncrement(byte[] key, byte[] field, long by);

    /** Queues {@code SADD key members...}; its result is the number added. */
    KvsTransaction setAdd(byte[] key, List<byte[]> members);

    /** Queues {@code SREM key members...}; its result is the number removed. */
    KvsTransaction setRemove(byte[] key, List<byte[]> members);

    /** Queues {@code PEXPIRE key ttl}; its result is whether the key existed. */
    KvsTransaction expire(byte[] key, Duration ttl);

    /**
     * Sends the queued writes with {@code MULTI} ... {@code EXEC}.
     *
     * @return empty if a watched key was written since it was watched (nothing was applied); else the
     *     result of each queued write in order ({@code null} for {@code SET}, a {@code Long} or {@code
     *     Boolean} as each queuing method says), or the {@link KvsClientException} a write failed with
     *     (Redis applies the others: a transaction is not rolled back)
     * @throws KvsClientException (a subclass) if the transaction was refused as a whole (a queuing error:
     *     {@code EXECABORT}; nothing applied) or its outcome is unknown ({@link ConnectionLostException})
     * @throws IllegalStateException if already committed
     */
    Optional<List<Object>> commit();

    /** Discards the transaction if it was not committed and closes its connection; idempotent. */
    @Override
    void close();
}
