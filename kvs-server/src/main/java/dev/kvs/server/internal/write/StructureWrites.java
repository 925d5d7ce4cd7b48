package dev.kvs.server.internal.write;

import dev.kvs.core.KvStore;
import dev.kvs.core.Member;
import dev.kvs.core.MemberCopy;
import dev.kvs.core.MemberWrite;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StructureChange;
import dev.kvs.core.StructureView;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.StructureEffect;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.BiFunction;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;
import java.util.random.RandomGenerator;

/**
 * The writes of hashes and sets on the primary: the store's member methods ({@link KvStore#putMembers}
 * and the rest) run by {@link Writes}' protocol, so each write that changes a structure takes one
 * TxId for its key, inside the key's lock, and is replicated and answered in the connection's mode as
 * a string write is. A write that changes nothing (HSET of the value a field has, SREM of an absent
 * member) takes no TxId and waits for nothing.
 *
 * <p>Expiry: a structure whose expiry has passed is deleted (a replicated delete, as active expiry's)
 * before a write to it, so the write starts from an empty key, as in Redis. Thread-safe.
 */
public final class StructureWrites {
    private final KvStore store;
    private final Writes writes;

    public StructureWrites(KvStore store, Writes writes) {
        this.store = store;
        this.writes = writes;
    }

    /** HSET, HMSET, SADD: see {@link KvStore#putMembers}. */
    public Writes.Done<MemberWrite> put(
            ReplicationMode mode,
            LastWrite last,
            byte[] key,
            ValueType type,
            List<Member> members,
            boolean wantPrevious) {
        // a put that changes nothing is answered without the key's lock, as a read (a node that takes no
        // writes still refuses it): most of redis-benchmark's HSETs and SADDs, whose two event loops
        // otherwise took turns at the hot key's lock, one spinning while the other read. Where each member was
        // found is marked in seen: in a run of 16 SADDs of which one adds a member, the write under the lock
        // then reads only the pages written since (its hold of the lock was most of a SADD's time, issue 35)
        Object[] seen = new Object[members.size()];
        MemberWrite unchanged = store.putMembersIfUnchanged(key, type, members, wantPrevious, writes.clock(), seen);
        if (unchanged != null) {
            writes.checkWritableNow();
            return new Writes.Done<>(unchanged, NOTHING_TO_REPLICATE);
        }
        // the key's expiry checked under its lock, in the store's one read of its record: a check before
        // (dropIfExpired) read it twice per HSET and SADD, most of which change nothing
        Writes.Done<MemberWrite> d = writes.ordered(
                mode,
                last,
                o -> store.putMembersUnlessExpired(
                        key,
                        type,
                        members,
                        wantPrevious,
                        writes.clock(),
                        seen,
                        txId(o, key, type, members, List.of())));
        if (d.result() != null) return d;
        dropIfExpired(mode, key);
        return writes.ordered(
                mode,
                last,
                o -> store.putMembers(key, type, members, wantPrevious, txId(o, key, type, members, List.of())));
    }

    /** HINCRBY, HINCRBYFLOAT, HSETNX: see {@link KvStore#updateMember}. */
    public Writes.Done<MemberWrite> update(
            ReplicationMode mode, LastWrite last, byte[] key, ValueType type, byte[] name, UnaryOperator<byte[]> fn) {
        dropIfExpired(mode, key);
        return writes.ordered(mode, last, o -> store.updateMember(key, type, name, fn, txId(o, key, type)));
    }

    /** HDEL, SREM: see {@link KvStore#removeMembers}. */
    public Writes.Done<MemberWrite> remove(
            ReplicationMode mode,
            LastWrite last,
            byte[] key,
            ValueType type,
            List<byte[]> names,
            boolean wantPrevious) {
        dropIfExpired(mode, key);
        return writes.ordered(
                mode,
                last,
                o -> store.removeMembers(key, type, names, wantPrevious, txId(o, key, type, List.of(), names)));
    }

