package dev.kvs.replication.primary;

import dev.kvs.core.ByteKey;
import dev.kvs.core.TxId;
import dev.kvs.replication.ValueLagStatus;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Keys whose newest value the backup has not acknowledged yet, and the queue of keys to ship.
 *
 * <p>The shipper reads the value from the store at send time, so a key written many times before it
 * is shipped sends only its latest value: the older TxIds are conflated, never sent, and resolved by
 * the acknowledgement of the newer one. Bounded by count and bytes, and in time ({@link ValueLag}); writers
 * wait for room ({@link #awaitRoom}). Thread-safe (one monitor; every method is short). The shipper waits on the monitor for keys
 * to ship and writers for room; an add wakes it unless the caller batches the wake-ups ({@link #addQuietly},
 * then {@link #signal}), and an acknowledgement wakes only writers waiting for room.
 */
final class PendingValues {
    private final int maxCount;
    /** See {@link #abandonedCount()}. */
    private long abandonedCount;

    private final long maxBytes;
    /** In the order keys became pending: the first is the oldest. */
    private final Map<ByteKey, State> byKey = new LinkedHashMap<>();

    private final ArrayDeque<ByteKey> queue = new ArrayDeque<>();
    private final Map<TxId, ByteKey> inFlight = new HashMap<>();
    private long bytes;
    private long conflated;
    /** Writers in {@link #awaitRoom}. */
    private int roomWaiters;
    /** {@link #signal} was called since the shipper last returned from {@link #awaitWork}. */
    private boolean signalled;
    /** The clock of arrivals: {@link System#nanoTime}, but in tests. */
    private final LongSupplier clock;
    /** When the last value was queued, and how long after the one before it (huge: fewer than two yet). */
    private long lastArrival;

    private long arrivalGap = Long.MAX_VALUE;
    /** byKey.size() and bytes, readable without the lock (checked on every write). */
    private volatile long countMirror;

    private volatile long bytesMirror;
    /** Bytes of the pending values the lag counts as small ({@link ValueLag#small}), and their mirror. */
    private long smallBytes;

    private volatile long smallBytesMirror;
    private final ValueLag lag;
    /** The structure writes' effects to ship instead of images (its lock is taken inside this one, never around it). */
    private final PendingEffects effects = new PendingEffects();

    /** A pending key; its ages are the lag's ({@link ValueLag.Ages}: one object per key). */
    private static final class State extends ValueLag.Ages {
        TxId newest;
        int newestLength;
        boolean queued;
        /** Units of an EXEC holding this key's value until the backup knows them ({@link #addHeld}). */
        int held;

        List<Waiter> waiters;
    }

    private record Waiter(TxId txId, CompletableFuture<Void> future) {}

    PendingValues(int maxCount, long maxBytes) {
        this(maxCount, maxBytes, System::nanoTime);
    }

    /** Without a bound in time, with {@code clock} for the arrivals of values ({@link #arrivingWithin}). */
    PendingValues(int maxCount, long maxBytes, LongSupplier clock) {
        this(maxCount, maxBytes, new ValueLag(0, 0, System::nanoTime), clock);
    }

    /** Bounded in time by {@code lag}, with {@code clock} for the arrivals of values ({@link #arrivingWithin}). */
    PendingValues(int maxCount, long maxBytes, ValueLag lag, LongSupplier clock) {
        this.maxCount = maxCount;
        this.maxBytes = maxBytes;
        this.clock = clock;
        this.lastArrival = clock.getAsLong() - Long.MAX_VALUE / 2;
        this.lag = lag;
    }

    /** True if a write may be added now; lock-free. */
    boolean hasRoom() {
        return hasRoom(0);
    }

    /** True if a write of a value of about {@code valueBytes} may be added now; lock-free. */
    boolean hasRoom(long valueBytes) {
        return hasRoomIgnoringLag() && lag.room(bytesMirror, smallBytesMirror, valueBytes);
    }

    /** {@link #hasRoom} but for the bound in time. */
    boolean hasRoomIgnoringLag() {
        return countMirror < maxCount && bytesMirror < maxBytes;
    }

    private void mirror() {
        countMirror = byKey.size();
        bytesMirror = bytes;
        smallBytesMirror = smallBytes;
        lag.refresh(byKey.size(), bytes);
    }

    synchronized boolean awaitRoom(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        roomWaiters++;
        try {
            while (byKey.size() >= maxCount || bytes >= maxBytes || !lag.room(bytes, smallBytes, 0)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) return false;
                TimeUnit.NANOSECONDS.timedWait(this, left);
            }
            return true;
        } finally {
            roomWaiters--;
        }
    }

    /** A write of {@code key} with {@code txId} is in the store; its value must reach the backup. */
    synchronized void add(byte[] key, TxId txId, int valueLength) {
        if (addQuietly(key, txId, valueLength)) notifyAll();
    }

    /** Wakes the shipper (and any writer waiting for room, which looks again). */
    synchronized void signal() {
        signalled = true;
        notifyAll();
    }

    /**
     * The shipper, with nothing in progress, waits here until a key is queued or it is {@link #signal}led,
     * at most {@code timeoutNanos}.
     */
    synchronized void awaitWork(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (queue.isEmpty() && !signalled) {
            long left = deadline - System.nanoTime();
            if (left <= 0) break;
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        signalled = false;
    }

    /**
     * {@link #add} without waking the shipper: the caller {@link #signal}s once for a batch of adds.
     *
     * @return whether the key was queued to ship (else it was queued already, or a newer write is)
     */
    synchronized boolean addQuietly(byte[] key, TxId txId, int valueLength) {
        long now = clock.getAsLong();
        arrivalGap = now - lastArrival;
        lastArrival = now;
        ByteKey k = new ByteKey(key);
        State s = byKey.get(k);
        if (s == null) {
            s = new State();
            byKey.put(k, s);
        } else if (s.newest.isAfter(txId)) {
            return false; // a newer write of this key is already tracked
        } else if (s.queued) {
            conflated++; // the queued, unsent value is replaced by this one
        }
        lag.arrived(s, s.newest);
        return track(k, s, txId, valueLength);
    }

    /**
     * A write of an {@code EXEC}'s unit: tracked like {@link #addQuietly} (it counts against the bounds, a
     * write may wait for it with {@link #whenApplied}), but not shipped until {@link #release}: the backup
     * learns a unit's members from its key packets, so none of its values may reach the backup before the
     * last of them is acknowledged. A key already queued stays out of the shipper's hands meanwhile.
     */
    synchronized void addHeld(byte[] key, TxId txId, int valueLength) {
        addQuietly(key, txId, valueLength);
        State s = byKey.get(new ByteKey(key));
        if (s != null) s.held++;
    }

    /** The unit holding {@code key}'s value ({@link #addHeld}) is known to the backup, or gone: it ships. */
    synchronized void release(byte[] key) {
        ByteKey k = new ByteKey(key);
        State s = byKey.get(k);
        if (s == null || s.held == 0) return;
        s.held--;
        requeue(k);
    }

    /** Keys whose values wait for their unit's key packets to be acknowledged ({@link #addHeld}). */
    synchronized int heldCount() {
        int n = 0;
        for (State s : byKey.values()) if (s.held > 0) n++;
        return n;
    }

    /**
     * A full resync listed {@code key}, whose value in the store is the write {@code txId}: its value must
     * reach the backup. As {@link #addQuietly}, but while such values are pending the bound in time holds
     * no writer ({@link ValueLag}).
     */
    synchronized void listed(byte[] key, TxId txId, int valueLength) {
        ByteKey k = new ByteKey(key);
        State s = byKey.get(k);
        if (s == null) {
            s = new State();
            byKey.put(k, s);
            lag.listed(s);
        } else if (!s.newest.isBefore(txId)) {
            return; // this write, or a newer one, is tracked already
        } else {
            lag.arrived(s, s.newest);
        }
        if (track(k, s, txId, valueLength)) notifyAll();
    }

    private boolean track(ByteKey k, State s, TxId txId, int valueLength) {
        bytes += valueLength - (s.newest == null ? 0 : s.newestLength);
        if (s.newest != null && lag.small(s.newestLength)) smallBytes -= s.newestLength;
        if (lag.small(valueLength)) smallBytes += valueLength;
        s.newest = txId;
        s.newestLength = valueLength;
        mirror();
        if (s.queued) return false;
        s.queued = true;
        queue.add(k);
        return true;
    }

    /**
     * {@link #addQuietly}, and {@link #whenApplied} for the same value, at once: the shipper never sees the
     * value without the write that waits for it ({@link #awaited}).
     */
    synchronized CompletableFuture<Void> addAwaited(byte[] key, TxId txId, int valueLength) {
        addQuietly(key, txId, valueLength);
        return whenApplied(key, txId);
    }

    /** The next key to ship, waiting up to {@code timeoutNanos}; null if none. */
    synchronized byte[] poll(long timeoutNanos) throws InterruptedException {
        long deadline = System.nanoTime() + timeoutNanos;
        while (queue.isEmpty()) {
            long left = deadline - System.nanoTime();
            if (left <= 0) return null;
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
        ByteKey k = queue.poll();
        State s = byKey.get(k);
        if (s != null && s.held > 0) {
            s.queued = false; // queued again when its unit is released
            return pollSmall(Integer.MAX_VALUE); // the next one not held, if any; never waits
        }
        if (s != null) taken(s);
        return k.bytes();
    }

    /**
     * The next key to ship if its newest value is at most {@code maxLength} bytes long (or a delete), else
     * null, as when none is queued; never waits.
     */
    synchronized byte[] pollSmall(int maxLength) {
        ByteKey k = queue.peek();
        State s = k == null ? null : byKey.get(k);
        while (s != null && s.held > 0) {
            queue.poll();
            s.queued = false; // queued again when its unit is released
            k = queue.peek();
            s = k == null ? null : byKey.get(k);
        }
        if (k == null) return null;
        if (s != null && s.newestLength > maxLength) return null;
        queue.poll();
        if (s != null) taken(s);
        return k.bytes();
    }

    private static void taken(State s) {
        s.queued = false;
        ValueLag.taken(s);
    }

    /**
     * Whether values are arriving less than {@code nanos} apart: the last two were queued less than that
     * apart, and the last less than that ago. A batch waits up to the linger for more values only then:
     * values that come further apart would only be held back by it.
     */
    synchronized boolean arrivingWithin(long nanos) {
        return arrivalGap < nanos && clock.getAsLong() - lastArrival < nanos;
    }

    /** Whether keys are queued to ship. */
    synchronized boolean hasQueued() {
        return !queue.isEmpty();
    }

    /** Whether a write waits for the value of the key at the head of the queue ({@link #awaited}). */
    synchronized boolean headAwaited() {
        ByteKey k = queue.peek();
        return k != null && awaited(byKey.get(k));
    }

    /** Whether a write waits for {@code key}'s value to be applied ({@link #whenApplied}: sync mode). */
    synchronized boolean awaited(byte[] key) {
        return awaited(byKey.get(new ByteKey(key)));
    }

    private static boolean awaited(State s) {
        return s != null && s.waiters != null && !s.waiters.isEmpty();
    }

    /** The newest TxId tracked for {@code key}, or null if none is pending. */
    synchronized TxId newest(byte[] key) {
        State s = byKey.get(new ByteKey(key));
        return s == null ? null : s.newest;
    }

    /** The length of the newest value tracked for {@code key}, or 0 if none is pending. */
    synchronized int newestLength(byte[] key) {
        State s = byKey.get(new ByteKey(key));
        return s == null ? 0 : s.newestLength;
    }

    /** The value of {@code key} with {@code txId} was sent; its ack will name {@code txId}. */
    synchronized void shipped(byte[] key, TxId txId) {
        ByteKey k = new ByteKey(key);
        inFlight.put(txId, k);
        State s = byKey.get(k);
        lag.drain().shipped(txId, s == null ? 0 : s.newestLength);
    }

    /**
     * The value with {@code txId}, marked {@link #shipped}, never left (its frame could not be built or sent): no
     * ack will name it. The caller puts its key back ({@link ShipperFailures}).
     */
    synchronized void unsent(TxId txId) {
        inFlight.remove(txId);
        lag.drain().unshipped(txId);
    }

    /** How many values were shipped and not yet acknowledged or nacked by the backup. */
    synchronized int inFlight() {
        return inFlight.size();
    }

    /**
     * The backup applied (or found superseded) the value with {@code txId}.
     *
     * @return its key, or null if {@code txId} was not in flight
     */
    synchronized ByteKey acked(TxId txId) {
        ByteKey k = inFlight.remove(txId);
        if (k == null) return null;
        State s = byKey.get(k);
        lag.drain().acked(txId);
        if (s == null) return k;
        if (s.waiters != null) {
            for (Iterator<Waiter> it = s.waiters.iterator(); it.hasNext(); ) {
                Waiter w = it.next();
                if (!w.txId.isAfter(txId)) {
                    w.future.complete(null);
                    it.remove();
                }
            }
        }
        if (!s.newest.isAfter(txId)) {
            byKey.remove(k);
            lag.gone(s);
            bytes -= s.newestLength;
            if (lag.small(s.newestLength)) smallBytes -= s.newestLength;
        } else {
            lag.covered(s, txId);
        }
        mirror();
        // room for waiting writers; without them no one is woken: the shipper, which waits on this
        // monitor for keys to ship, would wake for nothing at every acknowledgement
        if (roomWaiters > 0) notifyAll();
        return k;
    }

    /**
     * The backup's store refused the value with {@code txId} (full, too large): its key stays pending
     * but is not shipped again until {@link #requeue}d ({@link RefusedValues} retries it), and the writes
     * waiting for this value or an older one of the key ({@code sync}) fail with {@code cause} now.
     *
     * @return its key, or null if {@code txId} was not in flight or its key is no longer pending
     */
    ByteKey refused(TxId txId, Throwable cause) {
        List<CompletableFuture<Void>> failed = new ArrayList<>(0);
        ByteKey k;
        synchronized (this) {
            k = inFlight.remove(txId);
            lag.drain().unshipped(txId); // it did not land: no longer in flight
            State s = k == null ? null : byKey.get(k);
            if (s == null) return null;
            if (s.waiters != null) {
                for (Iterator<Waiter> it = s.waiters.iterator(); it.hasNext(); ) {
                    Waiter w = it.next();
                    if (!w.txId.isAfter(txId)) {
                        failed.add(w.future);
                        it.remove();
                    }
                }
            }
        }
        for (CompletableFuture<Void> f : failed) f.completeExceptionally(cause);
        return k;
    }

    /** The value with {@code txId} arrived corrupt: ship the key again. */
    synchronized void nacked(TxId txId) {
        ByteKey k = inFlight.remove(txId);
        lag.drain().unshipped(txId);
        if (k != null) {
            effects.broken(k); // an effect not on the backup's base: the key ships whole
            requeue(k);
        }
    }

    /**
     * The value with {@code txId} was abandoned mid-way (its key was rewritten while its chunks were
     * being shipped): no ack will name it; the key ships again (its newer write, already tracked).
     */
    synchronized void abandoned(TxId txId) {
        abandonedCount++;
        ByteKey k = inFlight.remove(txId);
        lag.drain().unshipped(txId);
        if (k != null) requeue(k);
    }

    /** Large values abandoned mid-way so far, because their key was rewritten while they shipped. */
    synchronized long abandonedCount() {
        return abandonedCount;
    }

    /** A value connection dropped: everything sent on it and not acknowledged is shipped again. */
    synchronized void requeueInFlight() {
        List<ByteKey> keys = new ArrayList<>(inFlight.values());
        inFlight.clear();
        lag.drain().unshippedAll();
        for (ByteKey k : keys) requeue(k);
    }

    /** Every tracked key is shipped again (after a full resync). */
    synchronized void requeueAll() {
        inFlight.clear();
        lag.drain().unshippedAll();
        for (ByteKey k : byKey.keySet()) requeue(k);
    }

    /** Ship {@code key} again later. */
    synchronized void requeue(byte[] key) {
        requeue(new ByteKey(key));
    }

    private void requeue(ByteKey k) {
        State s = byKey.get(k);
        if (s != null && !s.queued && s.held == 0) {
            s.queued = true;
            queue.add(k);
            notifyAll();
        }
    }

    /** Completes when the backup has {@code key}'s value with {@code txId} or a newer one. */
    synchronized CompletableFuture<Void> whenApplied(byte[] key, TxId txId) {
        State s = byKey.get(new ByteKey(key));
        if (s == null || s.newest.isBefore(txId)) {
            // not tracked: either acknowledged already, or not added yet (the caller adds first)
            return CompletableFuture.completedFuture(null);
        }
        if (s.waiters == null) s.waiters = new ArrayList<>(2);
        CompletableFuture<Void> f = new CompletableFuture<>();
        s.waiters.add(new Waiter(txId, f));
        return f;
    }

    /**
     * Replication stopped (the node was demoted or is closing): every write waiting for its value to
     * be applied fails with {@code cause} now, instead of waiting for its timeout.
     */
    void failAll(Throwable cause) {
        List<CompletableFuture<Void>> waiting = new ArrayList<>();
        synchronized (this) {
            for (State st : byKey.values()) {
                if (st.waiters == null) continue;
                for (Waiter w : st.waiters) waiting.add(w.future);
                st.waiters = null;
            }
        }
        for (CompletableFuture<Void> f : waiting) f.completeExceptionally(cause);
    }

    /** Writers waiting in {@link #awaitRoom} now. */
    synchronized int roomWaiters() {
        return roomWaiters;
    }

    synchronized long count() {
        return byKey.size();
    }

    synchronized long bytes() {
        return bytes;
    }

    /**
     * How long the oldest write whose value the backup has not acknowledged has been waiting (the lag); 0 if
     * none.
     */
    synchronized long oldestAgeMillis() {
        return TimeUnit.NANOSECONDS.toMillis(lag.lagNanos());
    }

    /** The bound in time and what it did ({@link ValueLag}). */
    synchronized ValueLagStatus lagStatus() {
        return lag.status();
    }

    /** The bound in time: whether it refused a write lately, and what it held ({@link ValueLag#held}). */
    PendingEffects effects() {
        return effects;
    }

    ValueLag lag() {
        return lag;
    }

    synchronized long conflated() {
        return conflated;
    }
}
