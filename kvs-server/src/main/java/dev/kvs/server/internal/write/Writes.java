package dev.kvs.server.internal.write;

import dev.kvs.core.KvStore;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StoreFullException;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.StructureEffect;
import dev.kvs.replication.WriteOrder;
import dev.kvs.server.internal.role.NodeRole;
import dev.kvs.server.internal.role.RoleMachine;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToLongFunction;

/**
 * The one way a command writes the store on the primary. It owns the write protocol: take an order
 * from the primary's replication, give each written key its TxId <em>inside</em> the store's lock for
 * that key (so per key, TxId order is store order), then commit, or abort if the store write failed
 * (so the TxId sequence stays gap-free for the backup). A command only decides, per key, to keep it
 * or to write it through {@link Ordering}; it never sees a TxId. Thread-safe.
 *
 * <p>A client's write names the connection's {@link LastWrite}, where the write's order is kept for
 * {@code WAIT}; the node's own writes (failover's resolutions, active expiry) name {@link LastWrite#NONE}.
 *
 * <p>Expiry: a decision never sees a record whose expiry has passed on this node's {@link #clock()}:
 * it gets {@code null}, as for an absent key (lazy expiry; the record itself is removed by active
 * expiry with {@link #expire}). A write that sets a TTL stores the absolute expiry time (epoch
 * millis) the command computed from this clock, and replication carries that absolute time.
 */
public final class Writes {
    private final KvStore store;
    private final RoleMachine roles;
    private final Clock clock;

    public Writes(KvStore store, RoleMachine roles) {
        this(store, roles, Clock.systemUTC());
    }

    /** With {@code clock} as the time expiries are computed and checked against (tests skew it). */
    public Writes(KvStore store, RoleMachine roles, Clock clock) {
        this.store = store;
        this.roles = roles;
        this.clock = clock;
    }

    /** The node's wall clock: what relative TTLs are added to and expiries compared with. */
    public Clock clock() {
        return clock;
    }

    /** How a command's decision writes a key: each call orders one write (a TxId) of it. */
    public interface Ordering {
        /** Writes {@code value} to {@code key}, without expiry (clears a TTL, as Redis's SET does). */
        default Write put(byte[] key, byte[] value) {
            return put(key, value, RecordHeader.NO_EXPIRY);
        }

        /**
         * Writes {@code value} to {@code key}, expiring at {@code expireAtMillis} (epoch millis; {@link
         * RecordHeader#NO_EXPIRY} for never).
         */
        Write put(byte[] key, byte[] value, long expireAtMillis);

        /** Deletes {@code key} (replicated as a tombstone). */
        Write remove(byte[] key);

        /**
         * Moves {@code value} from {@code source} to {@code key} in one TxId (RENAME): the writes for
         * {@code [source, key]}, in that order, for {@link #updateAll} over exactly those two keys.
         */
        List<Write> rename(byte[] source, byte[] key, byte[] value, long expireAtMillis);

        /**
         * Orders the rename of the hash or set at {@code source} to {@code key} in one TxId (RENAME of a
         * structure, written by {@link StructureWrites#copy}): replicated as a rename, as a string's is; the
         * backup moves its own copy of the members, or waits for them under the new name.
         */
        TxId renameStructure(byte[] source, byte[] key, long expireAtMillis);

        /**
         * Orders a write that leaves a hash or set at {@code key}, expiring at {@code expireAtMillis} (the
         * structure's own expiry; {@link RecordHeader#NO_EXPIRY} for a new one): the TxId a store member
         * method's {@code txId} supplier returns, called under the key's lock (see {@link
         * StructureWrites}). Replicated as a structure write: the backup gets the structure's image.
         */
        TxId structure(byte[] key, ValueType type, long expireAtMillis);

        /**
         * {@link #structure(byte[], ValueType, long)} of a write whose effect on the structure at its base is
         * known, which may ship instead of the image ({@code WriteOrder.putStructure}).
         */
        default TxId structure(byte[] key, ValueType type, long expireAtMillis, StructureEffect effect) {
            return structure(key, type, expireAtMillis);
        }
    }

    /**
     * A command's writes, in the store.
     *
     * @param result what the store did
     * @param replicated completes when the command may be answered in its replication mode, or fails
     *     with a {@link dev.kvs.replication.ReplicationTimeoutException} or a {@link
     *     dev.kvs.replication.BackupCannotStoreException} (both: the write is on this node, not confirmed)
     */
    public record Done<T>(T result, CompletableFuture<Void> replicated) {}

