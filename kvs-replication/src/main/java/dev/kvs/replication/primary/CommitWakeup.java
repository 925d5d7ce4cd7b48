package dev.kvs.replication.primary;

import dev.kvs.core.WriteStages;
import io.netty.util.concurrent.EventExecutor;
import io.netty.util.internal.ThreadExecutorMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Wakes replication (the key channel, and the value shipping if values were queued) once writes are
 * committed: from a plain thread at once; from an event loop once per turn of that loop, after the I/O it is
 * handling, however many writes that I/O committed.
 *
 * <p>Replication runs on other threads (the replication event loop and the shipper), and each wake-up of a
 * sleeping thread is a system call on the committing loop and a context switch on the woken one. With
 * many clients the client loops commit several writes per turn; one wake-up for all of them lets their
 * key packets share a frame and their values share a value batch. The write waits at most for the rest of
 * its loop's turn (the other connections that were readable with it), microseconds. What is woken sends
 * the key packets before the values, as before: on a FIFO link a value frame that overtook its own key
 * packet would make it wait that frame's transfer time. (A shipper that is awake already may still take a
 * value before its key packet leaves, as it could before; measured to cost less than making it wait, see
 * BENCHMARKS.md.)
 *
 * <p>Thread-safe: client loops commit concurrently; a commit that lands while another loop's wake-up is
 * scheduled is covered by it (its packets and values are queued before it runs).
 */
final class CommitWakeup {
    /** What a wake-up does. */
    @FunctionalInterface
    interface Wake {
        /**
         * Sends the key packets committed so far, then, if {@code values}, ships (or has the shipper ship)
         * the values queued.
         */
        void wake(boolean values);
    }

    private final Wake wake;
    private final AtomicBoolean scheduled = new AtomicBoolean();
    private volatile boolean valuesQueued;
    private final Runnable task = this::run;

    private final WriteStages stages;

    /** @param stages where the end of a client loop's turn is marked */
    CommitWakeup(Wake wake, WriteStages stages) {
        this.wake = wake;
        this.stages = stages;
    }

    /** Writes were committed; {@code queuedValues}: some of their values were queued to ship. */
    void committed(boolean queuedValues) {
        EventExecutor loop = ThreadExecutorMap.currentExecutor();
        if (loop == null) {
            wake.wake(queuedValues);
            return;
        }
        if (queuedValues) valuesQueued = true; // before the flag: a scheduled run sees it
        if (scheduled.compareAndSet(false, true)) {
            try {
                loop.execute(task);
            } catch (RejectedExecutionException e) {
                run(); // the loop is shutting down: wake now
            }
        }
    }

    private void run() {
        stages.mark(WriteStages.Stage.CLIENT_TURN_ENDED);
        scheduled.set(false); // first: a commit after this schedules its own run
        boolean v = valuesQueued;
        if (v) valuesQueued = false;
        wake.wake(v);
    }
}
