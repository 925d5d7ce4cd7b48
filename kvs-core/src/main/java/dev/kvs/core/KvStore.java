package dev.kvs.core;

import java.io.Closeable;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * A key-value store whose records carry what replication needs: value, {@link TxId}, CRC32C checksum
 * and {@link RecordState}.
 *
 * <p>A key holds a string, a hash or a set ({@link RecordHeader#type()}). The string methods ({@link
 * #get}, {@link #put}, {@link #update}, ...) see every record: a hash or set is returned with its
 * header and an empty value, so a caller decides TYPE and WRONGTYPE from the header; writing a string
 * over a structure (SET) or removing its key (DEL) frees its members. Members are read and written
 * with the member methods ({@link #putMembers}, {@link #getMembers}, ...), which throw {@link
 * WrongTypeException} when the key holds another type. Expiry and {@link RecordState} work alike on
 * every type.
 *
 * <p>Keys and values are byte arrays; arrays passed in or returned are never copied, so neither side
 * may modify them afterwards. Every method is thread-safe. Writes to one key are serialised; {@link
 * #update} and {@link #updateAll} run their function while holding the keys' locks, so a caller can
 * assign a TxId and write in one atomic step. {@link #updateAll} is atomic with respect to {@link
 * #getAll}: no caller of {@code getAll} sees part of it.
 *
 * <p>Create one with {@link #builder()}.
 */
public interface KvStore extends Closeable {

    /** A builder with the defaults of {@link StoreConfig#defaults()}. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * The record of {@code key}, tombstones included, or {@code null} if the store holds none.
     *
     * @throws EntryTooLargeException if the key is longer than the limit
     */
    StoredValue get(byte[] key);

    /**
     * A hint that the keys {@code keys[0, n)} are about to be read or written, in about that order: the
     * store may bring what their lookups read into the CPU's cache now, all keys at once, so that their
     * memory misses overlap instead of coming one operation after the other. It changes nothing and
     * checks nothing (a key too long is skipped). This default does nothing.
     *
     * @return a value made of what was read, for the caller to keep (so that the reads are not dropped as
     *     unused); it means nothing else
     */
    default long prefetch(byte[][] keys, int n) {
        return 0;
    }

    /**
     * Reads {@code key}'s record as {@link #get} does (same consistency: a complete record's header and
     * value belong to one write), but offers a complete value to {@code sink}, which may take it into a
     * buffer of its own instead of a new array: for replies of long values, with one copy from the
     * store to a network buffer. This default copies what {@link #get} returned; stores override it to
     * copy straight from their memory.
     *
     * @return the record, or {@code null} if the store holds none (the sink is not called)
     * @throws EntryTooLargeException if the key is longer than the limit
     */
    default ValueRead readValue(byte[] key, ValueSink sink) {
        return ValueRead.of(get(key), sink);
    }

    /**
     * {@link #getAll} with values offered to {@code sink} as by {@link #readValue}: one consistent
     * snapshot; {@code sink} is called at most once per key, in the order of {@code keys}, and only for
     * complete records.
     */
    default List<ValueRead> readAll(List<byte[]> keys, ValueSink sink) {
        List<StoredValue> values = getAll(keys);
        List<ValueRead> out = new java.util.ArrayList<>(values.size());
        for (StoredValue v : values) out.add(ValueRead.of(v, sink));
        return out;
    }

    /**
     * Copies bytes {@code [offset, offset + length)} of {@code key}'s complete value into {@code buffer}
     * from its position (advancing it), and returns the header of the record they were read from: its
     * TxId names the write they belong to, so a caller reading a value range by range (the value
     * shipper) sees a rewrite between two ranges and never mixes two values. A direct buffer is filled
     * with one memory copy per stored chunk the range touches; no value-sized array is made.
     *
     * @return the record's header, or {@code null} if the store holds none; if the record is not
     *     complete or its value is shorter than {@code offset + length}, nothing is copied (the
     *     buffer's position is unchanged) and its header is returned
     * @throws IllegalArgumentException if {@code offset} or {@code length} is negative or {@code buffer}
     *     has fewer than {@code length} bytes remaining
     * @throws EntryTooLargeException if the key is longer than the limit
     */
    default RecordHeader readRange(byte[] key, int offset, int length, java.nio.ByteBuffer buffer) {
        ValueRead.checkRange(offset, length, buffer);
        StoredValue v = get(key);
        if (v == null) return null;
        if (ValueRead.covers(v.header(), offset, length)) buffer.put(v.value(), offset, length);
        return v.header();
    }

    /** The header of {@code key}'s record without reading its value, or {@code null}. */
    RecordHeader header(byte[] key);

    /** The records of {@code keys}, in order, {@code null} where absent; one consistent snapshot. */
    List<StoredValue> getAll(List<byte[]> keys);

    /**
     * Stores {@code value} under {@code key}, replacing any record.
     *
     * @throws StoreFullException if the entry or byte capacity would be exceeded (nothing written)
     * @throws EntryTooLargeException if the key or value is longer than the limits (nothing written)
     */
    void put(byte[] key, StoredValue value);

    /**
     * Stores the record {@code value} supplies, replacing any record without reading it first: the
     * fast path of a plain {@code SET}. {@code value} runs under the key's lock, like an {@link
     * #update} function, so it can assign a TxId.
     *
     * @return the record written
     * @throws StoreFullException, EntryTooLargeException as for {@link #put}; nothing is written
     */
    StoredValue upsert(byte[] key, Supplier<StoredValue> value);

    /** Removes {@code key}; true if a record (of any state) was removed. */
    boolean delete(byte[] key);

    /** True if {@code key} has a record that is not a tombstone. */
    boolean exists(byte[] key);

    /**
     * Atomically reads {@code key}'s header (or {@code null}), asks {@code fn} what to write, and
     * writes it. {@code fn} runs under the key's lock and must be quick and must not touch the store.
     *
     * @return what {@code fn} returned
     * @throws StoreFullException, EntryTooLargeException as for {@link #put}; nothing is written
     */
    Write update(byte[] key, Function<RecordHeader, Write> fn);

    /**
     * Like {@link #update}, but {@code fn} sees the whole current record (value included, or {@code
     * null} if absent): for read-modify-write commands (INCR, APPEND). {@code fn} runs under the key's
     * lock and must be quick and must not touch the store. This default retries {@link #update} until
     * the header it read the value with is still the current one (a record's TxId changes on every
     * write), so {@code fn} runs once, on the current record; stores override it with one locked read.
     *
     * @return what {@code fn} returned
     * @throws StoreFullException, EntryTooLargeException as for {@link #put}; nothing is written
     */
    default Write updateValue(byte[] key, Function<StoredValue, Write> fn) {
        while (true) {
            StoredValue seen = get(key);
            RecordHeader expected = seen == null ? null : seen.header();
            Write[] decided = new Write[1];
            Write w = update(key, h -> {
                if (!Objects.equals(h, expected)) return Write.keep(); // written meanwhile: retry
                decided[0] = fn.apply(seen);
                return decided[0];
            });
            if (decided[0] != null) return w;
        }
    }

    /**
     * Atomically applies {@code fn} to the headers of every key (same order, {@code null} where absent)
     * and writes all of the returned writes, or none of them if one fails. Keys may repeat (each
     * occurrence sees the header from before the batch); the last write of a repeated key wins, where
     * a {@link Write#keep() keep} counts as no write, so it never undoes an earlier put or remove of
     * the same key. The limits apply to the batch's net change.
     *
     * @return what {@code fn} returned
     * @throws StoreFullException, EntryTooLargeException as for {@link #put}; nothing is written
     * @throws IllegalArgumentException if {@code fn} does not return one write per key; nothing is
     *     written
     */
    List<Write> updateAll(List<byte[]> keys, Function<List<RecordHeader>, List<Write>> fn);

    /**
     * Opens a stage for a value of {@code length} bytes, to be written piece by piece and then made a
     * key's record by {@link #putStaged}. A store that keeps large values in pieces of its own writes
     * them as they come, and the stage's bytes count against {@code maxBytes} from now until the stage
     * is closed or committed. This default stages in a heap array ({@link HeapValueStage}).
     *
     * @throws EntryTooLargeException if {@code length} is above the value limit
     * @throws StoreFullException if the store has no room for {@code length} more bytes
     */
    default ValueStage stage(int length) {
        if (length > config().maxValueBytes()) {
            throw new EntryTooLargeException(
                    "value of " + length + " bytes > maxValueBytes " + config().maxValueBytes());
        }
        return new HeapValueStage(length);
    }

    /**
     * Makes the staged value {@code key}'s record if {@code decide} says so: it gets the key's current
     * header ({@code null} if absent) under the key's lock, like an {@link #update} function, and
     * returns the header to write the value with ({@code COMPLETE}, of the stage's length), or {@code
     * null} to leave the key as it is. If it was written the stage is committed (closing it does
     * nothing); otherwise nothing changed and the stage is still open.
     *
     * @return true if written
     * @throws IllegalArgumentException if {@code stage} is not fully written or is not this store's, or
     *     the header does not describe it (nothing is written)
     * @throws StoreFullException, EntryTooLargeException as for {@link #put}; nothing is written
     */
    default boolean putStaged(byte[] key, ValueStage stage, Function<RecordHeader, RecordHeader> decide) {
        if (!(stage instanceof HeapValueStage heap)) {
            throw new IllegalArgumentException("not a stage of this store: " + stage);
        }
        byte[] bytes = heap.bytes();
        return update(key, h -> {
                    RecordHeader header = decide.apply(h);
                    return header == null ? Write.keep() : Write.put(new StoredValue(header, bytes));
                })
                instanceof Write.Put;
    }

    /**
     * Up to {@code max} keys whose record's expiry ({@link RecordHeader#expireAtMillis()}) has passed at
     * {@code nowMillis}, earliest first (stores may group expiries by the second), for active expiry. The store itself never expires anything:
     * its records are served, shipped and counted whatever their expiry, and callers decide (a
     * primary deletes them as replicated writes). Weakly consistent: check each key's header under
     * {@link #update} before acting. This default walks every record; stores keep an index.
     */
    default List<byte[]> expiredKeys(long nowMillis, int max) {
        List<byte[]> out = new java.util.ArrayList<>();
        forEach((key, v) -> {
            if (out.size() < max && v.header().expiredAt(nowMillis)) out.add(key);
        });
        return out;
    }

    /** Records that have an expiry (Redis's {@code expires} in {@code INFO keyspace}); this default walks them. */
    default long keysWithExpiry() {
        long[] n = {0};
        forEach((key, v) -> {
            if (v.header().hasExpiry()) n[0]++;
        });
        return n[0];
    }

    /** Records that are not tombstones. */
    long size();

    /**
     * The keys this store's open fenced ({@link RecordState#LOST}) because the crash before it tore their
     * bytes in the middle of a write (a persisted store only), with their headers as fenced, in no
     * particular order; empty if none. They stay fenced in the store; a node puts them in its loss
     * manifest.
     */
    default Map<ByteKey, RecordHeader> fencedAtOpen() {
        return Map.of();
    }

    /**
     * Tombstones held: records that only order a delete against older writes. They take room (entries
     * and key bytes) like any record until removed. This default reads {@link #stats()}.
     */
    default long tombstones() {
        StoreStats s = stats();
        return s.entries() - s.liveEntries();
    }

    /**
     * Removes every record for which {@code condition} holds, each tested again and removed under its
     * own key's lock, so writers wait for one key at a time, never for the whole walk, and a record
     * rewritten meanwhile is judged as it is then. {@code condition} sees the record's header (no value
     * is read); it may also be called without the lock to pick candidates, so it must have no side
     * effects, and it must be quick and must not touch the store. Records hidden by {@link #hideBefore}
     * are left to {@link #removeBefore}. Weakly consistent like {@link #forEach}: a record written
     * during the walk may or may not be seen. For collecting tombstones, off the hot path.
     *
     * @return the number of records removed
     */
    default long removeIf(java.util.function.BiPredicate<byte[], RecordHeader> condition) {
        Objects.requireNonNull(condition, "condition == null");
        List<byte[]> keys = new java.util.ArrayList<>();
        forEach((key, v) -> {
            if (condition.test(key, v.header())) keys.add(key);
        });
        long removed = 0;
        for (byte[] key : keys) {
            boolean[] gone = new boolean[1];
            update(key, h -> {
                if (h == null || !condition.test(key, h)) return Write.keep();
                gone[0] = true;
                return Write.remove();
            });
            if (gone[0]) removed++;
        }
        return removed;
    }

    /**
     * Visits every record, weakly consistent (a record written during the scan may or may not be
     * seen). For resync and diagnostics, not for the hot path.
     */
    void forEach(BiConsumer<byte[], StoredValue> visitor);

    /**
     * One step of a cursor scan (Redis's {@code SCAN}): visits the keys (tombstones excluded; unfinished
     * and lost keys included) of whole scan slots, from the slot {@code cursor} names, until at least
     * {@code count} keys were visited or the last slot was, and returns the cursor of the next slot, or
     * 0 after the last. Start at 0. A slot is a fixed part of the key space (a Chronicle Map segment),
     * so a key present for the whole scan is visited exactly once, and a key written or deleted during
     * it may or may not be. {@code visitor} runs without any store lock held. This default visits
     * everything in one step.
     *
     * @param cursor 0, or a cursor a previous step returned; one past the last slot ends the scan
     * @param count how many keys to aim for (a hint: whole slots are visited)
     */
    default long scan(long cursor, int count, BiConsumer<byte[], RecordHeader> visitor) {
        if (cursor != 0) return 0;
        forEach((k, v) -> {
            if (v.state() != RecordState.TOMBSTONE) visitor.accept(k, v.header());
        });
        return 0;
    }

    /**
     * A key held (tombstones excluded), picked at random, or {@code null} if the store holds none. Not
     * uniform: slots are picked uniformly, then a key in the slot. This default walks every record.
     */
    default byte[] randomKey(RandomGenerator random) {
        byte[][] pick = {null};
        long[] seen = {0};
        forEach((k, v) -> {
            if (v.state() != RecordState.TOMBSTONE && random.nextLong(++seen[0]) == 0) pick[0] = k;
        });
        return pick[0];
    }

    /** Removes every record. */
    void clear();

    /**
     * Runs {@code fn} while holding every key's lock: no write is in progress while it runs, and every
     * write that started before it has finished. A barrier for ordering a whole-store operation (FLUSHDB
     * takes its TxId in it, so every write ordered before the flush is in the store and every later one
     * orders after it). {@code fn} must be quick and must not touch the store: every writer waits.
     *
     * @return what {@code fn} returned
     * @throws UnsupportedOperationException if this store cannot do it (test stubs)
     */
    default <T> T exclusive(Supplier<T> fn) {
        throw new UnsupportedOperationException(
                "exclusive() not supported by " + getClass().getSimpleName());
    }

    /**
     * From now on every record whose TxId is before {@code upTo} is as good as gone: reads, {@link
     * #forEach} and the functions of {@link #update}, {@link #updateValue} and {@link #updateAll} see
     * {@code null} for it, and {@link #delete} reports it absent; a write replaces it as if the key
     * were empty. It still takes room (and counts in {@link #size()}) until {@link #removeBefore}
     * removes it. Call it in {@link #exclusive} with the TxId of a flush: FLUSHDB then takes effect at
     * once for every reader and writer, and the removal runs key by key afterwards. Never lowers the
     * mark. A store with a data dir persists the mark until {@link #removeBefore} has swept up to it,
     * and a store opened on a dir with a mark left (the process stopped during the sweep) finishes the
     * sweep before it returns, so flushed records never come back.
     *
     * @throws UnsupportedOperationException if this store cannot do it (test stubs)
     */
    default void hideBefore(TxId upTo) {
        throw new UnsupportedOperationException(
                "hideBefore() not supported by " + getClass().getSimpleName());
    }

    /**
     * Removes every record (tombstones included) whose TxId is before {@code upTo}, each under its own
     * key's lock, so writers wait for one key at a time, never for the whole walk. A record written
     * meanwhile with a later TxId stays. Weakly consistent like {@link #forEach}: run it only once every
     * write before {@code upTo} is in the store (see {@link #exclusive}).
     *
     * @return the number of records removed
     */
    default long removeBefore(TxId upTo) {
        Objects.requireNonNull(upTo, "upTo == null");
        List<byte[]> keys = new java.util.ArrayList<>();
        forEach((key, v) -> {
            if (v.txId().compareTo(upTo) < 0) keys.add(key);
        });
        long removed = 0;
        for (byte[] key : keys) {
            boolean[] gone = new boolean[1];
            update(key, h -> {
                if (h == null || h.txId().compareTo(upTo) >= 0) return Write.keep();
                gone[0] = true;
                return Write.remove();
            });
            if (gone[0]) removed++;
        }
        return removed;
    }

    /**
     * Sets members of the hash or set at {@code key} (created if the key holds nothing; a set's members
     * have empty values): HSET, HMSET, SADD. Runs under the key's lock; {@code txId} is called there,
     * once, only if the structure changes (setting a member to the value it has changes nothing), and
     * names the write as a string write's TxId does. A new structure has no expiry; an existing one
     * keeps its expiry. Members are set in order (a name repeated: the last value wins).
     *
     * @param wantPrevious whether to return each member's value before the write
     * @return the header after the write, the members added, and the previous values if asked
     * @throws WrongTypeException if the key holds another type (nothing written)
     * @throws IllegalStateException if the key's record of this type is not complete (its members have
     *     not arrived or are lost: a backup's record, or fenced after a failover)
     * @throws StoreFullException if the store has no room (nothing written)
     * @throws EntryTooLargeException if the key, or a member with its value, is over the limits
     * @throws IllegalArgumentException if {@code type} is not a structure
     */
    default MemberWrite putMembers(
            byte[] key, ValueType type, List<Member> members, boolean wantPrevious, Supplier<TxId> txId) {
        throw structuresUnsupported();
    }

    /**
     * What {@link #putMembers} would answer if it would change nothing, found without the key's lock: every
     * member of {@code members} already has its value in the live {@code type} structure at {@code key},
     * whose expiry has not passed on {@code clock}. Null if it might change something, or the store cannot
     * tell without the lock (a writer of the key at work, a string or a tombstone there, or no such
     * fast path, as in this default): then {@link #putMembers} decides. Writes nothing, takes no TxId.
     *
     * <p>If {@code seen} is not null (one slot per member, each null), the store may leave in a member's slot
     * a mark of where it found that member with its value, read even if the answer is null: passed to {@link
     * #putMembersUnlessExpired}, the put under the lock then skips that member if what it was found in is
     * unchanged since. The marks are the store's own; the caller passes them on untouched.
     *
     * @return {@code MemberWrite(header, false, 0, previous)} as {@link #putMembers} returns for a put that
     *     changed nothing (the previous values, if asked, are the given ones), or null
     */
    default MemberWrite putMembersIfUnchanged(
            byte[] key, ValueType type, List<Member> members, boolean wantPrevious, Clock clock, Object[] seen) {
        return null;
    }

    /**
     * {@link #putMembers}, unless the key's record has an expiry that passed on {@code clock} (read only
     * if the record has an expiry): then nothing is written, {@code txId} is not called, and null is
     * returned, for the caller to delete the key first (a replicated delete, as Redis's lazy expiry) and
     * write again. The key's record is read once, under its lock, where a check of its expiry before
     * {@link #putMembers} reads it twice; this default makes that check, then the put. {@code seen}: null, or
     * the marks {@link #putMembersIfUnchanged} left (this default ignores them).
     *
     * @return as for {@link #putMembers}, or null if the key's expiry has passed (nothing written)
     * @throws WrongTypeException, IllegalStateException, StoreFullException as for {@link #putMembers}
     */
    default MemberWrite putMembersUnlessExpired(
            byte[] key,
            ValueType type,
            List<Member> members,
            boolean wantPrevious,
            Clock clock,
            Object[] seen,
            Supplier<TxId> txId) {
        RecordHeader h = header(key);
        if (h != null && h.expiredAt(clock)) return null;
        return putMembers(key, type, members, wantPrevious, txId);
    }

    /**
     * Atomically reads one member's value ({@code null} if absent), asks {@code fn} for its new value
     * ({@code null} or an equal value: no write), and writes it as {@link #putMembers} does: HINCRBY,
     * HINCRBYFLOAT, HSETNX. {@code fn} runs under the key's lock and must be quick and must not touch the
     * store; it may throw to refuse (nothing written).
     *
     * @return as for {@link #putMembers}, with the one previous value always given
     * @throws WrongTypeException, IllegalStateException, StoreFullException as for {@link #putMembers}
     */
    default MemberWrite updateMember(
            byte[] key, ValueType type, byte[] name, UnaryOperator<byte[]> fn, Supplier<TxId> txId) {
        throw structuresUnsupported();
    }

    /**
     * Removes members of the hash or set at {@code key}: HDEL, SREM, and (with the values asked) SPOP.
     * {@code txId} is called under the key's lock only if a member was removed. When the last member
     * goes the key is deleted: its record becomes a tombstone of that TxId, as a replicated DEL makes.
     *
     * @return the header after (a tombstone's if the key was deleted), the members removed, and the
     *     previous values if asked
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}
     */
    default MemberWrite removeMembers(
            byte[] key, ValueType type, List<byte[]> names, boolean wantPrevious, Supplier<TxId> txId) {
        throw structuresUnsupported();
    }

    /**
     * Picks up to {@code count} distinct members at random and removes them, in one step under the
     * key's lock (SPOP, and HRANDFIELD-then-HDEL patterns): as {@link #randomMembers} then {@link
     * #removeMembers}, with no write between. {@code txId} is called only if a member was removed.
     *
     * @return the members removed, with their values
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}
     */
    default List<Member> popMembers(
            byte[] key, ValueType type, int count, RandomGenerator random, Supplier<TxId> txId) {
        throw structuresUnsupported();
    }

    /**
     * The values of {@code names} in the hash or set at {@code key}, in order, {@code null} where absent
     * (all {@code null} if the key holds nothing): HGET, HMGET, SISMEMBER, SMISMEMBER.
     *
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}
     */
    default List<byte[]> getMembers(byte[] key, ValueType type, List<byte[]> names) {
        throw structuresUnsupported();
    }

    /**
     * Members of the hash or set at {@code key}, 0 if it holds nothing: HLEN, SCARD; O(1).
     *
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}
     */
    default long memberCount(byte[] key, ValueType type) {
        throw structuresUnsupported();
    }

    /**
     * One step of a cursor scan of the hash or set at {@code key} (HSCAN, SSCAN): visits about {@code
     * count} members from {@code cursor} and returns the cursor to go on with, 0 when done. A scan
     * from 0 back to 0 visits every member present for its whole length at least once, whatever was
     * written between steps (Redis's guarantee), and may visit one more than once. {@code visitor} runs
     * under the key's lock: it must be quick and must not touch the store.
     *
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}
     */
    default long scanMembers(byte[] key, ValueType type, long cursor, int count, BiConsumer<byte[], byte[]> visitor) {
        throw structuresUnsupported();
    }

    /**
     * {@code count} members of the hash or set at {@code key} picked at random (HRANDFIELD, SRANDMEMBER;
     * SPOP picks then removes): distinct ones, at most all of them, if {@code distinct}, else with
     * repeats. Close to uniform (see the store's notes); empty if the key holds nothing.
     *
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}
     * @throws IllegalArgumentException if {@code count} is negative
     */
    default List<Member> randomMembers(
            byte[] key, ValueType type, int count, boolean distinct, RandomGenerator random) {
        throw structuresUnsupported();
    }

    /**
     * The bytes the members of the hash or set at {@code key} take in the store, as {@code maxBytes}
     * counts them (members, values, and the pages' keys and overhead, with the structure's header); 0
     * if it holds nothing. O(1): MEMORY USAGE.
     *
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}
     */
    default long memberBytes(byte[] key, ValueType type) {
        throw structuresUnsupported();
    }

    /**
     * Every member of the hash or set at {@code key} (HGETALL, HKEYS, HVALS, SMEMBERS), in no particular
     * order; empty if it holds nothing. O(size) under the key's lock.
     *
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}
     */
    default List<Member> members(byte[] key, ValueType type) {
        throw structuresUnsupported();
    }

    /**
     * Rewrites the TxId and expiry of {@code key}'s record, of any type, keeping its value or members:
     * EXPIRE, PERSIST. {@code fn} gets the header ({@code null} if absent) under the key's lock and
     * returns the header to write, which may differ from it only in TxId and expiry, or {@code null} to
     * leave it (then no write). A string's value is not read or copied.
     *
     * @return the header after
     * @throws IllegalArgumentException if {@code fn}'s header changes more than TxId and expiry
     */
    default RecordHeader updateHeader(byte[] key, UnaryOperator<RecordHeader> fn) {
        throw structuresUnsupported();
    }

    // -- several structures in one step: SMOVE and the *STORE commands

    /**
     * Reads and writes several hashes or sets in one atomic step: holds every key's lock, gives {@code
     * fn} a {@link StructureView} of the keys (in order; they may repeat), and makes the {@link
     * StructureChange} it returns for each key, so no reader or writer sees some of the changes without
     * the others (SMOVE, SINTERSTORE, SUNIONSTORE, SDIFFSTORE). {@code fn} reads everything before any
     * change is made, so a key both read and replaced is read as it was. {@code fn} must not touch the
     * store.
     *
     * <p>The changes are made in order. One refused (store full) throws, with itself undone and the
     * changes after it not made; the ones before it stay. So order the one change that needs room
     * first: a removal never needs room. A {@link StructureChange#replace replace} reserves room for
     * its members as if the key were new before it frees what the key held.
     *
     * @return per key, what its change did ({@link MemberWrite#written()} false for a keep)
     * @throws WrongTypeException, IllegalStateException as for {@link #putMembers}, from a change or
     *     thrown by {@code fn}'s reads (nothing written)
     * @throws IllegalArgumentException if {@code fn} does not return one change per key, or returns
     *     more than one change that is not a keep for one key (nothing written)
     * @throws StoreFullException, EntryTooLargeException as for {@link #putMembers}
     */
    default List<MemberWrite> updateStructures(List<byte[]> keys, Function<StructureView, List<StructureChange>> fn) {
        throw structuresUnsupported();
    }

    /**
     * A fingerprint of the members of the complete hash or set at {@code key}: equal members with equal values
     * give an equal one, whatever order they were written in (the structure's digest, a sum of a 64-bit hash
     * of each member and value, folded to 32 bits); 0 if the key holds no complete structure. A full resync
     * compares it where it compares a string's length and checksum: a structure's TxId alone does not tell
     * two copies apart when a crash left one with part of a later, unacknowledged write under it. O(1).
     */
    default int membersFingerprint(byte[] key) {
        return 0;
    }

    /**
     * The canonical image of the hash or set at {@code key} ({@link MembersImage}) with its record's
     * header, read in one step under the key's lock, or {@code null} if the key holds no complete
     * structure (absent, a tombstone, a string, or a structure whose members have not arrived). For
     * replication, which ships a structure whole: O(size) and an array of the image's length.
     */
    default MembersImage image(byte[] key) {
        throw structuresUnsupported();
    }

    /**
     * Makes the structure of {@code image} {@code key}'s record if {@code decide} says so, replacing
     * whatever the key held (a string's value, another structure's members, a tombstone): the backup's
     * apply of a shipped structure. {@code decide} gets the key's current header ({@code null} if absent)
     * under the key's lock, like an {@link #update} function, and returns the header to write (a
     * complete hash or set, its TxId and expiry), or {@code null} to leave the key as it is.
     *
     * @return true if written
     * @throws IllegalArgumentException if {@code image} is not canonical or the header is not a
     *     complete structure's (nothing written)
     * @throws StoreFullException if the store has no room for it (nothing written)
     * @throws EntryTooLargeException if the key or a member is over the limits (nothing written)
     */
    default boolean putImage(byte[] key, byte[] image, Function<RecordHeader, RecordHeader> decide) {
        throw structuresUnsupported();
    }

    /**
     * Copies the hash or set at {@code source} to {@code destination} in one step under both keys'
     * locks: RENAME, RENAMENX and COPY of a structure, on a primary and on a backup. {@code decide} gets
     * both keys' headers ({@code null} where absent or hidden by a flush) and returns what to write, or
     * {@code null} to leave both keys as they are; it runs under the locks and must be quick and must
     * not touch the store, and it may throw to refuse (nothing written). The destination's record, of
     * any type, is replaced (its value or members freed) by the source's members under {@code decide}'s
     * header; then the source is kept, removed or made a tombstone as {@code decide} says (a removed
     * source's members are freed). O(pages) page copies, like a DEL of the structure.
     *
     * @return what {@code decide} returned
     * @throws IllegalArgumentException if {@code source} equals {@code destination}, or {@code decide}
     *     asked for a copy while the source is not a complete structure of the destination header's
     *     type; nothing written
     * @throws StoreFullException if the copy does not fit; nothing written
     * @throws EntryTooLargeException if a key is longer than the limit
     */
    default MemberCopy copyMembers(
            byte[] source, byte[] destination, BiFunction<RecordHeader, RecordHeader, MemberCopy> decide) {
        throw structuresUnsupported();
    }

    private UnsupportedOperationException structuresUnsupported() {
        return new UnsupportedOperationException("hashes and sets are not supported by "
                + getClass().getSimpleName() + ": use KvStore.builder().open(), or HeapKvStore in tests");
    }

    /** Current use and limits. */
    StoreStats stats();

    /** The configuration the store was opened with. */
    StoreConfig config();

    /** Releases memory and files; idempotent. Operations after close throw {@link StorageException}. */
    @Override
    void close();

    /**
     * Builds a {@link KvStore}. Every setter rejects bad input at once with a message quoting the value.
     */
    final class Builder {
        private final StoreConfig.Builder config = StoreConfig.builder();

        Builder() {}

        /** Maximum number of records (default 1,000,000). */
        public Builder maxEntries(long maxEntries) {
            config.maxEntries(maxEntries);
            return this;
        }

        /** Maximum bytes of keys plus values (default 1 GiB). */
        public Builder maxBytes(long maxBytes) {
            config.maxBytes(maxBytes);
            return this;
        }

        /** Longest key accepted (default 64 KiB). */
        public Builder maxKeyBytes(int maxKeyBytes) {
            config.maxKeyBytes(maxKeyBytes);
            return this;
        }

        /** Longest value accepted (default 512 MiB). */
        public Builder maxValueBytes(int maxValueBytes) {
            config.maxValueBytes(maxValueBytes);
            return this;
        }

        /** Persist to files in {@code dir} (created if absent); without it the store is memory only. */
        public Builder dataDir(Path dir) {
            config.dataDir(dir);
            return this;
        }

        public Builder config(StoreConfig c) {
            config.from(c);
            return this;
        }

        /**
         * Opens the store (recovering its files if {@code dataDir} holds some).
         *
         * @throws StorageException if the backing memory or files cannot be opened, or the data dir is
         *     in use by another open store
         */
        public KvStore open() {
            return dev.kvs.core.internal.Stores.open(config.build());
        }
    }
}