    /**
     * SPOP: see {@link KvStore#popMembers}. A key that holds nothing (absent, or the tombstone its last
     * member's pop left) is answered from the header read for expiry, with no write begun and no lock of
     * the key taken, as a read of it would be (the node must still take writes): redis-benchmark's SPOP
     * meets an emptied set in most of its requests, and two connections on one key met at its lock.
     */
    public Writes.Done<List<Member>> pop(
            ReplicationMode mode, LastWrite last, byte[] key, ValueType type, int count, RandomGenerator random) {
        if (dropIfExpired(mode, key)) {
            writes.checkWritableNow();
            return new Writes.Done<>(List.of(), NOTHING_TO_REPLICATE);
        }
        return writes.ordered(mode, last, o -> store.popMembers(key, type, count, random, txId(o, key, type)));
    }

    /**
     * The TxId supplier of a member write: called by the store under the key's lock (re-entrant: the
     * header read here is the one before the write), it orders the write with the expiry the structure
     * keeps (none for a new one), which the key packet carries to the backup.
     */
    private Supplier<TxId> txId(Writes.Ordering o, byte[] key, ValueType type) {
        return txId(o, key, type, null, null);
    }

    /**
     * {@link #txId(Writes.Ordering, byte[], ValueType)} of a write that sets {@code set} and removes {@code
     * removed}: its effect on the structure the key holds before it (whose TxId is the effect's base), which may
     * ship instead of the image; none for a new structure. {@code set} null: no effect (the image ships).
     */
    private Supplier<TxId> txId(Writes.Ordering o, byte[] key, ValueType type, List<Member> set, List<byte[]> removed) {
        return () -> {
            RecordHeader h = store.header(key);
            boolean kept = h != null && h.state() == RecordState.COMPLETE && h.type() == type;
            long expireAt = kept ? h.expireAtMillis() : RecordHeader.NO_EXPIRY;
            if (!kept || set == null) return o.structure(key, type, expireAt);
            List<byte[]> names = new ArrayList<>(set.size());
            List<byte[]> values = new ArrayList<>(set.size());
            for (Member m : set) {
                names.add(m.name());
                values.add(m.value());
            }
            return o.structure(key, type, expireAt, new StructureEffect(h.txId(), names, values, removed));
        };
    }

    /**
     * Rewrites the expiry of the hash or set at {@code key}, its members kept (EXPIRE, PERSIST of a
     * structure): {@code fn} gets the key's header under its lock ({@code null} if absent or expired) and the
     * write's TxId for its new expiry (ordered when called), and returns the header to write (its TxId and expiry changed) or
     * {@code null} to leave it; see {@link KvStore#updateHeader}.
     *
     * @return the key's header after
     */
    public Writes.Done<RecordHeader> restamp(
            ReplicationMode mode,
            LastWrite last,
            byte[] key,
            BiFunction<RecordHeader, LongFunction<TxId>, RecordHeader> fn) {
        return writes.ordered(
                mode,
                last,
                o -> store.updateHeader(key, h -> {
                    RecordHeader live = h != null && h.expiredAt(writes.clock()) ? null : h;
                    return fn.apply(live, expireAt -> o.structure(key, live.type(), expireAt));
                }));
    }

    /** What {@link #copy} writes, decided under both keys' locks. */
    public interface CopyDecision {
        /**
         * @param source the source's header, {@code null} if absent or expired
         * @param destination the destination's header, {@code null} if absent or expired
         * @param order orders the write's TxId ({@link Writes.Ordering#renameStructure} or {@link
         *     Writes.Ordering#structure}); call it only when writing
         * @return what to write, or {@code null} to leave both keys
         */
        MemberCopy decide(RecordHeader source, RecordHeader destination, Writes.Ordering order);
    }

    /** RENAME, RENAMENX, COPY of a hash or set: see {@link KvStore#copyMembers}. */
    public Writes.Done<MemberCopy> copy(
            ReplicationMode mode, LastWrite last, byte[] source, byte[] destination, CopyDecision decide) {
        return writes.ordered(
                mode,
                last,
                o -> store.copyMembers(source, destination, (s, d) -> decide.decide(alive(s), alive(d), o)));
    }

