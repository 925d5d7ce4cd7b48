package dev.kvs.client;

import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;

/**
 * The sets of a {@link KvsClient} ({@link KvsClient#sets()}): a key holding distinct members, as
 * Redis's {@code SADD} family. Each write takes one TxId for its key and is replicated, answered and
 * fenced after a failover as a string write is, in the client's {@link ReplicationMode}. Members given
 * or returned as {@code String} are UTF-8 text.
 *
 * <p>Every call throws what the string calls of {@link KvsClient} throw, and {@link
 * WrongTypeException} if the key holds a string or a hash. A set whose last member is removed is
 * deleted, as in Redis; a missing key reads as an empty set.
 */
public interface KvsSets {
    /** Adds {@code member} ({@code SADD}): true if it was not there. */
    boolean add(byte[] key, byte[] member);

    /** {@link #add(byte[], byte[])} with UTF-8 text. */
    boolean add(String key, String member);

    /** Async {@link #add(byte[], byte[])}. */
    CompletableFuture<Boolean> addAsync(byte[] key, byte[] member);

    /**
     * Adds every one of {@code members} in one atomic write.
     *
     * @return how many were not there
     * @throws IllegalArgumentException if {@code members} is empty
     */
    long addAll(byte[] key, List<byte[]> members);

    /** Removes {@code member} ({@code SREM}): true if it was there. */
    boolean remove(byte[] key, byte[] member);

    /** {@link #remove(byte[], byte[])} with UTF-8 text. */
    boolean remove(String key, String member);

    /**
     * Removes every one of {@code members} in one atomic write.
     *
     * @return how many were there
     * @throws IllegalArgumentException if {@code members} is empty
     */
    long removeAll(byte[] key, List<byte[]> members);

    /** Whether {@code member} is in the set ({@code SISMEMBER}). */
    boolean contains(byte[] key, byte[] member);

    /** {@link #contains(byte[], byte[])} with UTF-8 text. */
    boolean contains(String key, String member);

    /** Async {@link #contains(byte[], byte[])}. */
    CompletableFuture<Boolean> containsAsync(byte[] key, byte[] member);

    /** Every member ({@code SMEMBERS}), in no particular order; empty if none. */
    List<byte[]> members(byte[] key);

    /** {@link #members(byte[])} as UTF-8 text. */
    Set<String> members(String key);

    /** How many members the set has ({@code SCARD}); 0 if the key holds nothing. */
    long size(byte[] key);

    /**
     * Removes and returns a member picked at random ({@code SPOP}), or {@code null} if the set is empty.
     * Not resent after a connection loss: a lost reply may mean a member was removed.
     */
    byte[] pop(byte[] key);
}
