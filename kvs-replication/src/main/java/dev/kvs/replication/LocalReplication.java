package dev.kvs.replication;

import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame.Op;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** Ordering without replication: a primary with no peer. Every write is answered at once. */
public final class LocalReplication implements Replication {
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private static final long SEALED = Long.MIN_VALUE / 2;

    private final long epoch;
    private final AtomicLong lastSeq;
    private volatile long sealedAt;

    public LocalReplication(long epoch, long lastSeq) {
        this.epoch = epoch;
        this.lastSeq = new AtomicLong(lastSeq);
    }

    @Override
    public WriteOrder begin(ReplicationMode mode) {
        return new WriteOrder() {
            @Override
            public TxId order(Op op, byte[] key, byte[] value) {
                long seq = lastSeq.incrementAndGet();
                if (seq < 0) { // sealed
                    throw new ReplicationBusyException("this node is starting to replicate; retry the write");
                }
                return new TxId(epoch, seq);
            }

            @Override
            public CompletableFuture<Void> commit() {
                return DONE;
            }

            @Override
            public void abort() {
                // a seq without a write leaves a gap no one reads: there is no backup
            }
        };
    }

    /**
     * Stops ordering, so that a replicator can take over the seq space without a gap or a duplicate:
     * every later {@code order} throws {@link ReplicationBusyException}.
     *
     * @return the last seq ordered; the next owner of the epoch continues after it
     */
    public synchronized long seal() {
        long last = lastSeq.getAndSet(SEALED);
        if (last >= 0) sealedAt = last;
        return sealedAt;
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
        return new TxId(epoch, seq < 0 ? sealedAt : seq);
    }

    @Override
    public long epoch() {
        return epoch;
    }

    @Override
    public ReplicatorStatus status() {
        TxId last = lastTxId();
        return new ReplicatorStatus("none", "", last, last, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    }

    @Override
    public void close() {}
}