    private RecordHeader alive(RecordHeader h) {
        return h != null && h.expiredAt(writes.clock()) ? null : h;
    }

    /**
     * {@code key}'s header if it holds something whose expiry has not passed on this node's clock, else
     * null: what a structure read checks first (a read of an expired key sees nothing, as in Redis).
     */
    public RecordHeader live(byte[] key) {
        RecordHeader h = store.header(key);
        return h != null && h.expiredAt(writes.clock()) ? null : h;
    }

    /**
     * Deletes {@code key} first if its expiry has passed (a replicated delete, as active expiry's).
     *
     * @return whether the header read (before the key's lock) said the key holds nothing: none, or a
     *     tombstone; false if it held something, or something that expired and was deleted here
     */
    private boolean dropIfExpired(ReplicationMode mode, byte[] key) {
        RecordHeader h = store.header(key);
        if (h == null || h.state() == RecordState.TOMBSTONE) return true;
        if (h.expiredAt(writes.clock())) writes.expire(mode, key, writes.clock().millis());
        return false;
    }

    /** A write answered without writing is replicated already. */
    private static final CompletableFuture<Void> NOTHING_TO_REPLICATE = CompletableFuture.completedFuture(null);

    // -- several keys in one step: SMOVE and the *STORE commands

    /**
     * SMOVE, SINTERSTORE, SUNIONSTORE, SDIFFSTORE: see {@link KvStore#updateStructures}. {@code decide}
     * gets the keys under all their locks, a key whose expiry has passed reading as absent (its header
     * {@code null}; it is deleted first, as before any structure write), and, per key index, the TxId to
     * give a change of that key: each key a change writes takes its own TxId, ordered as a {@code type}
     * write, and none is taken for a key left as it was.
     */
    public Writes.Done<List<MemberWrite>> updateAll(
            ReplicationMode mode,
            LastWrite last,
            List<byte[]> keys,
            ValueType type,
            BiFunction<StructureView, TxIds, List<StructureChange>> decide) {
        for (byte[] key : keys) dropIfExpired(mode, key);
        return writes.ordered(
                mode,
                last,
                o -> store.updateStructures(keys, view -> {
                    TxIds txIds = new TxIds() {
                        @Override
                        public Supplier<TxId> kept(int i) {
                            return txId(o, keys.get(i), type);
                        }

                        @Override
                        public Supplier<TxId> fresh(int i) {
                            return () -> o.structure(keys.get(i), type, RecordHeader.NO_EXPIRY);
                        }
                    };
                    return decide.apply(unexpired(view, writes.clock().millis()), txIds);
                }));
    }

    /**
     * The TxIds of {@link #updateAll}'s changes, per key index, ordered with the expiry the key will
     * have, which its key packet carries to the backup.
     */
    public interface TxIds {
        /** For a change that keeps the key's structure and its expiry: SMOVE's put and remove. */
        Supplier<TxId> kept(int i);

        /** For a replace: the key becomes a new structure without expiry (a *STORE destination). */
        Supplier<TxId> fresh(int i);
    }

    /**
     * {@code view} with the headers of keys whose expiry has passed at {@code now} read as null: what a
     * read of several sets in one {@link KvStore#updateStructures} step sees, too.
     */
    public static StructureView unexpired(StructureView view, long now) {
        return new StructureView() {
            @Override
            public RecordHeader header(int i) {
                RecordHeader h = view.header(i);
                return h != null && h.expiredAt(now) ? null : h;
            }

            @Override
            public List<Member> members(int i, ValueType type) {
                return view.members(i, type);
            }

            @Override
            public List<byte[]> getMembers(int i, ValueType type, List<byte[]> names) {
                return view.getMembers(i, type, names);
            }

            @Override
            public long memberCount(int i, ValueType type) {
                return view.memberCount(i, type);
            }
        };
    }
}