    /** Writes {@code value} to {@code key} whatever it held: one store operation, no read. */
    public CompletableFuture<Void> put(ReplicationMode mode, LastWrite last, byte[] key, byte[] value) {
        return put(mode, last, key, value, RecordHeader.NO_EXPIRY);
    }

    /** Writes {@code value} to {@code key} expiring at {@code expireAtMillis}, whatever it held: no read. */
    public CompletableFuture<Void> put(
            ReplicationMode mode, LastWrite last, byte[] key, byte[] value, long expireAtMillis) {
        return run(mode, last, order -> store.upsert(key, () -> order.complete(key, value, expireAtMillis)))
                .replicated();
    }

    /**
     * A store stage for {@code key}'s SET value of {@code length} bytes, for the client port to write the
     * value into as it arrives, while this node is a primary (a backup refuses the SET: nothing to stage
     * for), else null. With a backup, the value of a {@code sync} write ({@code mode}, the connection's)
     * may start to ship while it arrives ({@link dev.kvs.replication.ReplicationLink#shipWhileStaged}):
     * such a write waits for its value anyway. An {@code id-first} write waits for its key packet's ack,
     * which would queue behind its own value's bytes at the WAN's bottleneck (measured: 29 ms against 20
     * ms at 10 MiB); an {@code async} one waits for neither. The write itself is {@link #putStagedIf}.
     */
    public ValueStage stage(ReplicationMode mode, byte[] key, int length) {
        if (!(roles.current() instanceof NodeRole.Primary p)) return null;
        ValueStage stage = store.stage(length);
        // not inside an EXEC: a unit's values ship only once the backup knows the whole unit
        if (p.link() != null && mode == ReplicationMode.SYNC && unitHere() == null) {
            p.link().shipWhileStaged(key, stage);
        }
        return stage;
    }

    /** What {@link #putStagedIf}'s expiry function returns to leave the key as it is. */
    public static final long KEEP = Long.MIN_VALUE;

    /**
     * Writes the value staged in {@code stage} (all of it written, its CRC32C {@code checksum}) to
     * {@code key} expiring at {@code expireAtMillis}, whatever it held: a {@code SET} whose large value
     * the client port wrote into the store as it arrived. The stage is committed if this returns; the
     * caller closes it either way.
     */
    public CompletableFuture<Void> putStaged(
            ReplicationMode mode, LastWrite last, byte[] key, ValueStage stage, int checksum, long expireAtMillis) {
        return putStagedIf(mode, last, key, stage, checksum, h -> expireAtMillis)
                .replicated();
    }

    /**
     * As {@link #putStaged}, if {@code expiry}, given the key's current header under its lock (null if
     * absent or expired), returns the expiry to write; {@link #KEEP} leaves the key, and the stage
     * uncommitted ({@code SET ... NX}, {@code XX}, {@code KEEPTTL}).
     *
     * @return whether the value was written
     */
    public Done<Boolean> putStagedIf(
            ReplicationMode mode,
            LastWrite last,
            byte[] key,
            ValueStage stage,
            int checksum,
            ToLongFunction<RecordHeader> expiry) {
        return run(
                mode,
                last,
                order -> store.putStaged(key, stage, h -> {
                    long at = expiry.applyAsLong(live(h));
                    return at == KEEP ? null : order.completeStaged(key, stage.length(), checksum, at);
                }));
    }

    /** Decides, from its current header (null if absent or expired), what to do with {@code key}. */
    public Done<Write> update(
            ReplicationMode mode, LastWrite last, byte[] key, BiFunction<RecordHeader, Ordering, Write> decide) {
        return run(mode, last, order -> store.update(key, h -> decide.apply(live(h), order)));
    }

    /**
     * Decides, from its whole current record (value included; null if absent or expired), what to do
     * with {@code key}: a read-modify-write (INCR, APPEND) atomic with every other write of the key.
     */
    public Done<Write> updateValue(
            ReplicationMode mode, LastWrite last, byte[] key, BiFunction<StoredValue, Ordering, Write> decide) {
        return run(mode, last, order -> store.updateValue(key, v -> decide.apply(live(v), order)));
    }

