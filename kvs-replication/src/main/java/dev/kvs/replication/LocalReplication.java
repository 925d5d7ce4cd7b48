package dev.kvs.replication;

import dev.kvs.core.TxId;
import dev.kvs.replication.wire.Frame.Op;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

/** Ordering without replication: a primary with no peer. Every write is answered at once. */
public final class LocalReplication implements Replication {
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

    private final long epoch;
    private final AtomicLong lastSeq;

    public LocalReplication(long epoch, long lastSeq) {
        this.epoch = epoch;
        this.lastSeq = new AtomicLong(lastSeq);
    }

    @Override
    public WriteOrder begin(ReplicationMode mode) {
        return new WriteOrder() {
            @Override
            public TxId order(Op op, byte[] key, byte[] value) {
                return new TxId(epoch, lastSeq.incrementAndGet());
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
        return new TxId(epoch, lastSeq.get());
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
