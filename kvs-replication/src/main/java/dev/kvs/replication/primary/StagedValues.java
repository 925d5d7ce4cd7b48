package dev.kvs.replication.primary;

import dev.kvs.core.HeapValueStage;
import dev.kvs.core.RecordHeader;
import dev.kvs.core.StageListener;
import dev.kvs.core.TxId;
import dev.kvs.core.ValueStage;
import dev.kvs.core.WriteStages;
import io.netty.channel.Channel;
import java.util.Arrays;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The {@code SET} values shipped while their clients still send them (cut-through, {@link
 * dev.kvs.replication.ReplicationLink#shipWhileStaged}). A value registers when the client port opens
 * its store stage; the stage tells its {@link Staged} entry, on the client's event loop, how many of
 * its bytes are readable, the header of the write that committed it, or that it was abandoned, and
 * wakes the shipper. The {@link ValueShipper} sends the readable bytes under the entry's id, and when
 * the committed write's turn comes it takes the entry: the rest of the value ships as a large value
 * whose first frame binds the id to the write's TxId.
 *
 * <p>Bounded: at most {@link #MAX_STAGED} values at once, each at least {@link #MIN_BYTES} long (a
 * shorter value's upload is too short to overlap anything); others ship after their commit, as
 * before. Thread-safe.
 */
final class StagedValues {
    /**
     * Shorter values are not staged for shipping: their upload is too short to overlap anything. A stage
     * makes a store chunk readable at a time (128 KiB, or 64 KiB in a data dir made before 2026-12), so a
     * value of one chunk or less becomes readable only once whole, and gains nothing.
     */
    static final int MIN_BYTES = 64 * 1024;
    /** Most values staged for shipping at once. */
    static final int MAX_STAGED = 16;

    private final AtomicLong ids = new AtomicLong();
    private final ConcurrentLinkedQueue<Staged> values = new ConcurrentLinkedQueue<>();
    private final AtomicInteger count = new AtomicInteger();
    private final Runnable wake;
    private final AtomicLong bound = new AtomicLong();
    private final AtomicLong cancelled = new AtomicLong();
    private final AtomicLong bytesSent = new AtomicLong();

    private final WriteStages stages;

    /**
     * @param wake wakes the shipper (it may be waiting for work)
     * @param stages where a value's first readable chunk is marked
     */
    StagedValues(Runnable wake, WriteStages stages) {
        this.wake = wake;
        this.stages = stages;
    }

    /**
     * One value staged for shipping. The volatile fields are set by its stage's writer; {@link
     * #stream} and {@link #shipped} belong to whoever ships (under the shipper's lock).
     */
    static final class Staged implements StageListener {
        final long id;
        final byte[] key;
        final ValueStage stage;
        private final Runnable wake;
        private final WriteStages stages;
        /** Bytes of the stage readable now. */
        volatile int readable;
        /** The header the commit wrote, or null. */
        volatile RecordHeader committed;
        /** When it was committed ({@link System#nanoTime()}). */
        volatile long committedNanos;

        volatile boolean abandoned;
        /** The stream its bytes went on, or null before the first. */
        ValueChannel stream;
        /**
         * The connection of {@link #stream} they went on: the backup holds them only while it lasts (a
         * reconnected stream is a new connection, without them).
         */
        Channel channel;
        /** Bytes sent on {@link #stream}. */
        int shipped;

        Staged(long id, byte[] key, ValueStage stage, Runnable wake, WriteStages stages) {
            this.id = id;
            this.key = key;
            this.stage = stage;
            this.wake = wake;
            this.stages = stages;
        }

        int length() {
            return stage.length();
        }

        /** Whether the bytes sent are still on the backup: their connection is up and still the stream's. */
        boolean connected() {
            return stream != null && stream.ready() && stream.channel() == channel;
        }

        @Override
        public void readable(int readable) {
            stages.mark(WriteStages.Stage.FIRST_READABLE);
            this.readable = readable;
            wake.run();
        }

        @Override
        public void committed(RecordHeader header) {
            committedNanos = System.nanoTime();
            committed = header; // the commit's own wake-up reaches the shipper
        }

        @Override
        public void abandoned() {
            abandoned = true;
            wake.run();
        }

        @Override
        public String toString() {
            return "Staged[" + id + ", " + shipped + "/" + readable + " of " + length()
                    + (committed != null ? ", committed " + committed.txId() : "")
                    + (abandoned ? ", abandoned" : "") + "]";
        }
    }

    /**
     * Registers {@code stage}, just opened for {@code key}'s value, if it is long enough, can be read
     * while written, and there is room; on the stage's writer thread, before its first write.
     *
     * @return whether it was registered
     */
    boolean open(byte[] key, ValueStage stage) {
        if (stage.length() < MIN_BYTES || stage instanceof HeapValueStage) return false;
        if (count.incrementAndGet() > MAX_STAGED) {
            count.decrementAndGet();
            return false;
        }
        Staged s = new Staged(ids.incrementAndGet(), key, stage, wake, stages);
        stage.listen(s);
        values.add(s);
        return true;
    }

    /** Every registered value, oldest first, for the shipper to work through (it forgets one with {@link #remove}). */
    Iterable<Staged> all() {
        return values;
    }

    /**
     * Takes the value the write of {@code key} at {@code txId} committed, if one is registered: it is no
     * longer this registry's. Null if none.
     */
    Staged take(byte[] key, TxId txId) {
        for (Staged s : values) {
            RecordHeader h = s.committed;
            if (h != null && h.txId().equals(txId) && Arrays.equals(s.key, key) && remove(s)) return s;
        }
        return null;
    }

    /** Forgets {@code s}; false if it was gone already. */
    boolean remove(Staged s) {
        if (!values.remove(s)) return false;
        count.decrementAndGet();
        return true;
    }

    /** Counts {@code bytes} of a value sent before its commit. */
    void sent(int bytes) {
        bytesSent.addAndGet(bytes);
    }

    /** Value bytes sent before their write's commit, in all. */
    long bytesSent() {
        return bytesSent.get();
    }

    /** Counts a value whose staged bytes were bound to its write. */
    void bound() {
        bound.incrementAndGet();
    }

    /** Counts a value whose staged bytes the backup was told to drop. */
    void cancelled() {
        cancelled.incrementAndGet();
    }

    /** Values bound to their write after some of their bytes had gone ahead of the commit. */
    long boundCount() {
        return bound.get();
    }

    /** Values whose staged bytes were dropped: their SET was not written, or written over first. */
    long cancelledCount() {
        return cancelled.get();
    }

    /** Values registered now. */
    int size() {
        return count.get();
    }
}