    /** Decides, from their headers (null where absent or expired), what to do with several keys, atomically. */
    public Done<List<Write>> updateAll(
            ReplicationMode mode,
            LastWrite last,
            List<byte[]> keys,
            BiFunction<List<RecordHeader>, Ordering, List<Write>> decide) {
        return run(
                mode,
                last,
                order -> store.updateAll(keys, headers -> {
                    List<RecordHeader> live = new ArrayList<>(headers.size());
                    long now = clock.millis();
                    for (RecordHeader h : headers) live.add(h != null && h.expiredAt(now) ? null : h);
                    return decide.apply(live, order);
                }));
    }

    /**
     * Active expiry on the primary: deletes {@code key} if its record's expiry has passed at {@code
     * nowMillis}, as a replicated write with its own TxId (the backup applies the delete like a DEL's).
     *
     * @return true if the key was deleted
     */
    public Done<Boolean> expire(ReplicationMode mode, byte[] key, long nowMillis) {
        Done<Write> d = run(
                mode,
                LastWrite.NONE,
                order ->
                        store.update(key, h -> h != null && h.expiredAt(nowMillis) ? order.remove(key) : Write.keep()));
        return new Done<>(d.result() instanceof Write.Remove, d.replicated());
    }

    /**
     * {@link #expire} for several keys in one store step and one commit: each key whose expiry has
     * passed is deleted with its own TxId, the others are left. A burst of short TTLs expires at the
     * cost of one replication hand-off per batch rather than per key.
     *
     * @return the keys deleted, in {@code keys}' order
     */
    public Done<List<byte[]>> expireAll(ReplicationMode mode, List<byte[]> keys, long nowMillis) {
        Done<List<Write>> d =
                runOnce(mode, LastWrite.NONE, order -> store.updateAll(keys, expiring(keys, nowMillis, order)));
        List<byte[]> removed = new ArrayList<>();
        for (int i = 0; i < d.result().size(); i++)
            if (d.result().get(i) instanceof Write.Remove) removed.add(keys.get(i));
        return new Done<>(removed, d.replicated());
    }

    private RecordHeader live(RecordHeader h) {
        return h != null && h.expiredAt(clock) ? null : h;
    }

    private StoredValue live(StoredValue v) {
        return v != null && v.header().expiredAt(clock) ? null : v;
    }

    /**
     * FLUSHDB: orders a flush and makes it take effect at once, inside {@link KvStore#exclusive} (no
     * write in progress): every record older than its TxId is hidden from every reader and writer from
     * then on ({@link KvStore#hideBefore}); writes ordered after it stay. The records are removed
     * afterwards, key by key, by {@link KvStore#removeBefore} with the returned TxId, which the caller
     * runs off the event loops. A flush is not a connection's {@link LastWrite}: {@code WAIT} after it
     * waits for the write before it.
     *
     * @return the flush's TxId, and when it may be answered in its replication mode
     */
    public Done<TxId> flush(ReplicationMode mode) {
        WriteOrder order = begin(mode);
        TxId t;
        try {
            t = store.exclusive(() -> {
                TxId f = order.flush();
                store.hideBefore(f);
                return f;
            });
        } catch (RuntimeException e) {
            order.abort();
            throw e;
        }
        return new Done<>(t, commit(order));
    }

    /** The open {@link WriteUnit} (an EXEC's, one at a time), or null: read on every write. */
    private volatile WriteUnit unit;

    /**
     * Opens a unit on this thread for an {@code EXEC}: until {@link WriteUnit#end}, this thread's writes
     * are committed together at its end (see {@link WriteUnit}). Checks once for the whole unit that
     * this node may take writes (the primary, not fenced, its lease held); the unit's writes do not ask
     * again, so a lease that lapses during the EXEC does not cut it in half.
     *
     * @throws NotWritableException if this node takes no writes now
     * @throws IllegalStateException if a unit is open already
     */
    public WriteUnit beginUnit() {
        checkWritable();
        synchronized (this) {
            if (unit != null) throw new IllegalStateException("a write unit is open already");
            WriteUnit u = new WriteUnit(this);
            unit = u;
            return u;
        }
    }

    synchronized void closeUnit(WriteUnit u) {
        if (unit == u) unit = null;
    }

    /** The unit open on this thread, or null. */
    private WriteUnit unitHere() {
        WriteUnit u = unit;
        return u != null && u.ownedBy(Thread.currentThread()) ? u : null;
    }

    /** Commits {@code order} now, or at the end of the unit open on this thread. */
    private CompletableFuture<Void> commit(WriteOrder order) {
        WriteUnit u = unitHere();
        return u == null ? order.commit() : u.add(order);
    }

