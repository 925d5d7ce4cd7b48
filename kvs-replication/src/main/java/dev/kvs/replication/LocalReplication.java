package dev.kvs.replication;

import dev.kvs.core.TxId;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongFunction;

/**
 * Ordering without replication: a primary with no peer. Every write is answered at once.
 *
 * <p>{@link #handOff} passes the epoch's seq space to a successor (a replicator, once a backup is
 * there) without a gap or a duplicate: writes that began here and order after the hand-off are
 * ordered, and answered, by the successor.
 */
public final class LocalReplication implements Replication {
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);
    private static final long HANDED_OFF = Long.MIN_VALUE / 2;

    private final long epoch;
    private final AtomicLong lastSeq;
    private final CompletableFuture<Replication> successor = new CompletableFuture<>();
    private volatile long handedOffAt;

    public LocalReplication(long epoch, long lastSeq) {
        this.epoch = epoch;
        this.lastSeq = new AtomicLong(lastSeq);
    }

    @Override
    public WriteOrder begin(ReplicationMode mode) {
        if (successor.isDone() && !successor.isCompletedExceptionally())
            return successor.join().begin(mode);
        return new WriteOrder() {
            private WriteOrder delegate;

            @Override
            public TxId put(byte[] key, int valueLength, int checksum, long expireAtMillis) {
                TxId t = orderHere();
                return t != null ? t : delegate.put(key, valueLength, checksum, expireAtMillis);
            }

            @Override
            public TxId delete(byte[] key) {
                TxId t = orderHere();
                return t != null ? t : delegate.delete(key);
            }

            @Override
            public TxId flush() {
                TxId t = orderHere();
                return t != null ? t : delegate.flush();
            }

            @Override
            public TxId rename(byte[] source, byte[] key, int valueLength, int checksum, long expireAtMillis) {
                TxId t = orderHere();
                return t != null ? t : delegate.rename(source, key, valueLength, checksum, expireAtMillis);
            }

            /** The next TxId of this epoch, or null if handed off since this write began (then: delegate). */
            private TxId orderHere() {
                if (delegate != null) return null;
                long seq = lastSeq.incrementAndGet();
                if (seq >= 0) return new TxId(epoch, seq);
                delegate = awaitSuccessor().begin(mode);
                return null;
            }

            @Override
            public CompletableFuture<Void> commit() {
                return delegate == null ? DONE : delegate.commit();
            }

            @Override
            public CompletableFuture<Void> confirmed() {
                return delegate == null ? new CompletableFuture<>() : delegate.confirmed(); // no backup: never
            }

            @Override
            public void abort() {
                // without a backup, a seq without a write leaves a gap no one reads
                if (delegate != null) delegate.abort();
            }
        };
    }

    private Replication awaitSuccessor() {
        try {
            return successor.get(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ReplicationBusyException("interrupted while replication starts; nothing was written");
        } catch (ExecutionException | TimeoutException e) {
            throw new ReplicationBusyException("replication could not start (" + e + "); nothing was written");
        }
    }

    /**
     * Stops ordering here and hands the epoch's seq space to the replication {@code next} makes from
     * the last seq ordered here. Writes that began here and order later are ordered by it.
     *
     * @return the successor
     * @throws IllegalStateException if already handed off
     */
    public synchronized <R extends Replication> R handOff(LongFunction<R> next) {
        if (successor.isDone()) throw new IllegalStateException("already handed off");
        long last = lastSeq.getAndSet(HANDED_OFF);
        handedOffAt = last;
        try {
            R r = next.apply(last);
            successor.complete(r);
            return r;
        } catch (RuntimeException e) {
            successor.completeExceptionally(e);
            throw e;
        }
    }

    @Override
    public boolean hasRoom() {
        return true;
    }

    @Override
    public long writeTimeoutMillis() {
        return 0;
    }

    @Override
    public TxId lastTxId() {
        long seq = lastSeq.get();
        return new TxId(epoch, seq < 0 ? handedOffAt : seq);
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public ReplicatorStatus status() {
        return ReplicatorStatus.none(lastTxId());
    }

    @Override
    public void close() {}
}
