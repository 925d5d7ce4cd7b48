package dev.kvs.replication.primary;

import dev.kvs.core.TxId;
import dev.kvs.replication.ReplicationBusyException;
import dev.kvs.replication.wire.Frame;
import dev.kvs.replication.wire.Frame.KeyPacket;
import dev.kvs.replication.wire.Frame.Op;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The primary's sequencer and its window of key packets not yet acknowledged by the backup.
 *
 * <p>A write {@linkplain #reserve reserves} the next seq inside the store's key lock, then {@linkplain
 * #commit commits} it once the store write is done (or {@linkplain #abort aborts} it, which turns the
 * packet into a {@code SKIP}). Only the contiguous prefix of committed or aborted seqs is sent, so an
 * acknowledged key packet always describes a write that is in the store: that is what makes a full
 * resync from {@link #sendablePrefix()} exact. Thread-safe; every method is short.
 */
final class KeyLog {
    private static final byte RESERVED = 0, COMMITTED = 1, ABORTED = 2;
    private static final byte[] NO_KEY = new byte[0];

    private final int capacity;
    private final long epoch;
    private final Entry[] ring;
    private long lastSeq; // last seq reserved
    private long ackedSeq; // every seq <= this is acknowledged
    private long sentSeq; // every seq <= this was sent on the current connection
    private long lastAckNanos;
    /** lastSeq - ackedSeq, readable without the lock (the write path checks room on every write). */
    private volatile long unackedMirror;

    private long ackLatencyMicros;

    private static final class Entry {
        long seq;
        Op op;
        byte[] key;
        byte[] source; // a RENAME's source key, else empty
        int valueLength;
        int checksum;
        long expireAt;
        byte state;
        long sentNanos;
        CompletableFuture<Void> acked;
        /** The unit this packet belongs to, or null ({@link #markUnit}). */
        Frame.Unit unit;
    }

    KeyLog(long epoch, long lastSeq, int capacity) {
        this.epoch = epoch;
        this.lastSeq = lastSeq;
        this.ackedSeq = lastSeq;
        this.sentSeq = lastSeq;
        this.capacity = capacity;
        this.ring = new Entry[capacity]; // entries are made on first use and reused
    }

    long epoch() {
        return epoch;
    }

    /** True if a seq can be reserved now; lock-free. */
    boolean hasRoom() {
        return unackedMirror < capacity;
    }

    /** Waits until a seq can be reserved; false on timeout. */
    synchronized boolean awaitRoom(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (lastSeq - ackedSeq >= capacity) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return false;
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        return true;
    }

    /**
     * Assigns the next seq. Callers make room first ({@link #awaitRoom}), but a command writing several
     * keys, or writers racing for the last slot, can still find the log full.
     *
     * @throws ReplicationBusyException if the log is full; the caller aborts its order, so nothing is written
     */
    TxId reserve(Op op, byte[] key, int valueLength, int checksum) {
        return reserve(op, key, valueLength, checksum, 0, NO_KEY);
    }

    /** The same for a key that expires at {@code expireAt} (epoch millis; 0 for never). */
    TxId reserve(Op op, byte[] key, int valueLength, int checksum, long expireAt) {
        return reserve(op, key, valueLength, checksum, expireAt, NO_KEY);
    }

    /**
     * Like {@link #reserve(Op, byte[], int, int, long)}, also for a {@link Op#RENAME} of {@code source}
     * to {@code key} (empty for every other op).
     */
    synchronized TxId reserve(Op op, byte[] key, int valueLength, int checksum, long expireAt, byte[] source) {
        if (lastSeq - ackedSeq >= capacity) {
            throw new ReplicationBusyException("key log full: " + capacity
                    + " key packets unacknowledged by the backup (maxUnackedKeys), no room for this write's"
                    + " keys; nothing was written");
        }
        long seq = ++lastSeq;
        unackedMirror = lastSeq - ackedSeq;
        Entry e = ring[index(seq)];
        if (e == null) e = ring[index(seq)] = new Entry();
        e.seq = seq;
        e.op = op;
        e.key = op == Op.SKIP || op == Op.FLUSH ? NO_KEY : key;
        e.source = op == Op.RENAME ? source : NO_KEY;
        e.valueLength = valueLength;
        e.checksum = checksum;
        e.expireAt = expireAt;
        e.state = RESERVED;
        e.acked = null;
        e.unit = null;
        return new TxId(epoch, seq);
    }

    /**
     * Makes the reserved key packets {@code txIds} (ascending; two or more) one unit: each carries the
     * marker ({@link Frame.Unit}: the first TxId, the count) for the backup. Call before committing them, so
     * no packet of the unit is sent without it.
     */
    synchronized void markUnit(List<TxId> txIds) {
        Frame.Unit unit = new Frame.Unit(txIds.get(0), txIds.size());
        for (TxId t : txIds) {
            Entry e = entry(t);
            if (e != null && e.state == RESERVED) e.unit = unit;
        }
    }

    synchronized void commit(TxId txId) {
        Entry e = entry(txId);
        if (e != null) e.state = COMMITTED;
    }

    synchronized void abort(TxId txId) {
        Entry e = entry(txId);
        if (e != null) {
            e.state = ABORTED;
            e.op = Op.SKIP;
            e.key = NO_KEY;
            e.source = NO_KEY;
            e.valueLength = 0;
            e.checksum = 0;
            e.expireAt = 0;
            e.unit = null;
        }
    }

    /** Up to {@code max} packets after the last one sent, stopping at the first write still in progress. */
    synchronized List<KeyPacket> drainSendable(int max) {
        List<KeyPacket> out = new ArrayList<>(Math.min(max, 64));
        long now = System.nanoTime();
        while (out.size() < max && sentSeq < lastSeq) {
            Entry e = ring[index(sentSeq + 1)];
            if (e.state == RESERVED) break;
            e.sentNanos = now;
            out.add(new KeyPacket(
                    new TxId(epoch, e.seq), e.op, e.key, e.valueLength, e.checksum, e.expireAt, e.source, e.unit));
            sentSeq++;
        }
        return out;
    }

    /** How long the oldest key packet sent and not yet acknowledged has been waiting; 0 if none. */
    synchronized long oldestUnackedAgeNanos() {
        if (sentSeq <= ackedSeq) return 0;
        Entry e = ring[index(ackedSeq + 1)];
        return e.sentNanos == 0 ? 0 : System.nanoTime() - e.sentNanos;
    }

    /** Highest seq such that every seq up to it is committed or aborted (all in the store). */
    synchronized long sendablePrefix() {
        long s = Math.max(sentSeq, ackedSeq);
        while (s < lastSeq && ring[index(s + 1)].state != RESERVED) s++;
        return s;
    }

    /** The backup has every key packet up to {@code upTo}. */
    void ack(TxId upTo) {
        List<CompletableFuture<Void>> acked = null;
        synchronized (this) {
            if (upTo.epoch() != epoch) return;
            long target = Math.min(upTo.seq(), lastSeq);
            long now = System.nanoTime();
            while (ackedSeq < target) {
                Entry e = ring[index(++ackedSeq)];
                if (e.sentNanos != 0) ackLatencyMicros = (now - e.sentNanos) / 1000;
                if (e.acked != null) {
                    if (acked == null) acked = new ArrayList<>();
                    acked.add(e.acked);
                }
                e.acked = null;
                e.key = null;
                e.source = null;
                e.sentNanos = 0;
            }
            if (sentSeq < ackedSeq) sentSeq = ackedSeq;
            unackedMirror = lastSeq - ackedSeq;
            lastAckNanos = now;
            notifyAll();
        }
        // outside the lock: what depends on these (replies) must not hold up writers ordering keys
        if (acked != null) for (CompletableFuture<Void> f : acked) f.complete(null);
    }

    /** Resend everything after {@code after} (a reconnect, or the backup saw a gap). */
    synchronized void rewind(TxId after) {
        long s = after.epoch() == epoch ? after.seq() : ackedSeq;
        sentSeq = Math.max(ackedSeq, Math.min(s, sentSeq));
    }

    /** After a full resync listed the store up to {@code upTo}: continue after it. */
    synchronized void resyncedUpTo(long upTo) {
        sentSeq = Math.max(sentSeq, upTo);
    }

    /** Completes when the key packet of {@code txId} (and every earlier one) is acknowledged. */
    synchronized CompletableFuture<Void> whenAcked(TxId txId) {
        if (txId.epoch() != epoch || txId.seq() <= ackedSeq) return CompletableFuture.completedFuture(null);
        Entry e = ring[index(txId.seq())];
        if (e.acked == null) e.acked = new CompletableFuture<>();
        return e.acked;
    }

    /**
     * Replication stopped (the node was demoted or is closing): every write waiting for its key
     * packet's acknowledgement fails with {@code cause} now, instead of waiting for its timeout.
     */
    void failAll(Throwable cause) {
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        synchronized (this) {
            for (long seq = ackedSeq + 1; seq <= lastSeq; seq++) {
                Entry e = ring[index(seq)];
                if (e.acked != null) {
                    waiting.add(e.acked);
                    e.acked = null;
                }
            }
        }
        for (CompletableFuture<Void> f : waiting) f.completeExceptionally(cause);
    }

    synchronized TxId lastTxId() {
        return new TxId(epoch, lastSeq);
    }

    synchronized TxId ackedTxId() {
        return new TxId(epoch, ackedSeq);
    }

    synchronized long unacked() {
        return lastSeq - ackedSeq;
    }

    synchronized long ackLatencyMicros() {
        return ackLatencyMicros;
    }

    private Entry entry(TxId txId) {
        if (txId.epoch() != epoch || txId.seq() <= ackedSeq || txId.seq() > lastSeq) return null;
        return ring[index(txId.seq())];
    }

    private int index(long seq) {
        return (int) (seq % capacity);
    }
}
