package dev.kvs.replication.backup;

import java.util.ArrayList;
import java.util.List;

/**
 * Bounds the memory of values being assembled from chunks, in total and per value channel, by
 * pausing reads instead of dropping anything.
 *
 * <p>A channel's partly assembled values can only complete by reading more of that same channel, so
 * pausing a channel frees nothing by itself: it only helps when <em>another</em> channel, still
 * reading, holds memory it will free. A channel over a bound is therefore paused only when some
 * unpaused channel holds assembly memory; when memory is released, paused channels no longer over a
 * bound resume, and if every holder is paused the one holding most resumes, so the channels never
 * wait for each other forever. A channel alone may thus exceed the bounds by the values it is
 * assembling (the primary's chunking and interleaving limits keep that small).
 *
 * <p>Thread-safe; one lock for all channels (taken once per multi-chunk value start and end, and once
 * per read batch).
 */
final class AssemblyBudget {
    private final long maxTotal;
    private final long maxPerChannel;
    private final List<Lease> leases = new ArrayList<>(); // guarded by this
    private long used; // guarded by this

    AssemblyBudget(long maxTotal, long maxPerChannel) {
        if (maxTotal <= 0) throw new IllegalArgumentException("maxTotal <= 0: " + maxTotal);
        if (maxPerChannel <= 0) throw new IllegalArgumentException("maxPerChannel <= 0: " + maxPerChannel);
        this.maxTotal = maxTotal;
        this.maxPerChannel = maxPerChannel;
    }

    /**
     * Registers a channel. {@code pausedChanged} runs, with the budget's lock held, whenever the
     * lease's {@link Lease#isPaused()} changes: it must only hand {@code setAutoRead(!isPaused())} to
     * the channel's event loop, reading the state when it runs there (so changes cannot be reordered).
     */
    synchronized Lease open(Runnable pausedChanged) {
        Lease l = new Lease(pausedChanged);
        leases.add(l);
        return l;
    }

    /** Bytes reserved by every channel. */
    synchronized long used() {
        return used;
    }

    /** Channels paused now. */
    synchronized int paused() {
        int n = 0;
        for (Lease l : leases) if (l.paused) n++;
        return n;
    }

    private boolean over(Lease l) {
        return used > maxTotal || l.held > maxPerChannel;
    }

    private void rebalance() {
        boolean anyPaused = false;
        boolean unpausedHolder = false;
        Lease largestPaused = null;
        for (Lease l : leases) {
            if (l.paused && !over(l)) l.setPaused(false);
            if (l.paused) {
                anyPaused = true;
                if (largestPaused == null || l.held > largestPaused.held) largestPaused = l;
            } else if (l.held > 0) {
                unpausedHolder = true;
            }
        }
        if (anyPaused && !unpausedHolder) largestPaused.setPaused(false);
    }

    /** One channel's share of the budget. Reserve and release on the channel's own thread. */
    final class Lease implements AutoCloseable {
        private final Runnable pausedChanged;
        private long held;
        private boolean paused;
        private boolean closed;

        private Lease(Runnable pausedChanged) {
            this.pausedChanged = pausedChanged;
        }

        /** Accounts {@code bytes} more (never refused: the bytes have already arrived or are due). */
        void reserve(long bytes) {
            synchronized (AssemblyBudget.this) {
                if (closed) return;
                held += bytes;
                used += bytes;
            }
        }

        /** Gives back {@code bytes} reserved before; may resume paused channels. */
        void release(long bytes) {
            synchronized (AssemblyBudget.this) {
                if (closed) return;
                if (bytes > held) throw new IllegalStateException("release " + bytes + " > held " + held);
                held -= bytes;
                used -= bytes;
                rebalance();
            }
        }

        /**
         * After a read batch: pauses this channel if it is over a bound and another channel still
         * reading can free memory.
         *
         * @return true if the channel is paused now
         */
        boolean pauseIfOver() {
            synchronized (AssemblyBudget.this) {
                if (closed || paused || !over(this)) return paused;
                for (Lease other : leases) {
                    if (other != this && !other.paused && other.held > 0) {
                        setPaused(true);
                        return true;
                    }
                }
                return false;
            }
        }

        long held() {
            synchronized (AssemblyBudget.this) {
                return held;
            }
        }

        boolean isPaused() {
            synchronized (AssemblyBudget.this) {
                return paused;
            }
        }

        private void setPaused(boolean p) {
            paused = p;
            pausedChanged.run();
        }

        /** Releases everything this channel held and unregisters it; idempotent. */
        @Override
        public void close() {
            synchronized (AssemblyBudget.this) {
                if (closed) return;
                closed = true;
                used -= held;
                held = 0;
                paused = false;
                leases.remove(this);
                rebalance();
            }
        }
    }
}
