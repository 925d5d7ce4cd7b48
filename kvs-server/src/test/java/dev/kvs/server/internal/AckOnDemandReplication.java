package dev.kvs.server.internal;

import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.replication.ReplicationLink;
import dev.kvs.replication.ReplicationMode;
import dev.kvs.replication.ReplicatorStatus;
import dev.kvs.replication.WriteOrder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * A replication whose backup acknowledges only when the test says so: a write in any mode but async
 * is answered after {@link #ackAll()}, and every write's {@link WriteOrder#confirmed()} completes then.
 * Has room unless a test takes it away ({@link #room}). Thread-safe.
 */
public final class AckOnDemandReplication implements ReplicationLink {
    private final List<CompletableFuture<Void>> unacked = new ArrayList<>();
    private final List<String> shippedWhileStaged = new ArrayList<>();
    private long seq;
    private volatile boolean room = true;

    /** Records the key (ISO-8859-1) of a value the client port hands over to ship while it arrives. */
    @Override
    public synchronized void shipWhileStaged(byte[] key, ValueStage stage) {
        shippedWhileStaged.add(new String(key, StandardCharsets.ISO_8859_1));
    }

    /** The keys of the values handed over by {@link #shipWhileStaged}, in order. */
    public synchronized List<String> shippedWhileStaged() {
        return List.copyOf(shippedWhileStaged);
    }

    /** Acknowledges every write committed so far. */
    public void ackAll() {
        List<CompletableFuture<Void>> acks;
        synchronized (this) {
            acks = new ArrayList<>(unacked);
            unacked.clear();
        }
        acks.forEach(f -> f.complete(null));
    }

    /** Fails every write committed so far and not yet acknowledged with {@code cause}. */
    public void failAll(Throwable cause) {
        List<CompletableFuture<Void>> acks;
        synchronized (this) {
            acks = new ArrayList<>(unacked);
            unacked.clear();
        }
        acks.forEach(f -> f.completeExceptionally(cause));
    }

    @Override
    public WriteOrder begin(ReplicationMode mode) {
        return new WriteOrder() {
            /** Completes at {@link #ackAll()}: the backup's confirmation, in any mode (WAIT). */
            private final CompletableFuture<Void> ack = new CompletableFuture<>();

            @Override
            public TxId put(byte[] key, int valueLength, int checksum, long expireAtMillis) {
                return next();
            }

            @Override
            public TxId delete(byte[] key) {
                return next();
            }

            @Override
            public TxId flush() {
                return next();
            }

            @Override
            public TxId rename(byte[] source, byte[] key, int valueLength, int checksum, long expireAtMillis) {
                return next();
            }

            @Override
            public CompletableFuture<Void> commit() {
                synchronized (AckOnDemandReplication.this) {
                    unacked.add(ack);
                }
                return mode == ReplicationMode.ASYNC ? CompletableFuture.completedFuture(null) : ack;
            }

            @Override
            public CompletableFuture<Void> confirmed() {
                return ack;
            }

            @Override
            public void abort() {}
        };
    }

    private synchronized TxId next() {
        return TxId.of(1, ++seq);
    }

    @Override
    public boolean handOver(long epoch, Duration timeout) {
        throw new UnsupportedOperationException("no backup to hand over to");
    }

    /** Whether replication has room for more writes: with none, the client port holds them (BUSY at the timeout). */
    public void room(boolean room) {
        this.room = room;
    }

    @Override
    public boolean hasRoom() {
        return room;
    }

    @Override
    public long writeTimeoutMillis() {
        return 5_000;
    }

    @Override
    public synchronized TxId lastTxId() {
        return TxId.of(1, seq);
    }

    @Override
    public long epoch() {
        return 1;
    }

    @Override
    public ReplicatorStatus status() {
        return FixedStatusReplication.STREAMING_WITH_FLOW_CONTROL;
    }

    @Override
    public void close() {}
}
