package dev.kvs.replication;

import dev.kvs.core.ByteKey;
import dev.kvs.core.TxId;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The backup's unfinished-key queue: every key whose key packet arrived but whose value (of that TxId
 * or a newer one) has not been applied yet. After a failover, a read of a key in this queue must be
 * blocked or rejected rather than served, because the store holds an older value or none.
 *
 * <p>Per key the queue holds {@link Pending} entries, one per announced TxId, oldest first. A value
 * applied with TxId {@code t} (or found superseded by a record of TxId {@code t}) {@link #resolve
 * resolves} every entry of its key up to {@code t}; the key leaves the queue when its last entry does.
 *
 * <p>The queue is bounded by a number of keys. It never refuses an {@link #add}: the bound is a
 * signal ({@link #isFull()}, {@link #whenNotFull()}) for the receiver to stop reading key packets
 * until values drain it, so it may be exceeded by what was already read.
 *
 * <p>Thread-safe. {@link #isEmpty()} and {@link #contains} are lock-free and cheap enough for every
 * read; {@link #snapshot()} is weakly consistent.
 */
public final class UnfinishedKeys {
    /** Default bound on the number of keys: ten million. */
    public static final long DEFAULT_MAX_KEYS = 10_000_000L;

    /**
     * One announced write whose value has not arrived.
     *
     * @param key the key (not copied: do not modify)
     * @param txId the write's TxId
     * @param valueLength the length the value will have (0 for a delete)
     * @param checksum the CRC32C the value will have (0 for a delete)
     * @param sinceMillis when the entry was added, in the queue's clock (epoch millis by default)
     * @param expireAtMillis when the key expires (the primary's absolute time, epoch millis), 0 for
     *     never: a fenced key keeps its expiry, and one whose expiry has passed is absent, not fenced
     */
    public record Pending(byte[] key, TxId txId, int valueLength, int checksum, long sinceMillis, long expireAtMillis) {
        public Pending(byte[] key, TxId txId, int valueLength, int checksum, long sinceMillis) {
            this(key, txId, valueLength, checksum, sinceMillis, 0);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Pending p
                    && Arrays.equals(key, p.key)
                    && txId.equals(p.txId)
                    && valueLength == p.valueLength
                    && checksum == p.checksum
                    && sinceMillis == p.sinceMillis
                    && expireAtMillis == p.expireAtMillis;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(key) * 31 + txId.hashCode();
        }

        @Override
        public String toString() {
            return "Pending[" + txId + " key=" + key.length + "B len=" + valueLength + "]";
        }
    }

    /** An entry and its position in arrival order. */
    private record Slot(Pending pending, long order) {}

    /** One key's entries, sorted by TxId, and the futures waiting for it to leave. Immutable. */
    private record Entries(Slot[] slots, List<CompletableFuture<Void>> waiters) {}

    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final long maxKeys;
    private final LongSupplier clockMillis;
    private final ConcurrentHashMap<ByteKey, Entries> byKey = new ConcurrentHashMap<>();
    private final ConcurrentSkipListMap<Long, Pending> byArrival = new ConcurrentSkipListMap<>();
    private final AtomicLong keys = new AtomicLong();
    private final AtomicLong arrivals = new AtomicLong();
    private final Object notFullLock = new Object();
    private volatile CompletableFuture<Void> notFull; // set under notFullLock

    /** A queue of at most {@link #DEFAULT_MAX_KEYS} keys. */
    public UnfinishedKeys() {
        this(DEFAULT_MAX_KEYS);
    }

    /**
     * A queue that reports itself full at {@code maxKeys} keys.
     *
     * @throws IllegalArgumentException if {@code maxKeys <= 0}
     */
    public UnfinishedKeys(long maxKeys) {
        this(maxKeys, System::currentTimeMillis);
    }

    /** As {@link #UnfinishedKeys(long)}, with the clock entries' ages are read on: for tests. */
    public UnfinishedKeys(long maxKeys, LongSupplier clockMillis) {
        if (maxKeys <= 0) throw new IllegalArgumentException("maxKeys <= 0: " + maxKeys);
        this.maxKeys = maxKeys;
        this.clockMillis = clockMillis;
    }

    /**
     * Adds an entry for {@code key} at {@code txId}; does nothing if the key already has an entry at
     * that TxId.
     *
     * @return true if an entry was added
     */
    public boolean add(byte[] key, TxId txId, int valueLength, int checksum) {
        return add(key, txId, valueLength, checksum, 0);
    }

    /** Like {@link #add(byte[], TxId, int, int)}, for a write whose key expires at {@code expireAtMillis}. */
    public boolean add(byte[] key, TxId txId, int valueLength, int checksum, long expireAtMillis) {
        if (txId == null) throw new NullPointerException("txId == null");
        Pending p = new Pending(key, txId, valueLength, checksum, clockMillis.getAsLong(), expireAtMillis);
        boolean[] added = new boolean[1];
        byKey.compute(new ByteKey(key), (k, e) -> {
            Slot[] slots = e == null ? new Slot[0] : e.slots;
            int at = slots.length;
            while (at > 0 && slots[at - 1].pending.txId.compareTo(txId) >= 0) {
                if (slots[at - 1].pending.txId.equals(txId)) return e;
                at--;
            }
            long order = arrivals.incrementAndGet();
            byArrival.put(order, p);
            Slot[] next = new Slot[slots.length + 1];
            System.arraycopy(slots, 0, next, 0, at);
            next[at] = new Slot(p, order);
            System.arraycopy(slots, at, next, at + 1, slots.length - at);
            if (e == null) keys.incrementAndGet();
            added[0] = true;
            return new Entries(next, e == null ? List.of() : e.waiters);
        });
        return added[0];
    }

    /**
     * Removes every entry of {@code key} with a TxId {@code <= upTo}: a value of {@code upTo} (or a
     * record at least that new) is in the store. If none is left the key leaves the queue and the
     * futures of {@link #whenResolved} complete.
     *
     * @return the number of entries removed
     */
    public int resolve(byte[] key, TxId upTo) {
        List<CompletableFuture<Void>> done = new ArrayList<>(0);
        int removed = resolve(key, upTo, done);
        afterRemoval(done);
        return removed;
    }

    /**
     * {@link #resolve(byte[], TxId)}, but the {@link #whenResolved} futures of a key that left the
     * queue are added to {@code resolved} instead of completed: for a caller holding a lock their
     * callbacks must not run under, which completes them with {@link #complete} once it let go. Public
     * for the backup's applier in {@code dev.kvs.replication.backup}.
     */
    public int resolve(byte[] key, TxId upTo, List<CompletableFuture<Void>> resolved) {
        if (upTo == null) throw new NullPointerException("upTo == null");
        int[] removed = new int[1];
        List<CompletableFuture<Void>> done = resolved;
        byKey.computeIfPresent(new ByteKey(key), (k, e) -> {
            int n = 0;
            while (n < e.slots.length && e.slots[n].pending.txId.compareTo(upTo) <= 0) {
                byArrival.remove(e.slots[n].order);
                n++;
            }
            removed[0] = n;
            if (n == 0) return e;
            if (n < e.slots.length) return new Entries(Arrays.copyOfRange(e.slots, n, e.slots.length), e.waiters);
            keys.decrementAndGet();
            done.addAll(e.waiters);
            return null;
        });
        return removed[0];
    }

    /** Completes the futures {@link #resolve(byte[], TxId, List)} collected. */
    public void complete(List<CompletableFuture<Void>> resolved) {
        afterRemoval(resolved);
    }

    /**
     * True if {@code key} has an entry at {@code upTo} or before: a value that old is still awaited,
     * so a record that would stop it from being applied (a tombstone) must stay.
     */
    public boolean awaitsUpTo(byte[] key, TxId upTo) {
        if (isEmpty()) return false;
        Entries e = byKey.get(new ByteKey(key));
        return e != null && e.slots[0].pending.txId.compareTo(upTo) <= 0;
    }

    /**
     * Removes every entry, of every key, with a TxId before {@code upTo} (a flush at {@code upTo}: what
     * was written before it is gone, so its values are no longer awaited). Later entries stay. Walks
     * the queue's keys; entries added meanwhile with an older TxId may survive (the caller orders
     * this with the key packets).
     *
     * @return the number of entries removed
     */
    public long resolveBefore(TxId upTo) {
        if (upTo == null) throw new NullPointerException("upTo == null");
        long[] removed = new long[1];
        List<CompletableFuture<Void>> done = new ArrayList<>(0);
        for (ByteKey key : byKey.keySet()) {
            byKey.computeIfPresent(key, (k, e) -> {
                int n = 0;
                while (n < e.slots.length && e.slots[n].pending.txId.compareTo(upTo) < 0) {
                    byArrival.remove(e.slots[n].order);
                    n++;
                }
                removed[0] += n;
                if (n == 0) return e;
                if (n < e.slots.length) return new Entries(Arrays.copyOfRange(e.slots, n, e.slots.length), e.waiters);
                keys.decrementAndGet();
                done.addAll(e.waiters);
                return null;
            });
        }
        afterRemoval(done);
        return removed[0];
    }

    /** True if no key is unfinished. Lock-free: one volatile read. */
    public boolean isEmpty() {
        return keys.get() == 0;
    }

    /** True if {@code key} has at least one entry. */
    public boolean contains(byte[] key) {
        return !isEmpty() && byKey.containsKey(new ByteKey(key));
    }

    /** The entry of {@code key} with the highest TxId, or {@code null} if the key is not unfinished. */
    public Pending newest(byte[] key) {
        Entries e = byKey.get(new ByteKey(key));
        return e == null ? null : e.slots[e.slots.length - 1].pending;
    }

    /** The entries of {@code key}, oldest TxId first; empty if the key is not unfinished. */
    public List<Pending> entries(byte[] key) {
        Entries e = byKey.get(new ByteKey(key));
        if (e == null) return List.of();
        List<Pending> list = new ArrayList<>(e.slots.length);
        for (Slot s : e.slots) list.add(s.pending);
        return list;
    }

    /** The entry of {@code key} at exactly {@code txId}, or {@code null}. */
    public Pending find(byte[] key, TxId txId) {
        Entries e = byKey.get(new ByteKey(key));
        if (e == null) return null;
        for (Slot s : e.slots) if (s.pending.txId.equals(txId)) return s.pending;
        return null;
    }

    /** The number of unfinished keys (not entries). */
    public long size() {
        return keys.get();
    }

    /** The number of entries over all keys; walks the queue. */
    public long entryCount() {
        return byArrival.size();
    }

    /** The bound on keys this queue was made with. */
    public long maxKeys() {
        return maxKeys;
    }

    /** True if the queue holds at least {@link #maxKeys()} keys: stop reading key packets. */
    public boolean isFull() {
        return keys.get() >= maxKeys;
    }

    /** Completes (on the thread that drains the queue) once {@link #isFull()} is false; at once if it is. */
    public CompletableFuture<Void> whenNotFull() {
        if (!isFull()) return DONE;
        CompletableFuture<Void> f;
        synchronized (notFullLock) {
            f = notFull;
            if (f == null) notFull = f = new CompletableFuture<>();
        }
        if (!isFull()) completeNotFull(); // drained while we registered
        return f;
    }

    /** Age in milliseconds of the oldest entry (the exposure window), or 0 if the queue is empty. */
    public long oldestAgeMillis() {
        Map.Entry<Long, Pending> first = byArrival.firstEntry();
        return first == null ? 0 : Math.max(0, clockMillis.getAsLong() - first.getValue().sinceMillis);
    }

    /** Every entry, oldest arrival first (for the loss manifest). Weakly consistent. */
    public List<Pending> snapshot() {
        return new ArrayList<>(byArrival.values());
    }

    /**
     * A future completed when {@code key} leaves the queue (resolved or {@link #clear() cleared});
     * already completed if it is not in the queue. Callbacks run on the resolving thread (often a
     * network event loop): keep them short or move them elsewhere.
     */
    public CompletableFuture<Void> whenResolved(byte[] key) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        Entries e = byKey.computeIfPresent(new ByteKey(key), (k, old) -> {
            List<CompletableFuture<Void>> waiters = new ArrayList<>(old.waiters.size() + 1);
            waiters.addAll(old.waiters);
            waiters.add(f);
            return new Entries(old.slots, waiters);
        });
        if (e == null) f.complete(null);
        return f;
    }

    /** Removes every key; their {@link #whenResolved} futures complete. */
    public void clear() {
        List<CompletableFuture<Void>> done = new ArrayList<>();
        for (ByteKey key : byKey.keySet()) {
            byKey.computeIfPresent(key, (k, e) -> {
                for (Slot s : e.slots) byArrival.remove(s.order);
                keys.decrementAndGet();
                done.addAll(e.waiters);
                return null;
            });
        }
        afterRemoval(done);
    }

    private void afterRemoval(List<CompletableFuture<Void>> resolved) {
        for (CompletableFuture<Void> f : resolved) f.complete(null);
        if (notFull != null && !isFull()) completeNotFull();
    }

    private void completeNotFull() {
        CompletableFuture<Void> f;
        synchronized (notFullLock) {
            f = notFull;
            notFull = null;
        }
        if (f != null) f.complete(null);
    }

    @Override
    public String toString() {
        return "UnfinishedKeys[" + keys.get() + " keys]";
    }
}
