package dev.kvs.replication.backup;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.core.MemberCopy;
import dev.kvs.core.MembersImage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueType;
import dev.kvs.core.Write;
import dev.kvs.core.WriteStages;
import dev.kvs.replication.UnfinishedKeys;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import java.lang.invoke.VarHandle;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the backup does with what it receives: key packets (contiguity, unfinished-key queue), full
 * resyncs, and whole values (applied to the store if no newer TxId of the key is there).
 *
 * <p>A key packet enters the queue only if the store's record of its key is older; a value resolves
 * the queue up to the TxId then in the store. So whichever of a key packet and its value comes first,
 * the key never stays unfinished once a value at least as new is stored. Looking every announced key
 * up in the store would cost a hash-table miss per write on the key channel's critical path, and a
 * value almost never overtakes its key packet: so the applier keeps the newest TxId any value has
 * brought into the store ({@link #newestValue}), and only a key packet not newer than that is
 * checked against the store (under the key's store lock, {@link KvStore#updateAll}). The others are
 * queued at once, then the watermark is read again: a value that landed meanwhile either sees the
 * entry and resolves it, or raised the watermark before that second read, and the key is checked
 * against the store after all (see {@link #announce}).
 *
 * <p><b>Awaited values.</b> Every write reaches the key channel: a fenced one ({@code PUT}, {@code
 * DELETE}, {@code RENAME}) enters the unfinished-key queue, an {@code async} one ({@link Op#ASYNC})
 * a second queue that nothing fences ({@link #asyncValues}). So for a TxId up to {@link #contiguous()}
 * the backup knows whether its value is still awaited, and a value nobody awaits any more (its key
 * was written again or deleted since, and that has landed) is discarded without a look at the store.
 * That is what lets a delete leave no tombstone: once every key packet up to it has arrived, the
 * delete removes the record, and an older value arriving later finds nothing awaiting it. A value of
 * a TxId beyond {@link #contiguous()} (it overtook its key packet) is applied if the store's record is
 * older, as before; every tombstone removed is at or below {@link #contiguous()}, hence older than
 * such a value. Tombstones that had to be written (the delete's value overtook its key packet, a
 * rename's source, a resync's removals) are left to the {@link TombstoneCollector}. During a full
 * resync nothing counts as settled (its listing, which may come after the values, announces the
 * primary's keys again): values go by the store alone, deletes leave tombstones, and none is collected
 * before the resync's walk is over.
 *
 * <p><b>An EXEC is one unit.</b> The key packets of an {@code EXEC} of two or more writes name their
 * unit ({@link Frame.Unit}); the primary ships the unit's values only once its last key packet is
 * acknowledged, so the unit's members are registered ({@link HeldUnits}) before any of its values
 * arrives. A value, tombstone or rename of a member is held (its ack deferred, like a held delete's)
 * until the unit is ready: every member's value is held, or its key no longer awaits that write (a
 * newer write landed). The unit is then applied in TxId order through {@link #write} while no reader
 * runs ({@code alone}: the node's guard), so no reader sees half an EXEC, and a promotion that finds
 * the unit held fences every one of its keys (their values were never applied). A full resync
 * releases held units as plain values, and so does a unit past the held bytes' bound ({@link
 * BackupCounters#unitsBroken}); a FLUSH in a unit applies at its key packet, as any flush.
 *
 * <p>Thread-safe: key-side calls are serialised on one lock (the key channel, or a replacement
 * racing its predecessor); values may be applied from any number of threads.
 */
final class BackupApplier {
    private static final Logger log = LoggerFactory.getLogger(BackupApplier.class);

    /** What became of a whole value. */
    enum Outcome {
        /** Written to the store. */
        APPLIED,
        /** The store already held this TxId or a newer one of the key: nothing written. */
        SUPERSEDED,
        /** Its length or checksum differs from what its key packet announced: not applied. */
        MISMATCH,
        /**
         * A delete that came before its key packet: held until the key channel passes it, then applied
         * (leaving no tombstone) and its outcome given to the {@link Settled} it came with.
         */
        HELD,
        /**
         * An effect ({@link Frame.Effect}) this backup cannot apply: it holds no complete structure of
         * the effect's type at exactly the effect's base TxId (the base has not arrived, was never
         * here, or the key was written over since). Nothing written: the primary is to ship the key's
         * whole value.
         */
        WANTS_WHOLE
    }

    /** Where a held delete's outcome goes once it is applied: the outcome, or the store's refusal. */
    @FunctionalInterface
    interface Settled {
        void settled(Outcome outcome, KvsException refused);
    }

    private final HeldDeletes held = new HeldDeletes();
    private final HeldUnits units;
    /** Runs a ready unit's application while no reader of the store runs (the node's guard). */
    private final Consumer<Runnable> alone;

    /**
     * What to answer on the key channel.
     *
     * @param ack the cumulative ack: every key packet up to it has arrived
     * @param resend ask the primary to resend after this TxId, or {@code null}
     * @param walk a flush's sweep of the store to run off the event loop (see {@link #onKeyBatch}), or
     *     {@code null}
     * @param wants during a full resync's listing, the listed keys whose values this backup lacks
     *     (answered to the primary as a {@code ResyncWants}); empty otherwise
     */
    record KeyResult(TxId ack, TxId resend, Runnable walk, List<KeyPacket> wants) {
        KeyResult(TxId ack, TxId resend) {
            this(ack, resend, null, List.of());
        }
    }

    private final KvStore store;
    private final WriteStages stages;
    private final UnfinishedKeys unfinished;
    /** Async writes whose value has not landed: awaited, never fenced. */
    private final UnfinishedKeys asyncValues;

    private final BackupCounters counters;
    private final TombstoneCollector tombstones;
    private final Object keyLock = new Object();
    private final KeySequence sequence; // keyLock
    private Set<ByteKey> listed; // keyLock; non-null while a full resync lists keys
    /** Only units starting after this are held: the point of the last full resync; keyLock. */
    private TxId unitsAfter = TxId.ZERO;
    /** The listed packets of the batch being announced whose values this backup lacks; keyLock. */
    private List<KeyPacket> wants;
    /**
     * Keys a full resync listed at the TxId this backup holds them at, but not as this backup holds them
     * ({@link #differs}): the value of that TxId replaces the record once, when it comes ({@link #newer}).
     * Cleared when the next resync begins.
     */
    private final Map<ByteKey, TxId> rewrites = new ConcurrentHashMap<>();
    /**
     * Runs on the key channel's thread before each run of key packets is announced, or null: a test's
     * seam, where it makes a value thread look for ready units; keyLock.
     */
    Runnable beforeAnnounce;

    private volatile TxId contiguous;
    private volatile boolean resyncing;
    /** A resync's store walk has not finished: keys are not acknowledged yet. */
    private volatile boolean walking;
    /**
     * The TxId of the last flush: every write before it is gone, and a value of an older TxId that
     * arrives now is discarded rather than applied (it would bring a flushed key back).
     */
    private volatile TxId flushedBefore = TxId.ZERO;
    /**
     * At least the TxId of every record a value brought into the store, raised after the value's
     * write and before it resolves the queue. A store that held records when this applier started
     * (a persisted backup restarted, a primary demoted) may hold any TxId: then every announced key
     * is checked, as if this were {@link #UNKNOWN}.
     */
    private final AtomicReference<TxId> newestValue;

    /** Greater than any TxId: every announced key is looked up in the store. */
    private static final TxId UNKNOWN = new TxId(Long.MAX_VALUE, Long.MAX_VALUE);

    BackupApplier(KvStore store, UnfinishedKeys unfinished, BackupCounters counters, int maxHeldKeyPackets) {
        this(store, unfinished, new UnfinishedKeys(unfinished.maxKeys()), counters, maxHeldKeyPackets, WriteStages.OFF);
    }

    BackupApplier(
            KvStore store,
            UnfinishedKeys unfinished,
            UnfinishedKeys asyncValues,
            BackupCounters counters,
            int maxHeldKeyPackets,
            WriteStages stages) {
        this(
                store,
                unfinished,
                asyncValues,
                counters,
                maxHeldKeyPackets,
                stages,
                DEFAULT_MAX_UNIT_BYTES,
                Runnable::run);
    }

    /** The bytes of values held for units by default ({@code BackupConfig}). */
    static final long DEFAULT_MAX_UNIT_BYTES = 64L << 20;

    /**
     * @param stages where each applied value is marked (a benchmark's; else {@link WriteStages#OFF})
     * @param maxUnitBytes the bytes of values held for units at most; past it a unit's values apply as
     *     they come
     * @param alone runs its argument while no reader of the store runs
     */
    BackupApplier(
            KvStore store,
            UnfinishedKeys unfinished,
            UnfinishedKeys asyncValues,
            BackupCounters counters,
            int maxHeldKeyPackets,
            WriteStages stages,
            long maxUnitBytes,
            Consumer<Runnable> alone) {
        this.units = new HeldUnits(maxUnitBytes);
        this.alone = alone;
        this.stages = stages;
        this.store = store;
        this.unfinished = unfinished;
        this.asyncValues = asyncValues;
        this.counters = counters;
        this.tombstones = new TombstoneCollector(store, this::awaitsUpTo, counters);
        this.sequence = new KeySequence(TxId.ZERO, maxHeldKeyPackets);
        this.contiguous = TxId.ZERO;
        this.newestValue = new AtomicReference<>(store.stats().entries() == 0 ? TxId.ZERO : UNKNOWN);
    }

    /** The highest TxId such that every key packet of its epoch up to it has arrived. */
    TxId contiguous() {
        return contiguous;
    }

    /** True between a {@code ResyncBegin} and its {@code ResyncEnd}. */
    boolean resyncing() {
        return resyncing || walking;
    }

    /** The TxId of the last flush applied ({@link TxId#ZERO} if none). */
    TxId flushedBefore() {
        return flushedBefore;
    }

    /** The queue of async writes whose values have not landed. */
    UnfinishedKeys asyncValues() {
        return asyncValues;
    }

    /**
     * Removes the tombstones that order nothing any more (see {@link TombstoneCollector}); nothing
     * while a resync lists keys or walks the store (its removals are tombstones until it is over).
     *
     * @return the tombstones removed
     */
    long collectTombstones() {
        if (resyncing()) return 0;
        return tombstones.collect(contiguous);
    }

    /**
     * True if {@link #collectTombstones} would remove a deferred tombstone now: the key channel has
     * passed it. Cheap: the key channel asks after each batch, so that tombstones written by deletes
     * whose values overtook their key packets go within moments, not at the next periodic collection.
     */
    boolean tombstonesDue() {
        return !resyncing() && tombstones.due(contiguous);
    }

    /** The tombstone count above which {@link #collectTombstones} sweeps the store. */
    long tombstoneSweepAbove() {
        return tombstones.sweepAbove();
    }

    /**
     * Active expiry on the backup: removes {@code key}'s record if it has expired at {@code nowMillis}.
     * At once when its TxId is settled (every key packet up to it arrived, nothing older awaited: an
     * older value arriving later is discarded), else as a tombstone of the record's TxId, collected
     * later. The primary's delete, when it arrives, changes nothing visible.
     *
     * @return true if the key was removed
     */
    boolean expire(byte[] key, long nowMillis) {
        TxId[] deferred = new TxId[1];
        Write w = store.update(key, h -> {
            if (h == null || h.state() == RecordState.TOMBSTONE || !h.expiredAt(nowMillis)) return Write.keep();
            TxId settled = resyncing() ? TxId.ZERO : contiguous; // under the key's lock: see write
            if (h.txId().compareTo(settled) <= 0 && !awaitsUpTo(key, h.txId())) return Write.remove();
            deferred[0] = h.txId();
            return Write.put(StoredValue.tombstone(h.txId()));
        });
        if (deferred[0] != null) tombstones.defer(key, deferred[0]);
        return !(w instanceof Write.Keep);
    }

    /** True if {@code key} awaits a value of {@code txId} or an older one, in either queue. */
    private boolean awaitsUpTo(byte[] key, TxId txId) {
        return unfinished.awaitsUpTo(key, txId) || asyncValues.awaitsUpTo(key, txId);
    }

    /** Queues the write {@code p} announces: in the unfinished-key queue, or (async) the unfenced one. */
    private void await(KeyPacket p) {
        boolean added = p.op() == Op.ASYNC
                ? asyncValues.add(p.key(), p.txId(), 0, 0)
                // a structure's entry has no checksum: a listing's members fingerprint is for differs alone
                : unfinished.add(
                        p.key(),
                        p.txId(),
                        p.valueLength(),
                        p.op().isStructure() ? 0 : p.checksum(),
                        p.expireAtMillis());
        // a resync's listing: the primary ships only these, each once (announce may look twice)
        if (wants != null && added) wants.add(p);
    }

    /** Resolves {@code key}'s entries up to {@code upTo} in both queues. */
    private void resolve(byte[] key, TxId upTo) {
        unfinished.resolve(key, upTo);
        asyncValues.resolve(key, upTo);
    }

    /**
     * Handles the packets of one key batch (or of a resync listing), in TxId order. A {@code FLUSH}
     * takes effect here, at once and in order with the other key packets: the store hides every older
     * record from every reader ({@link KvStore#hideBefore}: a READONLY client, a promotion), values of
     * older TxIds are discarded from now on, and the unfinished-key queue forgets older entries. The
     * records' removal is a sweep over every key, returned as {@link KeyResult#walk()} to run off the
     * event loop; acks do not wait for it (nothing it removes is visible any more).
     */
    KeyResult onKeyBatch(List<KeyPacket> packets) {
        synchronized (keyLock) {
            List<KeyPacket> ready = new ArrayList<>(packets.size());
            List<KeyPacket> wanted = listed == null ? List.of() : new ArrayList<>();
            wants = listed == null ? null : wanted;
            for (KeyPacket p : packets) {
                counters.keyPackets.increment();
                if (listed != null) {
                    if (p.op() == Op.SKIP || p.op() == Op.FLUSH) continue;
                    listed.add(new ByteKey(p.key()));
                    counters.resyncKeysListed.increment();
                    ready.add(p);
                } else if (sequence.offer(p, ready) == KeySequence.Offer.DUPLICATE) {
                    counters.duplicateKeyPackets.increment();
                }
            }
            TxId flush;
            try {
                flush = announceInOrder(ready);
            } finally {
                wants = null;
            }
            if (!units.isEmpty()) applyReady(null); // a unit whose members are all there already
            contiguous = sequence.contiguous();
            TxId resend = listed == null ? sequence.resendNeeded() : null;
            if (resend != null) counters.resendsRequested.increment();
            if (!wanted.isEmpty()) counters.resyncValuesWanted.add(wanted.size());
            return new KeyResult(contiguous, resend, flush == null ? null : flushWalk(flush), wanted);
        }
    }

    /**
     * Announces {@code ready} in order: runs of puts and deletes together, a flush or a rename on its
     * own between them. Returns the TxId of the last flush among them, or null.
     */
    private TxId announceInOrder(List<KeyPacket> ready) {
        TxId flush = null;
        int from = 0;
        List<KeyPacket> inUnits = null;
        for (int i = 0; i < ready.size(); i++) {
            KeyPacket p = ready.get(i);
            // a unit begun before a full resync's point had its first packets listed without it: not held
            boolean inUnit =
                    p.unit() != null && listed == null && p.unit().first().compareTo(unitsAfter) > 0;
            if (inUnit) {
                if (inUnits == null) inUnits = new ArrayList<>();
                inUnits.add(p);
            }
            if (p.op() != Op.FLUSH && p.op() != Op.RENAME) continue;
            announce(ready.subList(from, i));
            from = i + 1;
            if (p.op() == Op.FLUSH) {
                flush(p.txId());
                flush = p.txId();
            } else if (inUnit) {
                // applied with its unit: until then both keys await it (a promotion fences both)
                unfinished.add(p.key(), p.txId(), p.valueLength(), p.checksum(), p.expireAtMillis());
                unfinished.add(p.source(), p.txId(), 0, 0);
            } else {
                rename(p);
            }
        }
        announce(from == 0 ? ready : ready.subList(from, ready.size()));
        // registered only once announced: a value thread's check for ready units (a value of one of the
        // unit's keys applied makes one: UnitAnnounceRaceTest) would otherwise find a unit whose keys are
        // not awaited yet, take it as ready with none of its values, and its values would then apply one
        // by one as they came (a reader saw "2 2 1")
        if (inUnits != null) for (KeyPacket p : inUnits) units.register(p);
        return flush;
    }

    /**
     * The flush at {@code txId}, the part that must happen in order with the key packets: raises the
     * watermark (older values are discarded from now on) and drops the older queue entries.
     */
    private void flush(TxId txId) {
        if (txId.compareTo(flushedBefore) > 0) flushedBefore = txId;
        // the older records are gone at once for every reader (a READONLY client, a promotion); the
        // sweep frees their room later
        store.hideBefore(txId);
        long dropped = unfinished.resolveBefore(txId) + asyncValues.resolveBefore(txId);
        counters.flushes.increment();
        log.info("flush at {}: {} unfinished entries before it dropped; sweeping the store", txId, dropped);
    }

    /** The store sweep of the flush at {@code txId}: frees the room of the records it hid. */
    private Runnable flushWalk(TxId txId) {
        return () -> {
            long removed = store.removeBefore(txId);
            counters.keysRemovedByFlush.add(removed);
            log.info("flush at {} done: {} records removed", txId, removed);
        };
    }

    /**
     * The rename of {@code p.source()} to {@code p.key()} at {@code p.txId()}, in one store step over
     * both keys. The source's delete needs no value: its tombstone at the rename's TxId is written at
     * once. The destination gets the value from this backup's own copy when it holds the source
     * complete, as announced (length and checksum) and with no newer write of it pending; otherwise
     * it is queued at the rename's TxId and waits for the value, which the primary ships again under
     * the new name (the chosen design: the value may still be on its way under the old name, or may
     * never come). So after a failover at any point the rename has happened: the source is gone and
     * the destination is served whole or fenced, never its old value. A hash or set held complete moves
     * its members in the store ({@link #moveStructure}); one that cannot be moved so takes the same
     * path as a value not held.
     */
    private void rename(KeyPacket p) {
        byte[] src = p.source();
        byte[] dst = p.key();
        TxId t = p.txId();
        StoredValue held = copyFor(src, p);
        boolean structure = held != null && held.header().type().isStructure();
        if (structure && moveStructure(p, held.header())) {
            resolve(src, t);
            tombstones.defer(src, t);
            resolve(dst, t);
            counters.renamesFromCopy.increment();
            return;
        }
        // a structure not moved (changed meanwhile, the destination newer, no room): as if not held
        StoredValue copy = structure ? null : held;
        StoredValue moved = copy == null
                ? null
                : new StoredValue(
                        new RecordHeader(
                                RecordState.COMPLETE,
                                t,
                                copy.header().checksum(),
                                copy.header().valueLength(),
                                p.expireAtMillis()), // the key keeps the source's expiry
                        copy.value());
        boolean[] fromCopy = new boolean[1];
        try {
            store.updateAll(List.of(src, dst), h -> {
                RecordHeader s = h.get(0);
                RecordHeader d = h.get(1);
                Write toSrc =
                        s == null || s.txId().compareTo(t) < 0 ? Write.put(StoredValue.tombstone(t)) : Write.keep();
                Write toDst = Write.keep();
                if (d == null || d.txId().compareTo(t) < 0) {
                    if (moved != null && copy.header().equals(s)) {
                        toDst = Write.put(moved);
                        fromCopy[0] = true;
                    } else {
                        unfinished.add(dst, t, p.valueLength(), p.checksum(), p.expireAtMillis());
                    }
                }
                return List.of(toSrc, toDst);
            });
        } catch (KvsException e) {
            log.warn("rename at {} could not be written to the store; queueing its key: {}", t, e.toString());
            unfinished.add(dst, t, p.valueLength(), p.checksum());
            unfinished.add(src, t, 0, 0);
            return;
        }
        resolve(src, t); // the store holds src at t now: older values of it are settled
        // its tombstone goes once the key channel has passed t (published after this batch)
        tombstones.defer(src, t);
        if (fromCopy[0]) {
            resolve(dst, t);
            counters.renamesFromCopy.increment();
        }
    }

    /**
     * Moves the members of the hash or set at {@code p.source()} (held complete with header {@code
     * seen}) to {@code p.key()} under both keys' locks ({@link KvStore#copyMembers}): the destination
     * becomes the structure at the rename's TxId with its announced expiry, the source a tombstone of
     * it. Nothing is written if the source changed since {@code seen}, the destination holds a newer
     * record, or the store refuses.
     *
     * @return true if moved
     */
    private boolean moveStructure(KeyPacket p, RecordHeader seen) {
        TxId t = p.txId();
        try {
            return store.copyMembers(p.source(), p.key(), (s, d) -> {
                        if (!seen.equals(s) || (d != null && d.txId().compareTo(t) >= 0)) return null;
                        RecordHeader moved =
                                RecordHeader.structure(RecordState.COMPLETE, t, s.type(), p.expireAtMillis());
                        return new MemberCopy(moved, Write.put(StoredValue.tombstone(t)));
                    })
                    != null;
        } catch (KvsException e) {
            log.warn("rename at {} could not move the structure in the store: {}", t, e.toString());
            return false;
        }
    }

    /** The source's record if this backup can move it as the rename's value, else null. */
    private StoredValue copyFor(byte[] src, KeyPacket p) {
        StoredValue copy;
        try {
            if (unfinished.contains(src) || asyncValues.contains(src)) return null; // a newer value is on its way
            copy = store.get(src);
        } catch (KvsException e) {
            return null;
        }
        if (copy == null
                || copy.state() != RecordState.COMPLETE
                || copy.txId().compareTo(p.txId()) >= 0
                || copy.txId().compareTo(flushedBefore) < 0
                || copy.header().valueLength() != p.valueLength()
                || copy.header().checksum() != p.checksum()) {
            return null;
        }
        return copy;
    }

    /** A full resync starts: the key batches until {@link #onResyncEnd} list every key of the primary. */
    void onResyncBegin(TxId upTo) {
        synchronized (keyLock) {
            // the listing announces keys again without units: a resync does not keep an EXEC together
            for (HeldUnits.Unit u : units.takeAll()) applyUnit(u, false);
            listed = new HashSet<>();
            rewrites.clear();
            resyncing = true;
            log.info("full resync up to {} begins", upTo);
        }
    }

    /**
     * The resync listing is complete: every key packet up to {@code upTo} is accounted for, and every
     * key not listed whose record is not newer than {@code upTo} was deleted on the primary. Ends the
     * listing and walks the store at once; the key channel uses {@link #endListing} instead, to walk
     * off its event loop.
     *
     * @throws IllegalStateException if no resync had begun (a protocol error)
     */
    KeyResult onResyncEnd(TxId upTo) {
        ResyncWalk walk = endListing(upTo);
        walk.run();
        return new KeyResult(contiguous(), null);
    }

    /**
     * Ends a resync listing: the key sequence continues after {@code upTo}. The returned walk removes
     * what the listing did not name; until it has run, {@link #resyncing()} stays true (no key is
     * acknowledged: an acknowledged resync must not leave keys the primary deleted). It takes no lock
     * of the key channel's, so it may run on any thread while key batches go on being applied.
     *
     * @throws IllegalStateException if no resync had begun (a protocol error)
     */
    ResyncWalk endListing(TxId upTo) {
        synchronized (keyLock) {
            if (listed == null) throw new IllegalStateException("ResyncEnd " + upTo + " without ResyncBegin");
            Set<ByteKey> keys = listed;
            listed = null;
            unitsAfter = upTo;
            walking = true;
            resyncing = false;
            List<KeyPacket> ready = new ArrayList<>();
            sequence.resetTo(upTo, ready);
            TxId flush = announceInOrder(ready); // packets held after upTo: a flush among them is swept too
            contiguous = sequence.contiguous();
            counters.resyncs.increment();
            return new ResyncWalk(keys, upTo, flush == null ? null : flushWalk(flush));
        }
    }

    /** The walk over the store at the end of a resync; see {@link #endListing}. */
    final class ResyncWalk implements Runnable {
        private final Set<ByteKey> keys;
        private final TxId upTo;

        private final Runnable flushWalk;

        private ResyncWalk(Set<ByteKey> keys, TxId upTo, Runnable flushWalk) {
            this.flushWalk = flushWalk;
            this.keys = keys;
            this.upTo = upTo;
        }

        @Override
        public void run() {
            try {
                int removed = removeUnlisted(keys, upTo);
                if (flushWalk != null) flushWalk.run();
                counters.keysRemovedByResync.add(removed);
                log.info("full resync up to {} done: {} keys listed, {} removed", upTo, keys.size(), removed);
            } finally {
                walking = false;
            }
        }
    }

    /** A new key channel took over: held packets and an unfinished resync listing are dropped. */
    void keyChannelReset() {
        synchronized (keyLock) {
            sequence.forgetHeld();
            listed = null;
            resyncing = false;
        }
    }

    /**
     * Applies a whole, checksum-verified value: writes it if the store has no record of the key or an
     * older one, then resolves the key's queue entries up to the TxId the store now holds. A staged
     * value ({@link ValueAssembler.Whole#staged()}) is committed from its stage, which this closes.
     *
     * @throws KvsException if the store refuses the write (full, value too large); nothing changed
     */
    Outcome apply(ValueAssembler.Whole v) {
        Outcome o = applyNow(v);
        if (!units.isEmpty()) applyReady(v.key()); // a member satisfied by this newer write
        return o;
    }

    private Outcome applyNow(ValueAssembler.Whole v) {
        try {
            return write(v);
        } finally {
            if (v.staged() != null) v.staged().close();
        }
    }

    /**
     * Takes out and applies every unit now ready, starting with those holding {@code key} (any, if
     * null); see the class comment.
     */
    private void applyReady(byte[] key) {
        for (HeldUnits.Unit u = units.takeReady(key, this::awaitsUpTo);
                u != null;
                u = units.takeReady(null, this::awaitsUpTo)) {
            applyUnit(u, true);
        }
    }

    /**
     * Applies the held members of {@code u} in TxId order: a rename's key packet, then held values. With
     * {@code together}, while no reader runs ({@link #alone}), and counted as a unit applied; else (a
     * unit released by a resync or broken by the bound) as plain values. Outcomes go to each value's
     * {@link Settled} afterwards.
     */
    private void applyUnit(HeldUnits.Unit u, boolean together) {
        List<Runnable> answers = new ArrayList<>();
        Runnable body = () -> {
            for (HeldUnits.Member m : u.members()) {
                if (m.packet.op() == Op.RENAME) rename(m.packet);
                if (m.value == null) continue;
                Outcome outcome = null;
                KvsException refused = null;
                try {
                    outcome = applyNow(m.value);
                } catch (KvsException e) {
                    refused = e;
                }
                Settled settled = m.settled;
                Outcome o = outcome;
                KvsException r = refused;
                answers.add(() -> settled.settled(o, r));
            }
        };
        if (together) {
            alone.accept(body);
            counters.unitsApplied.increment();
        } else {
            body.run();
        }
        answers.forEach(Runnable::run);
    }

    /** Units whose values are held now, waiting for the rest of their unit. */
    int heldUnits() {
        return units.size();
    }

    /** The bytes of the values held for units now. */
    long heldUnitBytes() {
        return units.bytes();
    }

    /**
     * {@link #apply(ValueAssembler.Whole)}, except that a delete whose key packet has not arrived is
     * held ({@link Outcome#HELD}) until the key channel passes it, and then applied like a delete that
     * came after its key packet: it removes the record and leaves no tombstone. Until then the key
     * keeps what it had, as if the delete's value were still on its way (an older value that comes
     * meanwhile is applied, and removed by the delete). {@code later} gets the outcome then, on the
     * thread that applies it. The held deletes of a primary that is gone are dropped ({@link
     * #dropHeld}): their writes were never acknowledged by this backup.
     *
     * @throws KvsException as {@link #apply(ValueAssembler.Whole)}, for a value applied now
     */
    Outcome apply(ValueAssembler.Whole v, Settled later) {
        if (!units.isEmpty() && !resyncing()) {
            HeldUnits.Held h = units.hold(v, later);
            if (h.held()) {
                applyReady(v.key());
                return Outcome.HELD; // answered when its unit is applied
            }
            if (h.broken() != null) {
                counters.unitsBroken.increment();
                log.warn(
                        "unit {} ({} writes) broken: its held values exceed the bound; applying them as they come",
                        h.broken().first,
                        h.broken().size);
                applyUnit(h.broken(), false);
            }
        }
        if (v.op() == Op.DELETE
                && v.staged() == null
                && !resyncing()
                && v.txId().compareTo(contiguous) > 0) {
            if (!held.add(v, later)) return apply(v); // a tombstone, collected once the key channel passes it
            counters.deletesHeld.increment();
            if (heldDue()) releaseHeld(); // the key channel passed it while it was being held
            return Outcome.HELD;
        }
        return apply(v);
    }

    /**
     * Applies an effect if this backup holds its key's structure complete, of the effect's type, at
     * exactly the effect's base TxId: the base's image with the effect applied ({@link EffectImages})
     * is written at the effect's TxId by {@code KvStore.putImage}, whose decide checks the base again
     * under the key's lock, so an effect is never applied over another version, nor out of TxId order,
     * nor half. Otherwise nothing is written: {@link Outcome#SUPERSEDED} if the key holds the effect's
     * TxId or a newer one (or it is no longer awaited), else {@link Outcome#WANTS_WHOLE}.
     *
     * @throws KvsException if the store refuses the write (full); nothing changed
     */
    Outcome apply(Frame.Effect e) {
        byte[] key = e.key();
        TxId t = e.txId();
        TxId[] inStore = new TxId[1];
        TxId[] settled = new TxId[1];
        boolean[] unawaited = new boolean[1];
        boolean[] stale = new boolean[1];
        Predicate<RecordHeader> newer = newer(key, t, settled, inStore, unawaited);
        Predicate<RecordHeader> applies = h -> {
            stale[0] = !newer.test(h);
            return !stale[0] && onBase(h, e);
        };
        MembersImage base = store.image(key);
        byte[] next = base != null && onBase(base.header(), e) ? EffectImages.apply(base.image(), e) : null;
        boolean written = false;
        if (next != null) {
            RecordHeader header = RecordHeader.structure(RecordState.COMPLETE, t, e.op().type(), e.expireAtMillis());
            written = store.putImage(key, next, h -> applies.test(h) ? header : null);
        } else {
            RecordHeader h = store.header(key);
            stale[0] = h != null && h.txId().compareTo(t) >= 0;
            inStore[0] = stale[0] ? h.txId() : null;
        }
        if (!written && !stale[0]) {
            return Outcome.WANTS_WHOLE; // nothing resolved: the whole value of this TxId or a newer one will
        }
        newestValue.accumulateAndGet(inStore[0], BackupApplier::later);
        VarHandle.fullFence();
        resolve(key, inStore[0]);
        if (!units.isEmpty()) applyReady(key);
        return outcome(written, unawaited[0]);
    }

    /** True if {@code h} is a complete structure of {@code e}'s type at exactly {@code e}'s base. */
    private static boolean onBase(RecordHeader h, Frame.Effect e) {
        return h != null
                && h.state() == RecordState.COMPLETE
                && h.type() == e.op().type()
                && h.txId().equals(e.base());
    }

    /** True if a held delete's key packet has arrived: {@link #releaseHeld} would apply it now. */
    boolean heldDue() {
        return !resyncing() && held.due(contiguous);
    }

    /**
     * Applies the held deletes whose key packets have arrived; each outcome (or refusal) goes to its
     * {@link Settled}.
     *
     * @return the deletes applied
     */
    int releaseHeld() {
        if (resyncing()) return 0;
        List<HeldDeletes.Held> due = held.takeDue(contiguous);
        for (HeldDeletes.Held h : due) {
            Outcome outcome = null;
            KvsException refused = null;
            try {
                outcome = apply(h.value());
            } catch (KvsException e) {
                refused = e;
            }
            h.settled().settled(outcome, refused);
        }
        return due.size();
    }

    /**
     * Drops the held deletes and the held units: their primary is gone (a promotion, or a primary of a
     * newer epoch). A unit's keys stay unfinished, so a promotion fences them together.
     */
    void dropHeld() {
        held.clear();
        // their keys still await the unit's writes: a promotion fences them all together
        for (HeldUnits.Unit u : units.takeAll()) {
            for (HeldUnits.Member m : u.members()) {
                if (m.value != null && m.value.staged() != null)
                    m.value.staged().close();
            }
        }
    }

    /** Deletes held now, waiting for their key packets. */
    int heldDeletes() {
        return held.size();
    }

    private Outcome write(ValueAssembler.Whole v) {
        UnfinishedKeys.Pending announced = unfinished.find(v.key(), v.txId());
        // a structure's key packet announces no length or checksum: its image is checked by its own CRC
        if (announced != null
                && !v.op().isStructure()
                && (announced.valueLength() != v.length() || announced.checksum() != v.checksum())) {
            return Outcome.MISMATCH;
        }
        TxId t = v.txId();
        TxId[] inStore = new TxId[1];
        TxId[] settled = new TxId[1];
        boolean[] unawaited = new boolean[1];
        Predicate<RecordHeader> newer = newer(v.key(), t, settled, inStore, unawaited);
        boolean written;
        if (v.staged() != null) {
            RecordHeader header =
                    new RecordHeader(RecordState.COMPLETE, t, v.checksum(), v.length(), v.expireAtMillis());
            written = store.putStaged(v.key(), v.staged(), h -> newer.test(h) ? header : null);
        } else if (v.op() == Op.DELETE) {
            return delete(v, settled, newer, inStore, unawaited);
        } else if (v.op().isStructure()) {
            RecordHeader header = RecordHeader.structure(RecordState.COMPLETE, t, v.op().type(), v.expireAtMillis());
            try {
                // replaces whatever the key holds (a string, another structure), complete, same expiry
                written = store.putImage(v.key(), v.bytes(), h -> newer.test(h) ? header : null);
            } catch (IllegalArgumentException e) {
                return Outcome.MISMATCH; // not a canonical image although its checksum matched: resent
            }
        } else {
            StoredValue next = new StoredValue(
                    new RecordHeader(RecordState.COMPLETE, t, v.checksum(), v.length(), v.expireAtMillis()), v.bytes());
            written = store.update(v.key(), h -> newer.test(h) ? Write.put(next) : Write.keep()) instanceof Write.Put;
        }
        // raised before the queue is read: a key packet queued without a store check is either seen
        // here and resolved, or checks the store itself after reading this (see announce)
        newestValue.accumulateAndGet(inStore[0], BackupApplier::later);
        VarHandle.fullFence();
        resolve(v.key(), inStore[0]);
        return outcome(written, unawaited[0]);
    }

    /**
     * The test a value of {@code key} at {@code t} passes to be written, run under the key's lock on its
     * current header: newer than the record, not before a flush, still awaited. It sets {@code settled},
     * {@code inStore} (the TxId the key holds after) and {@code unawaited} for what follows the write.
     */
    private Predicate<RecordHeader> newer(byte[] key, TxId t, TxId[] settled, TxId[] inStore, boolean[] unawaited) {
        return h -> {
            // under the key's lock, before the queues: a key packet is in its queue (or settled) once
            // contiguous covers it, and a record removed under this lock was removed with contiguous
            // already past it, so this read sees that too. During a full resync nothing is settled: the
            // listing announces again what the primary holds, and may come after its values
            settled[0] = resyncing() ? TxId.ZERO : contiguous;
            if (t.compareTo(flushedBefore) < 0) {
                // written before a flush that has reached this backup: discarded, never resurrected.
                // Checked under the key's lock, so a flush's sweep (which starts after the watermark
                // rose) either sees this key's record or this check sees the new watermark.
                inStore[0] = t;
                return false;
            }
            if (h != null && h.txId().compareTo(t) >= 0 && !rewrite(key, h, t)) {
                inStore[0] = h.txId();
                return false;
            }
            inStore[0] = t;
            if (t.compareTo(settled[0]) <= 0 && !awaited(key, t)) {
                // its key packet came and nothing awaits it any more: a newer write (or delete) of the
                // key landed since, whose record may be gone already (see the class comment)
                unawaited[0] = true;
                return false;
            }
            return true;
        };
    }

    /**
     * A delete's value. Once the key channel has passed its TxId it removes the record outright and
     * resolves the queues in the same step under the key's lock, so no older value can slip in between
     * (it finds nothing awaiting it); before that it writes a tombstone, collected later.
     */
    private Outcome delete(
            ValueAssembler.Whole v,
            TxId[] settled,
            Predicate<RecordHeader> newer,
            TxId[] inStore,
            boolean[] unawaited) {
        byte[] key = v.key();
        TxId t = v.txId();
        boolean[] settledNow = new boolean[1];
        boolean[] applied = new boolean[1];
        List<CompletableFuture<Void>> fenced = new ArrayList<>(0);
        List<CompletableFuture<Void>> async = new ArrayList<>(0);
        store.update(key, h -> {
            applied[0] = newer.test(h);
            if (!applied[0]) return Write.keep();
            settledNow[0] = t.compareTo(settled[0]) <= 0;
            if (!settledNow[0]) return Write.put(StoredValue.tombstone(t));
            newestValue.accumulateAndGet(t, BackupApplier::later); // as in write: before the queues
            VarHandle.fullFence();
            unfinished.resolve(key, t, fenced);
            asyncValues.resolve(key, t, async);
            return h == null ? Write.keep() : Write.remove();
        });
        if (applied[0] && settledNow[0]) {
            unfinished.complete(fenced);
            asyncValues.complete(async);
        } else {
            newestValue.accumulateAndGet(inStore[0], BackupApplier::later);
            VarHandle.fullFence();
            resolve(key, inStore[0]);
            if (applied[0]) tombstones.defer(key, t);
        }
        return outcome(applied[0], unawaited[0]);
    }

    private Outcome outcome(boolean written, boolean unawaited) {
        stages.mark(WriteStages.Stage.APPLIED);
        if (written) {
            counters.valuesApplied.increment();
            return Outcome.APPLIED;
        }
        if (unawaited) counters.valuesNotAwaited.increment();
        counters.valuesSuperseded.increment();
        return Outcome.SUPERSEDED;
    }

    /** True if the value of {@code key} at {@code t} is awaited, in either queue. */
    private boolean awaited(byte[] key, TxId t) {
        return unfinished.find(key, t) != null || asyncValues.find(key, t) != null;
    }

    /** Queues the keys of {@code packets} whose store record is older than the packet. */
    private void announce(List<KeyPacket> packets) {
        if (packets.isEmpty()) return;
        if (beforeAnnounce != null) beforeAnnounce.run();
        TxId newest = newestValue.get();
        List<KeyPacket> writes = new ArrayList<>(0);
        List<KeyPacket> queued = null;
        for (KeyPacket p : packets) {
            if (p.op() == Op.SKIP) continue;
            if (p.txId().compareTo(newest) > 0) {
                // newer than every value in the store: no record of the key can be as new
                await(p);
                if (queued == null) queued = new ArrayList<>(packets.size());
                queued.add(p);
            } else {
                writes.add(p);
            }
        }
        if (queued != null) {
            VarHandle.fullFence(); // the adds above before the read below (see write)
            TxId now = newestValue.get();
            if (now != newest) {
                for (KeyPacket p : queued) {
                    if (p.txId().compareTo(now) <= 0) writes.add(p); // a value landed meanwhile: check
                }
            }
        }
        queueIfOlderInStore(writes);
    }

    /**
     * Whether the value of {@code t} replaces the record {@code h} of the same TxId: a resync found it
     * {@link #differs} from what the primary listed. Once: the entry is taken.
     */
    private boolean rewrite(byte[] key, RecordHeader h, TxId t) {
        return !rewrites.isEmpty() && h.txId().equals(t) && rewrites.remove(new ByteKey(key), t);
    }

    /**
     * A record of the listed TxId that is not the listed value: incomplete, another type, or another
     * length or checksum; for a structure, whose length and checksum are 0, another members' fingerprint
     * ({@code fingerprint}: {@link KvStore#membersFingerprint}, which the primary lists as its checksum; a
     * listed 0, from a primary before the fingerprint, compares only the TxId and type). A crash of a
     * primary may leave a structure with part of an unacknowledged write under the TxId before it.
     */
    private static boolean differs(RecordHeader h, KeyPacket p, int fingerprint) {
        if (!h.txId().equals(p.txId())) return false;
        if (h.state() != RecordState.COMPLETE) return true;
        if (p.op().isStructure()) {
            return h.type() != p.op().type() || (p.checksum() != 0 && fingerprint != p.checksum());
        }
        return h.type() != ValueType.STRING || h.valueLength() != p.valueLength() || h.checksum() != p.checksum();
    }

    private static TxId later(TxId a, TxId b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /** Queues the keys of {@code writes} whose store record is older; resolves those whose record is not. */
    private void queueIfOlderInStore(List<KeyPacket> writes) {
        if (writes.isEmpty()) return;
        List<byte[]> keys = new ArrayList<>(writes.size());
        for (KeyPacket p : writes) keys.add(p.key());
        // a listed structure's fingerprint, read before the keys' locks are taken (nothing may read the store
        // under them); a write landing in between has a newer TxId, and differs compares only at the same one
        int[] fingerprints = new int[writes.size()];
        if (wants != null) {
            for (int i = 0; i < writes.size(); i++) {
                if (writes.get(i).op().isStructure()) fingerprints[i] = store.membersFingerprint(keys.get(i));
            }
        }
        try {
            store.updateAll(keys, headers -> {
                List<Write> keep = new ArrayList<>(headers.size());
                for (int i = 0; i < headers.size(); i++) {
                    queueIfNewer(writes.get(i), headers.get(i), fingerprints[i]);
                    keep.add(Write.keep());
                }
                return keep;
            });
        } catch (KvsException e) {
            // e.g. a key longer than this store accepts: its value cannot be stored either, so fence it
            log.warn("cannot check {} announced keys against the store; queueing them: {}", keys.size(), e.toString());
            for (KeyPacket p : writes) await(p);
        }
    }

    private void queueIfNewer(KeyPacket p, RecordHeader h, int fingerprint) {
        if (h == null || h.txId().compareTo(p.txId()) < 0) {
            await(p);
        } else if (wants != null && differs(h, p, fingerprint)) {
            rewrites.put(new ByteKey(p.key()), p.txId());
            await(p);
        } else {
            resolve(p.key(), h.txId()); // queued before a value as new landed (announce)
            if (wants != null) wants.remove(p); // ... and not wanted after all
        }
    }

    /**
     * Replaces every unlisted record not newer than {@code upTo} by a tombstone at {@code upTo} (so a
     * late value of the deleted key cannot bring it back while the walk lasts; collected after it) and
     * resolves the unlisted queue entries.
     */
    private int removeUnlisted(Set<ByteKey> keys, TxId upTo) {
        List<byte[]> stale = new ArrayList<>();
        store.forEach((key, v) -> {
            if (v.state() != RecordState.TOMBSTONE
                    && v.txId().compareTo(upTo) <= 0
                    && !keys.contains(new ByteKey(key))) {
                stale.add(key);
            }
        });
        int removed = 0;
        StoredValue tombstone = StoredValue.tombstone(upTo);
        for (byte[] key : stale) {
            Write w = store.update(
                    key,
                    h -> h != null
                                    && h.state() != RecordState.TOMBSTONE
                                    && h.txId().compareTo(upTo) <= 0
                            ? Write.put(tombstone)
                            : Write.keep());
            if (w instanceof Write.Put) {
                removed++;
                tombstones.defer(key, upTo); // collected once the walk is over
            }
        }
        for (UnfinishedKeys queue : List.of(unfinished, asyncValues)) {
            for (UnfinishedKeys.Pending p : queue.snapshot()) {
                if (p.txId().compareTo(upTo) <= 0 && !keys.contains(new ByteKey(p.key()))) {
                    queue.resolve(p.key(), upTo);
                }
            }
        }
        return removed;
    }
}