    /** Runs {@code storeWrite} by the write protocol of {@link #run}: for {@link StructureWrites}. */
    <T> Done<T> ordered(ReplicationMode mode, LastWrite last, Function<Ordering, T> storeWrite) {
        return run(mode, last, storeWrite::apply);
    }

    /** Keys whose expiry has passed that a write refused for want of room deletes before it tries again. */
    static final int RECLAIM = 256;

    private final LongAdder reclaimed = new LongAdder();

    /**
     * Runs a command's store write in a new ordering. A store full of keys whose expiry has passed is
     * not full: a write refused for want of room deletes up to {@link #RECLAIM} of them (replicated
     * deletes, as active expiry's; fenced keys excepted) and tries once more, so a burst of short TTLs
     * written faster than the expiry thread removes them does not refuse writes while they hold room.
     * Those deletes count as the write's for {@code last}, as its own order does if it ordered a TxId.
     */
    private <T> Done<T> run(ReplicationMode mode, LastWrite last, Function<OrderingOf, T> storeWrite) {
        try {
            return runOnce(mode, last, storeWrite);
        } catch (StoreFullException full) {
            if (reclaimExpired(mode, last) == 0) throw full;
            return runOnce(mode, last, storeWrite);
        }
    }

    /** Deletes up to {@link #RECLAIM} keys whose expiry has passed; fenced ones are left to their values. */
    private int reclaimExpired(ReplicationMode mode, LastWrite last) {
        long now = clock.millis();
        List<byte[]> due = new ArrayList<>();
        for (byte[] key : store.expiredKeys(now, RECLAIM)) {
            if (roles.gate().refusal(key, true) == null) due.add(key);
        }
        if (due.isEmpty()) return 0;
        Done<List<Write>> d = runOnce(mode, last, order -> store.updateAll(due, expiring(due, now, order)));
        int removed = 0;
        for (Write w : d.result()) if (w instanceof Write.Remove) removed++;
        reclaimed.add(removed);
        return removed;
    }

    /** Keys deleted because their expiry had passed when a write found the store full (see {@link #run}). */
    public long reclaimedKeys() {
        return reclaimed.sum();
    }

    /** The writes that delete each of {@code keys} whose expiry has passed at {@code now}, keeping the others. */
    private static Function<List<RecordHeader>, List<Write>> expiring(List<byte[]> keys, long now, Ordering order) {
        return headers -> {
            List<Write> writes = new ArrayList<>(headers.size());
            for (int i = 0; i < headers.size(); i++) {
                RecordHeader h = headers.get(i);
                writes.add(h != null && h.expiredAt(now) ? order.remove(keys.get(i)) : Write.keep());
            }
            return writes;
        };
    }

    /**
     * The write protocol: begin, the store write (ordering inside it), then commit, or abort if it failed;
     * a write that ordered a TxId is {@code last}'s from then on.
     */
    private <T> Done<T> runOnce(ReplicationMode mode, LastWrite last, Function<OrderingOf, T> storeWrite) {
        WriteOrder order = begin(mode);
        OrderingOf ordering = new OrderingOf(order);
        T result;
        try {
            result = storeWrite.apply(ordering);
        } catch (RuntimeException e) {
            order.abort();
            throw e;
        }
        CompletableFuture<Void> replicated = commit(order);
        if (ordering.ordered) last.keep(order);
        return new Done<>(result, replicated);
    }

    private WriteOrder begin(ReplicationMode mode) {
        // in a unit the lease was checked once for all its writes (beginUnit)
        NodeRole.Primary p = unitHere() == null ? checkWritable() : primary();
        return p.writes().beginNow(mode); // commands run on event loops: never wait here
    }

    /** This node's role if it takes writes now: the primary, its writes not fenced, its lease held. */
    private NodeRole.Primary checkWritable() {
        NodeRole.Primary p = primary();
        if (p.writeFence() != null) throw new NotWritableException(p.writeFence());
        String lease = roles.leaseRefusal();
        if (lease != null) throw new NotWritableException(lease);
        return p;
    }

    private NodeRole.Primary primary() {
        NodeRole r = roles.current();
        if (!(r instanceof NodeRole.Primary p)) {
            throw new NotWritableException("NOTPRIMARY " + RoleMachine.primaryClientAddress(r)
                    + " this node is a backup; write to the primary");
        }
        return p;
    }
}
