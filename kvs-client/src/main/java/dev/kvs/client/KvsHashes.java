package dev.kvs.client;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

/**
 * The hashes of a {@link KvsClient} ({@link KvsClient#hashes()}): a key holding fields with values,
 * as Redis's {@code HSET} family. Each write takes one TxId for its key and is replicated, answered
 * and fenced after a failover as a string write is, in the client's {@link ReplicationMode}. Field
 * names given or returned as {@code String} are UTF-8 text.
 *
 * <p>Every call throws what the string calls of {@link KvsClient} throw, and {@link
 * WrongTypeException} if the key holds a string or a set. A hash whose last field is removed is
 * deleted, as in Redis; a missing key reads as an empty hash.
 */
public interface KvsHashes {
    /** The value of {@code field} in the hash at {@code key} ({@code HGET}), or {@code null}. */
    byte[] get(byte[] key, byte[] field);

    /** {@link #get(byte[], byte[])} with UTF-8 text. */
    String get(String key, String field);

    /** Async {@link #get(byte[], byte[])}. */
    CompletableFuture<byte[]> getAsync(byte[] key, byte[] field);

    /** The values of {@code fields} ({@code HMGET}), in order, {@code null} where absent. */
    List<byte[]> get(byte[] key, List<byte[]> fields);

    /** Every field and value of the hash at {@code key} ({@code HGETALL}); empty if none. */
    Map<String, byte[]> getAll(byte[] key);

    /** {@link #getAll(byte[])} with UTF-8 text values. */
    Map<String, String> getAll(String key);

    /** Async {@link #getAll(byte[])}. */
    CompletableFuture<Map<String, byte[]>> getAllAsync(byte[] key);

    /**
     * Sets {@code field} to {@code value} ({@code HSET}), creating the hash if needed.
     *
     * @return true if the field is new, false if it was replaced
     */
    boolean put(byte[] key, byte[] field, byte[] value);

    /** {@link #put(byte[], byte[], byte[])} with UTF-8 text. */
    boolean put(String key, String field, String value);

    /** Async {@link #put(byte[], byte[], byte[])}. */
    CompletableFuture<Boolean> putAsync(byte[] key, byte[] field, byte[] value);

    /**
     * Sets every field of {@code fields} in one atomic write ({@code HSET key f1 v1 f2 v2 ...}).
     *
     * @return how many fields are new
     * @throws IllegalArgumentException if {@code fields} is empty
     */
    long putAll(byte[] key, Map<String, byte[]> fields);

    /** {@link #putAll(byte[], Map)} with UTF-8 text. */
    long putAll(String key, Map<String, String> fields);

    /** Async {@link #putAll(byte[], Map)}. */
    CompletableFuture<Long> putAllAsync(byte[] key, Map<String, byte[]> fields);

    /**
     * Sets {@code field} only if the hash has no such field ({@code HSETNX}).
     *
     * @return true if it was set
     */
    boolean putIfAbsent(byte[] key, byte[] field, byte[] value);

    /**
     * Removes {@code fields} ({@code HDEL}); the key goes with its last field.
     *
     * @return how many of them existed
     * @throws IllegalArgumentException if {@code fields} is empty
     */
    long delete(byte[] key, List<byte[]> fields);

    /** Removes one field: true if it existed. */
    boolean delete(String key, String field);

    /** Whether the hash has {@code field} ({@code HEXISTS}). */
    boolean contains(byte[] key, byte[] field);

    /** How many fields the hash has ({@code HLEN}); 0 if the key holds nothing. */
    long size(byte[] key);

    /**
     * Adds {@code by} to the integer in {@code field} (0 if absent) and returns the result ({@code
     * HINCRBY}).
     *
     * @throws KvsClientException if the field's value is not an integer or the result would overflow
     */
    long increment(byte[] key, byte[] field, long by);

    /** {@link #increment(byte[], byte[], long)} with UTF-8 text. */
    long increment(String key, String field, long by);
}
