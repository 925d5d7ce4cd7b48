package dev.kvs.replication.backup;

import dev.kvs.core.ByteKey;
import dev.kvs.core.KvStore;
import dev.kvs.core.KvsException;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.RecordState;
import dev.kvs.core.StoredValue;
import dev.kvs.core.TxId;
import dev.kvs.core.Write;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the backup does with what it receives: key packets (contiguity, unfinished-key queue), full
 * resyncs, and whole values (applied to the store if no newer TxId of the key is there).
 *
 * <p>A key packet enters the queue only if the store's record of its key is older, and that check
 * and the {@link UnfinishedKeys#add} run under the key's store lock ({@link KvStore#updateAll}); a
 * value is written under the same lock and resolves the queue up to the TxId then in the store. So
 * whichever of a key packet and its value comes first, the key never stays unfinished once a value
 * at least as new is stored.
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
        MISMATCH
    }

    /**
     * What to answer on the key channel.
     *
     * @param ack the cumulative ack: every key packet up to it has arrived
     * @param resend ask the primary to resend after this TxId, or {@code null}
     */
    record KeyResult(TxId ack, TxId resend) {}

    private final KvStore store;
    private final UnfinishedKeys unfinished;
    private final BackupCounters counters;
    private final Object keyLock = new Object();
    private final KeySequence sequence; // keyLock
    private Set<ByteKey> listed; // keyLock; non-null while a full resync lists keys
    private volatile TxId contiguous;
    private volatile boolean resyncing;
    /** A resync's store walk has not finished: keys are not acknowledged yet. */
    private volatile boolean walking;

    BackupApplier(KvStore store, UnfinishedKeys unfinished, BackupCounters counters, int maxHeldKeyPackets) {
        this.store = store;
        this.unfinished = unfinished;
        this.counters = counters;
        this.sequence = new KeySequence(TxId.ZERO, maxHeldKeyPackets);
        this.contiguous = TxId.ZERO;
    }

    /** The highest TxId such that every key packet of its epoch up to it has arrived. */
    TxId contiguous() {
        return contiguous;
    }

    /** True between a {@code ResyncBegin} and its {@code ResyncEnd}. */
    boolean resyncing() {
        return resyncing || walking;
    }

    /** Handles the packets of one key batch (or of a resync listing). */
    KeyResult onKeyBatch(List<KeyPacket> packets) {
        synchronized (keyLock) {
            List<KeyPacket> ready = new ArrayList<>(packets.size());
            for (KeyPacket p : packets) {
                counters.keyPackets.increment();
                if (listed != null) {
                    if (p.op() == Op.SKIP) continue;
                    listed.add(new ByteKey(p.key()));
                    ready.add(p);
                } else if (sequence.offer(p, ready) == KeySequence.Offer.DUPLICATE) {
                    counters.duplicateKeyPackets.increment();
                }
            }
            announce(ready);
            contiguous = sequence.contiguous();
            TxId resend = listed == null ? sequence.resendNeeded() : null;
            if (resend != null) counters.resendsRequested.increment();
            return new KeyResult(contiguous, resend);
        }
    }

    /** A full resync starts: the key batches until {@link #onResyncEnd} list every key of the primary. */
    void onResyncBegin(TxId upTo) {
        synchronized (keyLock) {
            listed = new HashSet<>();
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
            walking = true;
            resyncing = false;
            List<KeyPacket> ready = new ArrayList<>();
            sequence.resetTo(upTo, ready);
            announce(ready);
            contiguous = sequence.contiguous();
            counters.resyncs.increment();
            return new ResyncWalk(keys, upTo);
        }
    }

    /** The walk over the store at the end of a resync; see {@link #endListing}. */
    final class ResyncWalk implements Runnable {
        private final Set<ByteKey> keys;
        private final TxId upTo;

        private ResyncWalk(Set<ByteKey> keys, TxId upTo) {
            this.keys = keys;
            this.upTo = upTo;
        }

        @Override
        public void run() {
            try {
                int removed = removeUnlisted(keys, upTo);
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
     * older one, then resolves the key's queue entries up to the TxId the store now holds.
     *
     * @throws KvsException if the store refuses the write (full, value too large); nothing changed
     */
    Outcome apply(ValueAssembler.Whole v) {
        UnfinishedKeys.Pending announced = unfinished.find(v.key(), v.txId());
        if (announced != null
                && (announced.valueLength() != v.bytes().length || announced.checksum() != v.checksum())) {
            return Outcome.MISMATCH;
        }
        StoredValue next = v.op() == Op.DELETE
                ? StoredValue.tombstone(v.txId())
                : new StoredValue(
                        new RecordHeader(
                                RecordState.COMPLETE, v.txId(), v.checksum(), v.bytes().length, v.expireAtMillis()),
                        v.bytes());
        TxId[] inStore = new TxId[1];
        Write w = store.update(v.key(), h -> {
            if (h != null && h.txId().compareTo(v.txId()) >= 0) {
                inStore[0] = h.txId();
                return Write.keep();
            }
            inStore[0] = v.txId();
            return Write.put(next);
        });
        unfinished.resolve(v.key(), inStore[0]);
        if (w instanceof Write.Put) {
            counters.valuesApplied.increment();
            return Outcome.APPLIED;
        }
        counters.valuesSuperseded.increment();
        return Outcome.SUPERSEDED;
    }

    /** Queues the keys of {@code packets} whose store record is older than the packet. */
    private void announce(List<KeyPacket> packets) {
        List<KeyPacket> writes = new ArrayList<>(packets.size());
        List<byte[]> keys = new ArrayList<>(packets.size());
        for (KeyPacket p : packets) {
            if (p.op() == Op.SKIP) continue;
            writes.add(p);
            keys.add(p.key());
        }
        if (writes.isEmpty()) return;
        try {
            store.updateAll(keys, headers -> {
                List<Write> keep = new ArrayList<>(headers.size());
                for (int i = 0; i < headers.size(); i++) {
                    queueIfNewer(writes.get(i), headers.get(i));
                    keep.add(Write.keep());
                }
                return keep;
            });
        } catch (KvsException e) {
            // e.g. a key longer than this store accepts: its value cannot be stored either, so fence it
            log.warn("cannot check {} announced keys against the store; queueing them: {}", keys.size(), e.toString());
            for (KeyPacket p : writes) {
                unfinished.add(p.key(), p.txId(), p.valueLength(), p.checksum(), p.expireAtMillis());
            }
        }
    }

    private void queueIfNewer(KeyPacket p, RecordHeader h) {
        if (h == null || h.txId().compareTo(p.txId()) < 0) {
            unfinished.add(p.key(), p.txId(), p.valueLength(), p.checksum(), p.expireAtMillis());
        }
    }

    /**
     * Replaces every unlisted record not newer than {@code upTo} by a tombstone at {@code upTo} (so a
     * late value of the deleted key cannot bring it back) and resolves the unlisted queue entries.
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
            if (w instanceof Write.Put) removed++;
        }
        for (UnfinishedKeys.Pending p : unfinished.snapshot()) {
            if (p.txId().compareTo(upTo) <= 0 && !keys.contains(new ByteKey(p.key()))) {
                unfinished.resolve(p.key(), upTo);
            }
        }
        return removed;
    }
}
